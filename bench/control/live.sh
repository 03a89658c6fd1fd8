#!/usr/bin/env bash
# bench/control/live.sh: from the click on Start to the first live figure drawn on the live
# page (issue 32: <= 2 s, median of 10), in real headless Chromium, beside the broker's own
# figure for the same runs (a bare subscriber's first live message): Debian's mosquitto on a
# free port, one real appliance (rtbox serve) and the control room (rtbox control), all
# started here. Figures in README.md.
#   /work/tools/bench-alone bench/control/live.sh [clicks=10]
set -euo pipefail
clicks=${1:-10}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
for c in mosquitto chromium chromedriver; do
  command -v $c >/dev/null || { echo "$c missing: apt-get install mosquitto chromium chromium-driver" >&2; exit 2; }
done
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
launcher=$root/runtime/rtbox
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
await_line() { # file, text
  for _ in $(seq 1 1200); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "no '$2' in $1:" >&2; tail -20 "$1" >&2; exit 2
}

echo "# $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "# $(chromium --version 2>/dev/null | head -1), $(mosquitto -h 2>/dev/null | head -1), $(java -version 2>&1 | head -1)"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

port=$(free_port)
pw=bench-$(date +%s)
mkdir -p "$out/mq"
printf 'control:%s\na1:%s\ncontrol-bench:%s\n' "$pw" "$pw" "$pw" > "$out/mq/passwd" && mosquitto_passwd -U "$out/mq/passwd"
cat > "$out/mq/mosquitto.conf" <<CONF
listener $port 127.0.0.1
user $(id -un)
allow_anonymous false
password_file $out/mq/passwd
persistence false
log_dest none
CONF
mosquitto -c "$out/mq/mosquitto.conf" > "$out/mq/stdout" 2>&1 &
pids+=($!)
printf '%s\n' "$pw" > "$out/broker-password" && chmod 600 "$out/broker-password"

# The appliance: this machine's, as a user starts it.
mkdir -p "$out/a1/etc" && cp "$root"/runtime/etc/* "$out/a1/etc/"
printf 'brokers=tcp://127.0.0.1:%s\nappliance=a1\nusername=a1\npasswordFile=%s\n' "$port" "$out/broker-password" \
  > "$out/a1/etc/rtbox.mqtt.cfg"
RTBOX_HOME=$out/a1 RTBOX_DATA=$out/a1/data RTBOX_RUN=$out/a1/run "$launcher" serve > "$out/a1.log" 2>&1 &
pids+=($!)

# The control room, with one plan of one 3 s cell (timer at 1 ms on CPU 0) in its plans folder.
ch=$out/control
mkdir -p "$ch/etc" "$ch/plans" && cp "$root"/runtime/etc/* "$ch/etc/"
echo a1 > "$ch/appliances"
cat > "$ch/plans/live.json" <<'PLAN'
{"rtbox_plan":1,"name":"live","description":"one 3 s cell: bench/control/live.sh","probe":"timer",
 "parameters":{"interval_us":1000,"cpus":[0]},"warmup":"0","duration":"3s","thresholds":{"max_us":100000},
 "cells":[{"name":"idle"}]}
PLAN
hp=$(free_port)
printf 'brokers=tcp://127.0.0.1:%s\nusername=control\npasswordFile=%s\nappliancesFile=%s\nplansDir=%s\n' \
  "$port" "$out/broker-password" "$ch/appliances" "$ch/plans" > "$ch/etc/rtbox.control.cfg"
RTBOX_HOME=$ch RTBOX_DATA=$ch/data "$launcher" control --port "$hp" > "$ch/control.log" 2>&1 &
pids+=($!)
await_line "$ch/control.log" "rtbox control: serving"

dp=$(free_port)
chromedriver --port="$dp" > "$out/chromedriver.log" 2>&1 &
pids+=($!)
await_line "$out/chromedriver.log" "started successfully"

echo "## click on Start to the first live figure, $clicks clicks after one warm-up (plan: one 3 s cell on a1)"
java -cp "$cp_" "$here/LiveBench.java" "tcp://127.0.0.1:$port" "$pw" "http://127.0.0.1:$hp" \
  "$(cat "$ch/data/control/admin-password")" "http://127.0.0.1:$dp" a1 live "$clicks"
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
