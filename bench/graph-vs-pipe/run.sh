#!/usr/bin/env bash
# The graph probe's cost per hop against the pipe switcher's round trip per hop (issue 19):
# the graph at 0 % work (work=0us: its cycle is only the hops, driver -> 14 clients ->
# driver, 15 pipe wake-ups on one CPU) and the pipe switcher's round trips (mode=rtt: 2
# wake-ups each), both in threads and in processes, same CPU, SCHED_FIFO 80, runs
# alternated per round. Per hop: the graph's mean cycle time (dsp_load_pct x period) / 15;
# the switcher's 1 / (2 x round_trips_per_s). Goal: graph / pipe <= 1.2 per mode.
# periods: the graph's periods in us (default "1000 250"): at 1 ms its 15 tasks sleep most of
# each period and start every cycle cold; at 250 us cycles come nearly back to back, as the
# switcher's round trips do, which tells the hop's cost from the cold start's.
# And a peer in C for the same path (ring.c): a token around a ring of 15 processes or
# threads, the graph's driver and clients, at the same policy on the same CPU, its driver
# asleep until each period starts and timing the lap from its wake-up, as the graph's
# driver does (the graph's kernel path without rtbox); ratio graph / ring per hop.
# The switcher's ping-pong alternates two tasks; fifteen processes
# on one CPU cost the kernel more per switch (address spaces), which the ring shows.
# The graph runs twice a round, without and with rtbox's kernel trace (rtbox.trace
# enabled=false / true through Config Admin): the switcher and the ring run untraced, and
# a run traces sched_switch and sched_wakeup on its CPU (for attribution), which costs
# every switch of the graph's fifteen tasks. The ratios compare the untraced graph (the
# graph's own overhead); the trace's cost a cycle is printed beside them.
#   bench/graph-vs-pipe/run.sh [rounds] [seconds] [cpu] [periods]
# Run it under the shared lock: flock /tmp/rtbox-heavy.lock bench/graph-vs-pipe/run.sh
set -euo pipefail
rounds=${1:-3}
secs=${2:-5}
cpu=${3:-1}
periods=${4:-1000 250}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
jar=${RTBOX_JAR:-$root/runtime/target/rtbox.jar}
[ -f "$jar" ] || (cd "$root" && mvn -q -DskipTests package)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export RTBOX_HOME=$out/home
mkdir -p "$RTBOX_HOME/etc" && cp "$root"/runtime/etc/* "$RTBOX_HOME/etc/"
rtbox() { RTBOX_JAR=$jar "$root/runtime/rtbox" "$@"; }
command -v gcc >/dev/null || { echo "gcc missing: apt-get install gcc" >&2; exit 2; }
gcc -O2 -pthread -o "$out/ring" "$here/ring.c"

echo "# $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "# $rounds rounds of $secs s, CPU $cpu, SCHED_FIFO 80; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-9s %7s %14s %14s %7s %14s %7s %14s %12s\n' round mode period 'graph us/hop' 'pipe us/hop' ratio 'ring us/hop' ratio \
  'traced us/hop' 'trace us/cyc'
for r in $(seq 1 "$rounds"); do
  for mode in threads processes; do
    for period in $periods; do
      # which of the two goes first swaps every round
      for trace in $( [ $((r % 2)) = 1 ] && echo "false true" || echo "true false"); do
        echo "enabled=$trace" > "$RTBOX_HOME/etc/rtbox.trace.cfg"
        rtbox run graph -q -a "$cpu" --policy fifo -p 80 -i "$period" -D "${secs}s" --warmup 1s -o work=0us \
          -o clients=14 -o ends="$mode" --json "$out/graph-$r-$mode-$period-$trace.json" > /dev/null 2>&1 || true
      done
    done
    rtbox load pipe mode=rtt ends="$mode" cpu="$cpu" policy=fifo priority=80 -D "${secs}s" \
      --json "$out/pipe-$r-$mode.json" > /dev/null
    for period in $periods; do
      chrt -f 80 taskset -c "$cpu" "$out/ring" 15 $((secs * 1000000 / period)) "$mode" "$period" \
        > "$out/ring-$r-$mode-$period.txt"
    done
    python3 - "$out" "$r" "$mode" $periods <<'PY'
import json, sys
out, r, mode, periods = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
p = json.load(open(f"{out}/pipe-{r}-{mode}.json"))["figures"]
pipe = 1e6 / (2 * p["round_trips_per_s"])
for period in periods:
    ring = float(open(f"{out}/ring-{r}-{mode}-{period}.txt").read())
    def per_hop(trace):
        result = json.load(open(f"{out}/graph-{r}-{mode}-{period}-{trace}.json"))["rtbox"]["result"]
        said = "kernel trace on CPU" if trace == "true" else "the kernel trace is off"
        assert any(said in n for n in result["notes"]), f"round {r}: trace={trace} but the notes say {result['notes']}"
        g = result["figures"]
        hops = g["clients"] + 1
        return g["dsp_load_pct"] / 100 * g["period_us"] / hops, hops
    graph, hops = per_hop("false")
    traced, _ = per_hop("true")
    print(f"{r:<5} {mode:<9} {period:>7} {graph:14.2f} {pipe:14.2f} {graph / pipe:7.3f} {ring:14.2f} {graph / ring:7.3f}"
          f" {traced:14.2f} {(traced - graph) * hops:12.2f}")
    with open(f"{out}/ratios-{mode}-{period}", "a") as f:
        f.write(f"{graph / pipe}\n")
    with open(f"{out}/ring-ratios-{mode}-{period}", "a") as f:
        f.write(f"{graph / ring}\n")
PY
  done
done
for mode in threads processes; do
  for period in $periods; do
    sort -g "$out/ratios-$mode-$period" | awk -v m="$mode" -v p="$period" '{ a[NR] = $1 } END { med = a[int((NR + 1) / 2)];
      printf "%-9s period %5s us: graph/pipe per hop: median %.3f (range %.3f-%.3f) %s\n", m, p, med, a[1], a[NR],
        med <= 1.2 ? "<= 1.2: met" : "> 1.2: NOT met" }'
    sort -g "$out/ring-ratios-$mode-$period" | awk -v m="$mode" -v p="$period" '{ a[NR] = $1 } END { med = a[int((NR + 1) / 2)];
      printf "%-9s period %5s us: graph/C ring per hop: median %.3f (range %.3f-%.3f) %s\n", m, p, med, a[1], a[NR],
        med <= 1.2 ? "<= 1.2: met" : "> 1.2: NOT met" }'
  done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
