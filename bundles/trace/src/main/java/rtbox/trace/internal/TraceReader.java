package rtbox.trace.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;

import com.sun.jna.NativeLong;

/**
 * Decodes the kernel's per-CPU ring-buffer pages (trace_pipe_raw) into the CPUs'
 * timelines. Binary pages rather than the text trace_pipe: the kernel copies a page
 * instead of formatting every event with printf, and the reader compares integers at
 * offsets the format files give instead of parsing and allocating strings, so reading
 * costs a small share of one CPU even at tens of thousands of events a second. The
 * page and every event's layout come from tracefs ({@code events/header_page}, each
 * event's {@code format}), so the same code reads i386 and x86_64 kernels.
 *
 * <p>Page: u64 timestamp, local_t commit (data length; bit 31 set when events were
 * lost before this page, bit 30 when their count is stored after the data), data.
 * Event: a u32 header (5 bits type_len, 27 bits time delta), then: type_len 1-28, data
 * of type_len * 4 bytes; 0, a u32 length then data; 29, padding (the rest of the page
 * when its delta is 0); 30, a time extend (u32 more bits of delta); 31, an absolute
 * time stamp. No allocation per event: only a thread or interrupt seen for the first
 * time is looked up.
 */
final class TraceReader {
    private static final long MISSED_EVENTS = 1L << 31, MISSED_STORED = 1L << 30;
    private static final int PADDING = 29, TIME_EXTEND = 30, TIME_STAMP = 31;
    private static final long TS_MSB_MASK = ~((1L << 59) - 1);
    static final String[] SOFTIRQS = {"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
        "HRTIMER", "RCU"};

    private final int commitSize, dataOffset, pageSize;
    /** One page, read by the kernel straight into this direct buffer and decoded in place (no JNI call per field). */
    private final ByteBuffer page;
    private final NativeLong readSize;
    private final Tasks tasks;
    private final int probePrio;

    // Event ids and field offsets (from the format files); -1 for an event not enabled.
    private final int switchId, nextPid, nextPrio, nextComm, prevPid, prevPrio, prevComm, pidSize;
    private final int wakeupId, wakeupPid, wakeupPrio, wakeupComm, commonPid;
    private final int irqEntryId, irqExitId, irqField, irqName, irqExitField;
    private final int softEntryId, softExitId, vecField;
    private long events;

    /**
     * @param probePrio the kernel priority of the probe's threads (99 - RT priority), whose
     *        runs are not kept; -1 to keep every thread
     */
    TraceReader(Path events, Tasks tasks, int probePrio) throws IOException {
        this.tasks = tasks;
        this.probePrio = probePrio;
        EventFormat header = EventFormat.read(events.resolve("header_page"), "header_page");
        commitSize = header.size("commit");
        dataOffset = header.offset("data");
        pageSize = dataOffset + header.size("data");
        page = ByteBuffer.allocateDirect(pageSize).order(ByteOrder.nativeOrder());
        readSize = new NativeLong(pageSize);
        EventFormat sw = EventFormat.read(events.resolve("sched/sched_switch/format"), "sched_switch");
        switchId = sw.id;
        nextPid = sw.offset("next_pid");
        pidSize = sw.size("next_pid");
        nextPrio = sw.offset("next_prio");
        nextComm = sw.offset("next_comm");
        prevPid = sw.offset("prev_pid");
        prevPrio = sw.offset("prev_prio");
        prevComm = sw.offset("prev_comm");
        EventFormat wu = optional(events, "sched/sched_wakeup");
        wakeupId = wu == null ? -1 : wu.id;
        wakeupPid = wu == null ? 0 : wu.offset("pid");
        wakeupPrio = wu == null ? 0 : wu.offset("prio");
        wakeupComm = wu == null ? 0 : wu.offset("comm");
        commonPid = sw.offset("common_pid");
        EventFormat ie = optional(events, "irq/irq_handler_entry");
        EventFormat ix = optional(events, "irq/irq_handler_exit");
        irqEntryId = ie == null || ix == null ? -1 : ie.id;
        irqExitId = ie == null || ix == null ? -1 : ix.id;
        irqField = ie == null ? 0 : ie.offset("irq");
        irqName = ie == null ? 0 : ie.offset("name");
        irqExitField = ix == null ? 0 : ix.offset("irq");
        EventFormat se = optional(events, "irq/softirq_entry");
        EventFormat sx = optional(events, "irq/softirq_exit");
        softEntryId = se == null || sx == null ? -1 : se.id;
        softExitId = se == null || sx == null ? -1 : sx.id;
        vecField = se == null ? 0 : se.offset("vec");
    }

    private static EventFormat optional(Path events, String name) {
        try {
            return EventFormat.read(events.resolve(name + "/format"), name);
        } catch (IOException e) {
            return null;
        }
    }

    Tasks tasks() {
        return tasks;
    }

    int pageSize() {
        return pageSize;
    }

    long events() {
        return events;
    }

    /**
     * Reads and decodes the pages waiting on one CPU's trace_pipe_raw (non-blocking);
     * returns the number of pages read.
     */
    int drain(int fd, CpuTimeline timeline, long[] lastTs) {
        int pages = 0;
        while (Posix.read(fd, page, readSize) > 0) {
            decode(timeline, lastTs);
            pages++;
        }
        return pages;
    }

    /** Decodes the page in {@link #page}. {@code lastTs[0]}: the time of this CPU's last event. */
    void decode(CpuTimeline timeline, long[] lastTs) {
        long ts = page.getLong(0);
        long commit = commitSize == 8 ? page.getLong(8) : page.getInt(8) & 0xffffffffL;
        long length = commit & (MISSED_STORED - 1);
        if ((commit & MISSED_EVENTS) != 0) {
            long missed = (commit & MISSED_STORED) != 0 && dataOffset + length + commitSize <= pageSize
                    ? (commitSize == 8 ? page.getLong(dataOffset + (int) length) : page.getInt(dataOffset + (int) length)) : 1;
            timeline.lost(lastTs[0], ts, missed);
        }
        int end = dataOffset + (int) Math.min(length, pageSize - dataOffset);
        int off = dataOffset;
        while (off + 4 <= end) {
            int header = page.getInt(off);
            int typeLen = header & 31;
            long delta = (header >>> 5) & 0x7ffffff;
            switch (typeLen) {
                case PADDING:
                    if (delta == 0) {
                        off = end;
                        continue;
                    }
                    ts += delta;
                    int skip = page.getInt(off + 4);
                    off = skip > 0 ? off + 4 + skip : end;
                    continue;
                case TIME_EXTEND:
                    ts += ((page.getInt(off + 4) & 0xffffffffL) << 27) + delta;
                    off += 8;
                    continue;
                case TIME_STAMP:
                    ts = (ts & TS_MSB_MASK) | ((page.getInt(off + 4) & 0xffffffffL) << 27) | delta;
                    off += 8;
                    continue;
                case 0:
                    ts += delta;
                    int len = page.getInt(off + 4);
                    if (len <= 4) {
                        off = end; // a damaged page: stop here rather than loop
                        continue;
                    }
                    event(timeline, ts, off + 8, lastTs[0]);
                    off += 4 + len;
                    break;
                default:
                    ts += delta;
                    event(timeline, ts, off + 4, lastTs[0]);
                    off += 4 + typeLen * 4;
                    break;
            }
            lastTs[0] = ts;
        }
    }

    private void event(CpuTimeline timeline, long ts, int data, long before) {
        events++;
        int type = page.getShort(data) & 0xffff;
        if (type != switchId) {
            // Every event names the thread that was current: a switch the trace lacks shows here.
            int cur = page.getInt(data + commonPid);
            if (cur != 0) {
                Tasks.Task t = tasks.task(cur);
                timeline.current(ts, cur, CpuTimeline.task(cur, t.lastPrio), !(t.ownJvm && t.lastPrio == probePrio),
                        before);
            }
        }
        if (type == switchId) {
            int tid = pidSize == 8 ? (int) page.getLong(data + nextPid) : page.getInt(data + nextPid);
            int prio = page.getInt(data + nextPrio);
            boolean keep = tid != 0;
            if (keep) {
                Tasks.Task t = tasks.task(tid);
                long hash = commHash(data + nextComm);
                if (t.comm == null || hash != t.commHash) {
                    t.comm = comm(data + nextComm);
                    t.commHash = hash;
                }
                t.lastPrio = prio;
                keep = !(t.ownJvm && prio == probePrio);
                if (keep && prio != t.policyPrio) {
                    // A new priority: look its policy up now, while the thread is there (FIFO
                    // and RR look the same in the trace). A syscall per priority change, not per event.
                    t.policy = Tasks.policy(tid, prio);
                    t.policyPrio = prio;
                }
            }
            int prev = pidSize == 8 ? (int) page.getLong(data + prevPid) : page.getInt(data + prevPid);
            int pprio = page.getInt(data + prevPrio);
            boolean keepPrev = false;
            if (prev != 0) {
                // Known from its switch in, unless the trace did not have that one.
                Tasks.Task pt = tasks.task(prev);
                if (pt.comm == null) {
                    pt.comm = comm(data + prevComm);
                    pt.commHash = commHash(data + prevComm);
                }
                pt.lastPrio = pprio;
                keepPrev = !(pt.ownJvm && pprio == probePrio);
                if (keepPrev && pprio != pt.policyPrio) {
                    pt.policy = Tasks.policy(prev, pprio);
                    pt.policyPrio = pprio;
                }
            }
            timeline.switched(ts, prev, CpuTimeline.task(prev, pprio), keepPrev, tid, CpuTimeline.task(tid, prio), keep);
        } else if (type == wakeupId) {
            int tid = pidSize == 8 ? (int) page.getLong(data + wakeupPid) : page.getInt(data + wakeupPid);
            if (tid != 0) {
                Tasks.Task t = tasks.task(tid);
                t.lastPrio = page.getInt(data + wakeupPrio);
                if (t.comm == null) {
                    t.comm = comm(data + wakeupComm);
                    t.commHash = commHash(data + wakeupComm);
                }
            }
            timeline.woke(ts, tid);
        } else if (type == irqEntryId) {
            int irq = page.getInt(data + irqField);
            if (!tasks.hasIrqName(irq)) {
                int loc = page.getInt(data + irqName);
                tasks.irqName(irq, string(data + (loc & 0xffff), (loc >>> 16) & 0xffff));
            }
            timeline.enter(ts, CpuTimeline.irq(irq));
        } else if (type == irqExitId) {
            timeline.exit(ts, CpuTimeline.irq(page.getInt(data + irqExitField)));
        } else if (type == softEntryId) {
            timeline.enter(ts, CpuTimeline.softirq(page.getInt(data + vecField)));
        } else if (type == softExitId) {
            timeline.exit(ts, CpuTimeline.softirq(page.getInt(data + vecField)));
        }
    }

    private long commHash(int at) {
        return page.getLong(at) * 31 + page.getLong(at + 8);
    }

    private String comm(int at) {
        return string(at, 16);
    }

    private String string(int at, int max) {
        int n = 0;
        while (n < max && page.get(at + n) != 0) {
            n++;
        }
        byte[] b = new byte[n];
        page.get(at, b);
        return new String(b, java.nio.charset.StandardCharsets.UTF_8);
    }

    static String softirqName(int vec) {
        return vec >= 0 && vec < SOFTIRQS.length ? SOFTIRQS[vec] : "vec " + vec;
    }
}
