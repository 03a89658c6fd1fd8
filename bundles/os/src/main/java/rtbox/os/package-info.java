/**
 * Native access to the Linux calls a real-time probe needs, through JNA direct
 * mapping: scheduling policy and priority, CPU affinity, memory locking, timer
 * slack, absolute-deadline sleeps on CLOCK_MONOTONIC and the CPU time stamp counter
 * ({@link rtbox.os.Tsc}, rdtsc through a small executable stub).
 * A thread's CPU time from its schedstat ({@link rtbox.os.Procfs.Schedstat}, 1.6.0).
 * A pipe loop that spins between its calls and runs in a forked child ({@link
 * rtbox.os.PipeLoop#work}, {@link rtbox.os.PipeLoop#spawn}, {@link rtbox.os.ForkedChild}, 1.7.0).
 * An {@link rtbox.os.AppendLog} read record by record, a line too long skipped unheld (1.7.0).
 * A task's CPU time from its CPU-time clock, one system call ({@link rtbox.os.CpuClock}, 1.8.0).
 * The pipe loop's one-way ends ({@link rtbox.os.PipeLoop#writesPairs}, {@link
 * rtbox.os.PipeLoop#readsPairs}, 1.9.0).
 * An {@link rtbox.os.AppendLog} compacted as a stream ({@link rtbox.os.AppendLog#retain}), a
 * {@link rtbox.os.DurableFile} written from a stream (1.9.0).
 * A thread's process looked up without allocating ({@link rtbox.os.Procfs.Tgids}, 1.10.0).
 * The kernel's preemption model ({@link rtbox.os.Preemption}), the image's boot entries and the
 * next boot's kernel ({@link rtbox.os.BootConfig}, {@link rtbox.os.BootPartition}, 1.11.0).
 * Failures become
 * {@link rtbox.os.OsException}s that name the call and the errno.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.11.0")
package rtbox.os;
