#!/usr/bin/env bash
# bench/fleet: issue 12's figures. The control room's ingest on a clustered broker, measured
# by the fleet simulator (runtime/src/test/java/rtbox/runtime/fleet) and FleetBench
# (runtime/src/test/java/rtbox/runtime/FleetBench.java), which this script runs through Maven
# (it needs the runtime's test class path: Artemis, the simulator, the control room's jar):
# three Artemis nodes (each its own JVM), one and two `rtbox control` instances sharing the
# results (sharedGroup), one PostgreSQL (fsync on, track_commit_timestamp on), and N
# simulated appliances sending the real 90 KB cell of plans/quick.json. For each N:
#   burst  results/s from the first publish to the last row committed, with 1 and with 2
#          instances, and the share each instance took;
#   paced  each appliance one cell or result a minute (plans of 3 cells, 80 s apart): CPU per
#          result at the pace a site runs, and p50/p99 from publish to the row's commit;
# and for both: CPU seconds per 1,000 results of each process (utime + stime from
# /proc/PID/stat before and after; PostgreSQL with its backends), and each one's memory.
#
#   flock /tmp/rtbox-heavy.lock bench/fleet/run.sh [appliances=200,1000] [burst=1000] [paced_s=60]
#
# Alone on the machine (it takes both cores; about 6 minutes per fleet size). Each Artemis node
# gets a 1 GB heap (RTBOX_ARTEMIS_HEAP): with the tests' 256 MB, node 1 died in full collections
# under a burst's backlog. The figures go
# to stdout and to bench/fleet/last-run.txt; README.md has them with what they mean.
set -euo pipefail
appliances=${1:-200,1000}
burst=${2:-1000}
paced=${3:-60}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || { echo "PostgreSQL missing: apt-get install postgresql" >&2; exit 2; }
out=$(mktemp)
log=$(mktemp)
trap 'rm -f "$out" "$log"' EXIT
echo "# $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(git -C "$root" rev-parse --short HEAD)"
echo "# $(java -version 2>&1 | head -1); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
cd "$root"
if ! mvn -o verify -pl runtime -am -Dbaseline.skip -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
    -Dit.test=FleetBench -Drtbox.fleet.bench=true "-Drtbox.artemis.heap=${RTBOX_ARTEMIS_HEAP:-1g}" "-Drtbox.artemis.reapMs=${RTBOX_ARTEMIS_REAP_MS:-0}" "-Drtbox.fleet.appliances=$appliances" \
    "-Drtbox.fleet.burst=$burst" "-Drtbox.fleet.pacedSeconds=$paced" "-Drtbox.fleet.out=$out" > "$log" 2>&1; then
  grep -E "FleetBench|ERROR|FAIL" "$log" | tail -40 >&2
  echo "bench/fleet: the run failed (Maven's log above)" >&2
  exit 1
fi
cat "$out"
{ echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD), $(nproc) CPUs"; cat "$out"; } > "$here/last-run.txt"
