#!/usr/bin/env bash
# bench/control/metrics.sh: the cost of a Prometheus scrape of the control room's /metrics with
# 1,000 appliances (figures in README.md, "Metrics"). Starts Debian's mosquitto and one
# rtbox control on H2 (a temporary home), lets N appliances each report a plan run of CELLS cells
# (a real appliance's recorded cell and result), then times GET /metrics with a viewer's token,
# whole and, side by side, limited to the JVM's families (MetricsBench.java).
#   /work/tools/bench-alone bench/control/metrics.sh [appliances=1000] [cells=2]
set -euo pipefail
n=${1:-1000}
cells=${2:-2}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/control-room.sh"
fleet=$root/runtime/src/test/resources/fleet
java -cp "$cp_" "$here/MetricsBench.java" "tcp://127.0.0.1:$port" "$pw" "$n" "$cells" "http://127.0.0.1:$hp" \
  "$(cat "$h/data/control/admin-password")" "$fleet/quick-cell.json" "$fleet/quick-result.json"
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
