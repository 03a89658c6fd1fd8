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
command -v mosquitto >/dev/null || { echo "mosquitto missing: apt-get install mosquitto" >&2; exit 2; }
[ -f "$root/runtime/target/control.jar" ] || (cd "$root" && mvn -q -DskipTests package)
m2=$HOME/.m2/repository
cp_="$m2/org/eclipse/paho/org.eclipse.paho.client.mqttv3/1.2.5/org.eclipse.paho.client.mqttv3-1.2.5.jar:$m2/com/google/code/gson/gson/2.11.0/gson-2.11.0.jar"
out=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$out"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

echo "# $(uname -srm), $(nproc) CPUs, $(java -version 2>&1 | head -1), H2 2.3.232, git $(cd "$root" && git rev-parse --short HEAD)"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
port=$(free_port)
pw=bench-$(date +%s)
mkdir -p "$out/mq"
printf 'control:%s\nsim:%s\n' "$pw" "$pw" > "$out/mq/passwd" && mosquitto_passwd -U "$out/mq/passwd"
cat > "$out/mq/mosquitto.conf" <<CONF
listener $port 127.0.0.1
user $(id -un)
allow_anonymous false
password_file $out/mq/passwd
persistence false
max_inflight_messages 1000
max_queued_messages 0
log_dest none
CONF
mosquitto -c "$out/mq/mosquitto.conf" > "$out/mq/stdout" 2>&1 &
pids+=($!)
printf '%s\n' "$pw" > "$out/broker-password" && chmod 600 "$out/broker-password"
for i in $(seq 0 $((n - 1))); do printf 'fleet%04d\n' "$i"; done > "$out/appliances"

h=$out/h2
mkdir -p "$h/etc" && cp "$root"/runtime/etc/* "$h/etc/"
{ echo "brokers=tcp://127.0.0.1:$port"; echo "username=control"; echo "passwordFile=$out/broker-password"
  echo "appliancesFile=$out/appliances"; } > "$h/etc/rtbox.control.cfg"
hp=$(free_port)
RTBOX_HOME=$h "$root/runtime/rtbox" control --port "$hp" > "$h/control.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 1200); do grep -q "rtbox control: serving" "$h/control.log" && break; sleep 0.1; done
grep -q "rtbox control: serving" "$h/control.log" || { tail -20 "$h/control.log" >&2; exit 2; }
fleet=$root/runtime/src/test/resources/fleet
java -cp "$cp_" "$here/MetricsBench.java" "tcp://127.0.0.1:$port" "$pw" "$n" "$cells" "http://127.0.0.1:$hp" \
  "$(cat "$h/data/control/admin-password")" "$fleet/quick-cell.json" "$fleet/quick-result.json"
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
