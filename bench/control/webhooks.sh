#!/usr/bin/env bash
# bench/control/webhooks.sh: the ingest's rate of results with no webhook and with 10, alternated in
# one control room (issue 34: deliveries must never block the ingest; figures in README.md,
# "Webhooks"). Starts Debian's mosquitto and one rtbox control on H2 (a temporary home), then
# WebhookBench.java: N appliances' runs (a real appliance's recorded cell and FAIL result) per arm,
# a local HTTP receiver for the deliveries.
#   /work/tools/bench-alone bench/control/webhooks.sh [appliances=300] [rounds=3]
set -euo pipefail
n=${1:-300}
rounds=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/control-room.sh"
fleet=$root/runtime/src/test/resources/fleet
java -cp "$cp_" "$here/WebhookBench.java" "tcp://127.0.0.1:$port" "$pw" "$n" "http://127.0.0.1:$hp" \
  "$(cat "$h/data/control/admin-password")" "$fleet/quick-cell.json" "$fleet/quick-result.json" "$rounds"
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
