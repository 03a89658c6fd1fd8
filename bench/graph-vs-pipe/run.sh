#!/usr/bin/env bash
# The graph probe's cost per hop against the pipe switcher's round trip per hop (issue 19):
# the graph at 0 % work (work=0us: its cycle is only the hops, driver -> 14 clients ->
# driver, 15 pipe wake-ups on one CPU) and the pipe switcher's round trips (mode=rtt: 2
# wake-ups each), both in threads and in processes, same CPU, SCHED_FIFO 80, runs
# alternated per round. Per hop: the graph's mean cycle time (dsp_load_pct x period) / 15;
# the switcher's 1 / (2 x round_trips_per_s). Goal: graph / pipe <= 1.2 per mode.
#   bench/graph-vs-pipe/run.sh [rounds] [seconds] [cpu]
# Run it under the shared lock: flock /tmp/rtbox-heavy.lock bench/graph-vs-pipe/run.sh
set -euo pipefail
rounds=${1:-3}
secs=${2:-5}
cpu=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
jar=${RTBOX_JAR:-$root/runtime/target/rtbox.jar}
[ -f "$jar" ] || (cd "$root" && mvn -q -DskipTests package)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export RTBOX_HOME=$out/home
mkdir -p "$RTBOX_HOME/etc" && cp "$root"/runtime/etc/* "$RTBOX_HOME/etc/"
rtbox() { RTBOX_JAR=$jar "$root/runtime/rtbox" "$@"; }

echo "# $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "# $rounds rounds of $secs s, CPU $cpu, SCHED_FIFO 80; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-9s %14s %14s %7s\n' round mode 'graph us/hop' 'pipe us/hop' ratio
for r in $(seq 1 "$rounds"); do
  for mode in threads processes; do
    rtbox run graph -q -a "$cpu" --policy fifo -p 80 -i 1000 -D "${secs}s" --warmup 1s -o work=0us \
      -o clients=14 -o ends="$mode" --json "$out/graph-$r-$mode.json" > /dev/null 2>&1 || true
    rtbox load pipe mode=rtt ends="$mode" cpu="$cpu" policy=fifo priority=80 -D "${secs}s" \
      --json "$out/pipe-$r-$mode.json" > /dev/null
    python3 - "$out" "$r" "$mode" <<'PY'
import json, sys
out, r, mode = sys.argv[1:4]
g = json.load(open(f"{out}/graph-{r}-{mode}.json"))["rtbox"]["result"]["figures"]
p = json.load(open(f"{out}/pipe-{r}-{mode}.json"))["figures"]
hops = g["clients"] + 1
graph = g["dsp_load_pct"] / 100 * g["period_us"] / hops
pipe = 1e6 / (2 * p["round_trips_per_s"])
print(f"{r:<5} {mode:<9} {graph:14.2f} {pipe:14.2f} {graph / pipe:7.3f}")
with open(f"{out}/ratios-{mode}", "a") as f:
    f.write(f"{graph / pipe}\n")
PY
  done
done
for mode in threads processes; do
  sort -g "$out/ratios-$mode" | awk -v m="$mode" '{ a[NR] = $1 } END { med = a[int((NR + 1) / 2)];
    printf "%-9s graph/pipe per hop: median %.3f (range %.3f-%.3f) %s\n", m, med, a[1], a[NR],
      med <= 1.2 ? "<= 1.2: met" : "> 1.2: NOT met" }'
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
