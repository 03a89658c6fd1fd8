#!/usr/bin/env bash
# rtbox's pipe workload (round trips, mode=rtt) against perf bench sched pipe, in
# threads mode (perf -T; rtbox ends=threads) and processes mode (perf forks a child;
# rtbox's second end is a child `cat`), at the same number of round trips, both ends
# pinned to the same CPU(s) (taskset -c for perf, rtbox's cpu= for both of its ends),
# runs alternated per round; round trips/s of each and the ratio rtbox/perf per mode.
# rtbox runs twice per round: loop=code (its default: the ends are machine-code
# loops, rtbox.os.PipeLoop) and loop=jna (a JNA call per read and write), so one run
# shows what the machine-code loop is for. Goal: >= 0.9x in each mode.
#   bench/pipe-vs-perf/run.sh [rounds] [round trips] [cpus]
# cpus: one CPU (default 1: every round trip is two context switches on it) or a
# list such as 0-1 (perf: taskset -c 0-1; rtbox: cpu=0-1).
# perf's figure is loops / its "Total time" (which includes starting its second end,
# about a millisecond); rtbox's is round_trips_per_s from `rtbox load --json`,
# timed by its first end from its first write to its last read.
set -euo pipefail
rounds=${1:-3}
loops=${2:-200000}
cpus=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
perf=${PERF:-/usr/bin/perf}
[ -x "$perf" ] || { echo "perf missing: apt-get install linux-perf" >&2; exit 2; }
jar=${RTBOX_JAR:-$root/runtime/target/rtbox.jar}
[ -f "$jar" ] || (cd "$root" && mvn -q -DskipTests package)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export RTBOX_HOME=$out/home
mkdir -p "$RTBOX_HOME/etc" && cp "$root"/runtime/etc/* "$RTBOX_HOME/etc/"
rtbox() { RTBOX_JAR=$jar "$root/runtime/rtbox" "$@"; }

echo "# $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "# $(perf --version), $(java -version 2>&1 | head -1)"
echo "# $rounds rounds of $loops round trips, both ends on CPU(s) $cpus; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-9s %12s %12s %12s %7s %7s\n' round mode 'perf rt/s' 'rtbox rt/s' 'jna rt/s' ratio 'jna'
for r in $(seq 1 "$rounds"); do
  for mode in threads processes; do
    popt=; [ "$mode" = threads ] && popt=-T
    taskset -c "$cpus" "$perf" bench sched pipe -l "$loops" $popt > "$out/perf-$r-$mode.txt"
    # perf: "N.NNNNNN usecs/op"; each rtbox run gets 2 times perf's time and 1 s:
    # it reports the round trips it did and its own elapsed time either way.
    pus=$(awk '/usecs\/op/ {print $1}' "$out/perf-$r-$mode.txt")
    secs=$(awk -v n="$loops" -v us="$pus" 'BEGIN { s = n * us / 1e6 * 2 + 1; printf "%d", s + 0.999 }')
    for loop in code jna; do
      rtbox load pipe mode=rtt ends="$mode" count="$loops" cpu="$cpus" loop="$loop" -D "${secs}s" \
        --json "$out/rtbox-$r-$mode-$loop.json" > "$out/rtbox-$r-$mode-$loop.txt"
    done
    python3 - "$out" "$r" "$mode" "$loops" <<'PY2'
import json, sys
out, r, mode, loops = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
perf = None
for line in open(f"{out}/perf-{r}-{mode}.txt"):
    if "usecs/op" in line:
        perf = 1e6 / float(line.split()[0])
rates, note = {}, ""
for loop in ("code", "jna"):
    f = json.load(open(f"{out}/rtbox-{r}-{mode}-{loop}.json"))["figures"]
    rates[loop] = f["round_trips_per_s"]
    if f["round_trips"] != loops:
        note += f"  (rtbox {loop} did {f['round_trips']:.0f} of {loops})"
    if f.get("errors"):
        note += f"  (rtbox {loop}: an end failed)"
    if loop == "code" and f.get("machine_code_loop") != 1:
        note += "  (rtbox fell back to JNA)"
print(f"{r:<5} {mode:<9} {perf:>12.0f} {rates['code']:>12.0f} {rates['jna']:>12.0f} "
      f"{rates['code'] / perf:>7.3f} {rates['jna'] / perf:>7.3f}{note}")
open(f"{out}/ratios-{mode}", "a").write(f"{perf} {rates['code']} {rates['jna']}\n")
PY2
  done
done
python3 - "$out" <<'PY2'
import statistics, sys
out = sys.argv[1]
for mode in ("threads", "processes"):
    rows = [tuple(map(float, l.split())) for l in open(f"{out}/ratios-{mode}")]
    ratios = [c / p for p, c, _ in rows]
    jna = [j / p for p, _, j in rows]
    m = statistics.median(ratios)
    print(f"{mode:<9} perf median {statistics.median(p for p, _, _ in rows):.0f} rt/s, rtbox median "
          f"{statistics.median(c for _, c, _ in rows):.0f} rt/s, ratio rtbox/perf median {m:.3f} "
          f"(range {min(ratios):.3f}-{max(ratios):.3f}) {'>= 0.9: met' if m >= 0.9 else '< 0.9: NOT met'}; "
          f"over JNA (loop=jna) {statistics.median(jna):.3f}")
PY2
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
