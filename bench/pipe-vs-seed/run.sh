#!/usr/bin/env bash
# rtbox's pipe workload in one-way mode (seed 001: N one-byte writes, N one-byte reads)
# against seed 001's own C program (seed001.c: the same loop, a forked reader), the same
# number of messages, both pinned to the same CPU(s), alternated per round. rtbox runs with
# ends=processes (its reader forked, as the seed's) and ends=threads, each with its
# machine-code loops (loop=code, the default) and with a JNA call per read and write
# (loop=jna). Figure: messages per second; ratio rtbox / C. Issue 15's goal: >= 0.95x.
#   flock /tmp/rtbox-heavy.lock bench/pipe-vs-seed/run.sh [rounds=5] [messages=1048576] [cpus=1]
set -euo pipefail
rounds=${1:-5}
count=${2:-1048576}
cpus=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v gcc >/dev/null || { echo "gcc missing: apt-get install gcc" >&2; exit 2; }
jar=${RTBOX_JAR:-$root/runtime/target/rtbox.jar}
[ -f "$jar" ] || (cd "$root" && mvn -q -DskipTests package)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export RTBOX_HOME=$out/home
mkdir -p "$RTBOX_HOME/etc" && cp "$root"/runtime/etc/* "$RTBOX_HOME/etc/"
rtbox() { RTBOX_JAR=$jar "$root/runtime/rtbox" "$@"; }
gcc -O2 -o "$out/seed001" "$here/seed001.c"

echo "# $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "# $(gcc --version | head -1), $(java -version 2>&1 | head -1)"
echo "# $rounds rounds of $count messages, on CPU(s) $cpus; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %12s %14s %14s %14s %14s\n' round 'C msg/s' 'proc code' 'proc jna' 'threads code' 'threads jna'
for r in $(seq 1 "$rounds"); do
  read -r n secs < <(taskset -c "$cpus" "$out/seed001" "$count")
  c=$(awk -v n="$n" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')
  limit=$(awk -v s="$secs" 'BEGIN { printf "%d", s * 3 + 2.999 }')
  line="$r $c"
  for ends in processes threads; do
    for loop in code jna; do
      rtbox load pipe mode=oneway ends="$ends" count="$count" cpu="$cpus" loop="$loop" -D "${limit}s" \
        --json "$out/r$r-$ends-$loop.json" > "$out/r$r-$ends-$loop.txt"
      m=$(python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["figures"]; print("%.0f %d %d" % (f["messages_per_s"], f["messages"], f.get("machine_code_loop", -1)))' "$out/r$r-$ends-$loop.json")
      set -- $m
      [ "$2" = "$count" ] || echo "# round $r $ends $loop: rtbox passed $2 of $count messages" >&2
      [ "$loop" = code ] && [ "$3" != 1 ] && echo "# round $r $ends: rtbox fell back to JNA" >&2
      line="$line $1"
    done
  done
  echo "$line" >> "$out/rows"
  set -- $line
  printf '%-5s %12s %14s %14s %14s %14s\n' "$1" "$2" "$3 ($(awk -v a="$3" -v b="$2" 'BEGIN{printf "%.2f", a/b}'))" \
    "$4 ($(awk -v a="$4" -v b="$2" 'BEGIN{printf "%.2f", a/b}'))" "$5 ($(awk -v a="$5" -v b="$2" 'BEGIN{printf "%.2f", a/b}'))" \
    "$6 ($(awk -v a="$6" -v b="$2" 'BEGIN{printf "%.2f", a/b}'))"
done
python3 - "$out/rows" <<'PY'
import statistics, sys
rows = [list(map(float, l.split()))[1:] for l in open(sys.argv[1])]
names = ["processes, machine code", "processes, JNA", "threads, machine code", "threads, JNA"]
print(f"C median {statistics.median(r[0] for r in rows):.0f} msg/s")
for i, name in enumerate(names, 1):
    ratios = [r[i] / r[0] for r in rows]
    m = statistics.median(ratios)
    goal = "" if "JNA" in name else ("  >= 0.95: met" if m >= 0.95 else "  < 0.95: NOT met")
    print(f"rtbox {name:<24} median {statistics.median(r[i] for r in rows):.0f} msg/s, ratio to C median "
          f"{m:.3f} (range {min(ratios):.3f}-{max(ratios):.3f}){goal}")
PY
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
