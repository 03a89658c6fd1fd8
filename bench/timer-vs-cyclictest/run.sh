#!/usr/bin/env bash
# rtbox's timer probe against cyclictest (Debian's rt-tests): the same parameters, the same
# CPU, runs alternated, both read from their 1 us --json histograms the same way.
#   /work/tools/bench-alone bench/timer-vs-cyclictest/run.sh [rounds=6] [seconds=10] [cpu=1] [priority=99]
# Each round runs every arm once (-m -p PRIO -i 1000 -a CPU -h 20000), the order rotated from
# round to round. The arms (ARMS, default "ct off": the like-for-like pair):
#   ct    cyclictest, bare, as an engineer runs it
#   ct2   cyclictest again: the control (cyclictest against itself shows what the machine's drift
#         between runs seconds apart does to the same figures)
#   ctt   cyclictest with a tracefs instance recording what rtbox.trace records
#         (sched_switch, sched_wakeup, irq and softirq entry/exit; 2 MiB per CPU; mono clock)
#   on    rtbox run timer as shipped (as root the kernel trace is on: ~1 us at p50 here)
#   off   the same with rtbox.trace off (etc/rtbox.trace.cfg enabled=false)
#   offp  off with the JVM started on the other CPUs (taskset): only the probe's thread, which sets
#         its own affinity, runs on CPU; the appliance's other threads stay off it
# Like for like: off against ct, on against ctt. For each round it prints p50, p90, p99,
# mean and max of each arm and rtbox - cyclictest of each like-for-like pair; then in how
# many rounds the p50s are equal and the median of the mean differences. At the end the
# wake-up path's own cost (WakePathCost.java, PATH_SECONDS per arm, 0 to skip). KEEP=DIR keeps the
# runs' --json files.
set -euo pipefail
rounds=${1:-6}
seconds=${2:-10}
cpu=${3:-1}
prio=${4:-99}
read -r -a arms <<< "${ARMS:-ct off}"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v cyclictest >/dev/null || { echo "cyclictest missing: apt-get install rt-tests" >&2; exit 2; }
[ -f "$root/runtime/target/rtbox.jar" ] || (cd "$root" && mvn -q -DskipTests package)
out=$(mktemp -d)
for v in on off; do
  mkdir -p "$out/home-$v/etc" && cp "$root"/runtime/etc/* "$out/home-$v/etc/"
done
echo "enabled=false" > "$out/home-off/etc/rtbox.trace.cfg"
tracing=/sys/kernel/tracing
instance=$tracing/instances/rtbox-bench-$$
cleanup() { [ -d "$instance" ] && { echo 0 > "$instance/tracing_on"; rmdir "$instance"; }; rm -rf "$out"; }
trap cleanup EXIT
# rtbox.trace's events (bundles/trace Session.EVENTS), buffer (2048 KiB per CPU) and clock.
events="sched/sched_switch sched/sched_wakeup irq/irq_handler_entry irq/irq_handler_exit irq/softirq_entry irq/softirq_exit"
ct() {
  cyclictest -q -m -p "$prio" -i 1000 -a "$cpu" -t 1 -D "${seconds}s" -h 20000 --json="$1" >/dev/null
}
arm() {
  case $1 in
    ct|ct2) ct "$out/$1-$2.json" ;;
    ctt)
      [ -d "$tracing/instances" ] || mount -t tracefs nodev "$tracing"
      mkdir "$instance"
      echo 2048 > "$instance/buffer_size_kb"; echo mono > "$instance/trace_clock"
      printf '%x\n' $((1 << cpu)) > "$instance/tracing_cpumask"
      for e in $events; do echo 1 > "$instance/events/$e/enable"; done
      echo 1 > "$instance/tracing_on"
      ct "$out/ctt-$2.json"
      echo 0 > "$instance/tracing_on"; rmdir "$instance" ;;
    on|off|offp)
      local pin=()
      [ "$1" = offp ] && pin=(taskset -c "$(grep -o '[0-9]*' /sys/devices/system/cpu/online | grep -vx "$cpu" | head -1)")
      RTBOX_HOME=$out/home-${1%p} RTBOX_JAR=$root/runtime/target/rtbox.jar "${pin[@]}" "$root/runtime/rtbox" run timer -q -m \
        -p "$prio" -i 1000 -a "$cpu" -D "${seconds}s" -h 20000 --json "$out/$1-$2.json" >"$out/log-$1-$2" 2>&1 || true ;;
  esac
}
echo "$(date -u '+%d %b %Y %H:%M UTC'), commit $(cd "$root" && git rev-parse --short HEAD), load average at the start" \
  "$(cut -d' ' -f1-3 /proc/loadavg), kernel $(uname -r), $(nproc) CPUs; $rounds rounds of ${seconds} s an arm, CPU $cpu, FIFO $prio"
n=${#arms[@]}
for r in $(seq 1 "$rounds"); do
  for i in $(seq 0 $((n - 1))); do arm "${arms[$(( (i + r) % n ))]}" "$r"; done
done
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$out" "$rounds" "${arms[@]}" <<'PY'
import json, sys, statistics as st
out, rounds, arms = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
names = {"ct": "cyclictest", "ct2": "cyclictest(2)", "offp": "rtbox-notrace-pinned", "ctt": "cyclictest+trace", "on": "rtbox", "off": "rtbox-notrace"}
def pct(hist, n, q):
    need, acc = q * n, 0
    for k in sorted(hist, key=int):
        acc += hist[k]
        if acc >= need:
            return int(k)
def figures(arm, r):
    t = json.load(open(f"{out}/{arm}-{r}.json"))["thread"]["0"]
    h = {k: v for k, v in t["histogram"].items()}
    n = sum(h.values())
    mean = sum(int(k) * v for k, v in h.items()) / n
    return {"p50": pct(h, n, .5), "p90": pct(h, n, .9), "p99": pct(h, n, .99), "mean": mean, "max": t["max"], "n": n}
rows = [{a: figures(a, r) for a in arms} for r in range(1, rounds + 1)]
keys = ("p50", "p90", "p99", "mean", "max")
print("round | " + " | ".join(f"{names[a]} p50/p90/p99/mean/max (cycles)" for a in arms))
for i, row in enumerate(rows, 1):
    print(f"{i} | " + " | ".join(f"{f['p50']}/{f['p90']}/{f['p99']}/{f['mean']:.2f}/{f['max']} ({f['n']})"
                                 for f in row.values()))
print("(us; percentiles and mean from the 1 us histograms, as both tools truncate)")
for rt, c in (("off", "ct"), ("on", "ctt"), ("ct2", "ct"), ("offp", "ct")):
    if rt not in arms or c not in arms:
        continue
    print(f"\n{names[rt]} - {names[c]}, per round:")
    for k in keys:
        d = [row[rt][k] - row[c][k] for row in rows]
        print(f"  {k:>4}: " + " ".join(f"{x:+.2f}" if k == "mean" else f"{x:+d}" for x in d)
              + f"   median {st.median(d):+.2f}")
    equal = sum(row[rt]["p50"] == row[c]["p50"] for row in rows)
    print(f"  p50 equal in {equal} of {rounds} rounds; median of the mean differences "
          f"{st.median(row[rt]['mean'] - row[c]['mean'] for row in rows):+.2f} us")
PY
# KEEP=DIR: the runs' --json files are copied there (for a closer look at a round)
[ -n "${KEEP:-}" ] && mkdir -p "$KEEP" && cp "$out"/*.json "$KEEP"/
if [ "${PATH_SECONDS:-5}" -gt 0 ]; then
  v=$(sed -n 's:.*<jna.version>\(.*\)</jna.version>.*:\1:p' "$root/pom.xml")
  jna=$HOME/.m2/repository/net/java/dev/jna/jna/$v/jna-$v.jar
  cp="$root/bundles/os/target/classes:$root/bundles/api/target/classes:$jna"
  java -cp "$cp" "$here/WakePathCost.java" "${PATH_SECONDS:-5}" "$cpu" "$prio"
fi
