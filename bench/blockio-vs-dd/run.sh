#!/usr/bin/env bash
# rtbox's blockio workload against dd iflag=direct and fio (psync, direct=1): the
# same file, the same block size, the same number of sequential reads from offset
# 0, the same CPU (taskset -c for dd and fio, rtbox's cpu=), runs alternated per
# round and block size; MB/s (10^6 bytes/s) of each and the ratios rtbox/dd and
# rtbox/fio. Goal: >= 0.95x.
#   bench/blockio-vs-dd/run.sh [rounds] [cpu] [file MB] [dir]
# The file (random bytes) is made in a temporary folder under dir (default
# /var/tmp), which must be on a file system that takes O_DIRECT (not tmpfs), and
# read once whole before the first round, so that every tool meets the same cache
# state below the guest (O_DIRECT bypasses this kernel's page cache; nothing is
# dropped from it). Reads per run: 512 B x 8192 (4 MiB), 4 KiB x 8192 (32 MiB),
# 1 MiB x the whole file.
# dd's rate is its bytes / its own time; fio's is bw_bytes of its json; rtbox's is
# mb_per_s from `rtbox load --json`, timed by the reading thread from its first read
# to its last. "rtbox loop" is what rtbox spends per read outside pread: its time per
# read less the mean pread time of its histogram (HdrHistogram at 2 significant
# digits, so +-1% of a read): the part of the difference that is rtbox's own, which
# the machine's load does not blur as it blurs the rates.
set -euo pipefail
rounds=${1:-3}
cpu=${2:-1}
mb=${3:-256}
dir=${4:-/var/tmp}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v fio >/dev/null || { echo "fio missing: apt-get install -y fio" >&2; exit 2; }
jar=${RTBOX_JAR:-$root/runtime/target/rtbox.jar}
[ -f "$jar" ] || (cd "$root" && mvn -q -DskipTests package)
out=$(mktemp -d)
data=$(mktemp -d -p "$dir" rtbox-blockio-bench.XXXXXX)
trap 'rm -rf "$out" "$data"' EXIT
export RTBOX_HOME=$out/home
mkdir -p "$RTBOX_HOME/etc" && cp "$root"/runtime/etc/* "$RTBOX_HOME/etc/"
rtbox() { RTBOX_JAR=$jar "$root/runtime/rtbox" "$@"; }
file=$data/data.bin
head -c "$((mb * 1024 * 1024))" /dev/urandom > "$file"
sync "$file"
dd if="$file" of=/dev/null bs=1M iflag=direct status=none

dev=$(df --output=source "$file" | tail -1)
echo "# $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "# file: $mb MiB on $dev ($(df --output=fstype "$file" | tail -1)), $(fio --version), $(dd --version | head -1), $(java -version 2>&1 | head -1)"
echo "# $rounds rounds, all pinned to CPU $cpu; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-6s %10s %10s %10s %9s %9s %12s\n' round bs 'dd MB/s' 'fio MB/s' 'rtbox MB/s' rtbox/dd rtbox/fio 'rtbox loop'
for r in $(seq 1 "$rounds"); do
  for bs in 512 4096 1048576; do
    case $bs in 512) n=8192 ;; 4096) n=8192 ;; *) n=$mb ;; esac
    taskset -c "$cpu" dd if="$file" of=/dev/null iflag=direct bs="$bs" count="$n" 2> "$out/dd.txt"
    taskset -c "$cpu" fio --name=read --filename="$file" --rw=read --bs="$bs" --direct=1 --ioengine=psync \
      --size="$((bs * n))" --numjobs=1 --output-format=json > "$out/fio.json"
    # rtbox runs its -D out; dd's time x 2 + 1 s covers the reads with room to spare.
    secs=$(awk '/copied/ { for (i = 1; i <= NF; i++) if ($i == "s,") t = $(i - 1) } END { printf "%d", t * 2 + 1.999 }' "$out/dd.txt")
    rtbox load blockio path="$file" bs="$bs" count="$n" wrap=false cpu="$cpu" -D "${secs}s" \
      --json "$out/rtbox.json" > /dev/null
    python3 - "$out" "$r" "$bs" "$n" <<'PY'
import json, re, sys
out, r, bs, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
m = re.search(r"^(\d+) bytes .* copied, ([0-9.e+-]+) s,", open(f"{out}/dd.txt").read(), re.M)
ddb, dds = int(m.group(1)), float(m.group(2))
dd = ddb / dds / 1e6
job = json.load(open(f"{out}/fio.json"))["jobs"][0]["read"]
fio = job["bw_bytes"] / 1e6
f = json.load(open(f"{out}/rtbox.json"))["figures"]
rt = f["mb_per_s"]
notes = []
if ddb != bs * n: notes.append(f"dd read {ddb} bytes")
if job["io_bytes"] != bs * n: notes.append(f"fio read {job['io_bytes']} bytes")
if f["bytes"] != bs * n: notes.append(f"rtbox read {f['bytes']:.0f} bytes")
if f.get("errors"): notes.append("rtbox: error")
label = {512: "512", 4096: "4k", 1048576: "1M"}[bs]
# rtbox's own cost per read: its time per read less the mean time inside pread (its histogram, 2 digits).
loop = f["elapsed_s"] / f["reads"] * 1e6 - f["read_us_mean"]
print(f"{r:<5} {label:<6} {dd:>10.1f} {fio:>10.1f} {rt:>10.1f} {rt / dd:>9.3f} {rt / fio:>9.3f} {loop:>9.1f} us"
      + ("  (" + "; ".join(notes) + ")" if notes else ""))
open(f"{out}/rows", "a").write(f"{label} {dd} {fio} {rt}\n")
PY
  done
done
python3 - "$out" <<'PY'
import statistics as st, sys
rows = [l.split() for l in open(sys.argv[1] + "/rows")]
for label in ("512", "4k", "1M"):
    rs = [tuple(map(float, r[1:])) for r in rows if r[0] == label]
    a = [rt / dd for dd, _, rt in rs]
    b = [rt / fio for _, fio, rt in rs]
    ok = min(st.median(a), st.median(b)) >= 0.95
    print(f"{label:<4} median MB/s dd {st.median(x[0] for x in rs):.1f}, fio {st.median(x[1] for x in rs):.1f}, "
          f"rtbox {st.median(x[2] for x in rs):.1f}; rtbox/dd {st.median(a):.3f} ({min(a):.3f}-{max(a):.3f}), "
          f"rtbox/fio {st.median(b):.3f} ({min(b):.3f}-{max(b):.3f}) {'>= 0.95: met' if ok else '< 0.95: NOT met'}")
PY
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
