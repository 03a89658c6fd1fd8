#!/usr/bin/env bash
# bench/mqtt: rtbox on MQTT, two figures.
#  1. Time from a run's end to its result at a subscriber: a real appliance (rtbox serve)
#     on the embedded broker (rtbox broker, the all-in-one default); N timer runs of 1 s
#     sent one after another; per run, the result's arrival at a control-room client
#     minus the run's end as the appliance stamped it (same machine, same clock).
#     Percentiles over the N runs.
#  2. Results a second the control-room side ingests from 100 simulated appliances on
#     one broker: each appliance (an MQTT client with its own user) publishes R real
#     results (the payload from 1.) at QoS 1, one in flight, as the appliance's outbox
#     drains; one control-room client subscribed at QoS 1 counts distinct (appliance,
#     run, sequence). Debian's mosquitto and the embedded Moquette, each started fresh,
#     alternated per round, in one run of this script; ratio Moquette / mosquitto.
#   bench/mqtt/run.sh [runs=20] [appliances=100] [results per appliance=5] [rounds=3]
set -euo pipefail
runs=${1:-20}
appliances=${2:-100}
each=${3:-5}
rounds=${4:-3}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v mosquitto >/dev/null || { echo "mosquitto missing: apt-get install mosquitto mosquitto-clients" >&2; exit 2; }
jar=${RTBOX_JAR:-$root/runtime/target/rtbox.jar}
[ -f "$jar" ] || (cd "$root" && mvn -q -DskipTests package)
paho=$HOME/.m2/repository/org/eclipse/paho/org.eclipse.paho.client.mqttv3/1.2.5/org.eclipse.paho.client.mqttv3-1.2.5.jar
[ -f "$paho" ] || (cd "$root" && mvn -q dependency:get -Dartifact=org.eclipse.paho:org.eclipse.paho.client.mqttv3:1.2.5)
out=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$out"
}
trap cleanup EXIT
export RTBOX_HOME=$out/home RTBOX_JAR=$jar
mkdir -p "$RTBOX_HOME/etc" && cp "$root"/runtime/etc/* "$RTBOX_HOME/etc/"
launcher=$root/runtime/rtbox # started directly, never through a function: its exec'ed java keeps the pid $! names
bench() { java -cp "$paho" "$here/MqttBench.java" "$@"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
await_port() {
  for _ in $(seq 1 600); do
    (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nothing listens on $1 after 60 s; $2:" >&2; tail -20 "$2" >&2; exit 2
}
password_file=$RTBOX_HOME/data/broker/password

start_moquette() { # port: rtbox broker, as shipped (the launcher's flags)
  "$launcher" broker --port "$1" > "$out/moquette-$1.log" 2>&1 &
  pids+=($!); broker_pid=$!
  await_port "$1" "$out/moquette-$1.log"
}
start_mosquitto() { # port: Debian's mosquitto, password file (the same password, every user) and the repo's ACL
  local d=$out/mosquitto-$1
  mkdir -p "$d"
  { echo "control:$(cat "$password_file")"
    for i in $(seq 0 $((appliances - 1))); do printf 'sim%03d:%s\n' "$i" "$(cat "$password_file")"; done
  } > "$d/passwd"
  mosquitto_passwd -U "$d/passwd"
  cat > "$d/mosquitto.conf" <<CONF
listener $1 127.0.0.1
user $(id -un)
allow_anonymous false
password_file $d/passwd
acl_file $root/docs/mosquitto.acl
persistence false
max_inflight_messages 1000
# mosquitto's default (1000) drops QoS 1 messages queued for a subscriber past it, though their
# publishers got their PUBACK: 450 of 2000 results were lost that way here. A control room's
# site broker needs it off (0) or far above what its appliances can send while it is away.
max_queued_messages 0
log_dest file $d/log
CONF
  mosquitto -c "$d/mosquitto.conf" > "$d/stdout" 2>&1 &
  pids+=($!); broker_pid=$!
  await_port "$1" "$d/stdout"
}
stop_broker() { kill "$broker_pid"; wait "$broker_pid" 2>/dev/null || true; }

echo "# $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "# $(mosquitto -h 2>/dev/null | head -1), Moquette 0.17 in rtbox broker, $(java -version 2>&1 | head -1)"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- 1. end of run -> result at a subscriber (the all-in-one default: embedded broker) ----
port=$(free_port)
start_moquette "$port"
cat > "$RTBOX_HOME/etc/rtbox.mqtt.cfg" <<CFG
brokers=tcp://127.0.0.1:$port
appliance=bench
username=bench
passwordFile=$password_file
CFG
# The appliance has its own data folder: two frameworks must not share a storage folder.
RTBOX_DATA=$out/appliance "$launcher" serve > "$out/appliance.log" 2>&1 &
pids+=($!); appliance_pid=$!
pw=$(cat "$password_file")
mosquitto_sub -i bench-status -h 127.0.0.1 -p "$port" -u control -P "$pw" -t rtbox/v1/up/bench/status -C 1 -W 120 \
  | grep -q '"online"' || { echo "the appliance did not come online:" >&2; tail -20 "$out/appliance.log" >&2; exit 2; }
mosquitto_sub -i bench-payload -h 127.0.0.1 -p "$port" -u control -P "$pw" -t 'rtbox/v1/up/bench/runs/+/result' -C 1 -W 300 \
  > "$out/result.json" &
sub=$!
echo "## 1. end of run -> result at a subscriber: $runs timer runs of 1 s, appliance and embedded broker on this machine"
bench latency "tcp://127.0.0.1:$port" "$pw" bench "$runs" 1s
wait "$sub" || true
kill "$appliance_pid"; wait "$appliance_pid" 2>/dev/null || true
stop_broker
rm "$RTBOX_HOME/etc/rtbox.mqtt.cfg"
[ -s "$out/result.json" ] || { echo "no result was captured for the payload" >&2; exit 2; }

# ---- 2. results/s ingested from $appliances simulated appliances, mosquitto vs Moquette ----
echo "## 2. ingest: $appliances appliances x $each results of $(wc -c < "$out/result.json") bytes (a real result), QoS 1, one in flight each"
printf '  %-5s %16s %16s %7s\n' round 'mosquitto res/s' 'Moquette res/s' ratio
for r in $(seq 1 "$rounds"); do
  for b in mosquitto moquette; do
    port=$(free_port)
    "start_$b" "$port"
    bench ingest "tcp://127.0.0.1:$port" "$pw" "$out/result.json" "$appliances" "$each" > "$out/ingest-$r-$b.txt" \
      || { echo "$b, round $r: $(cat "$out/ingest-$r-$b.txt")" >&2; }
    stop_broker
  done
  python3 - "$out" "$r" <<'PY'
import re, sys
out, r = sys.argv[1], sys.argv[2]
rate = {}
for b in ("mosquitto", "moquette"):
    t = open(f"{out}/ingest-{r}-{b}.txt").read()
    m = re.search(r"(\d+) of (\d+) arrived .* ([0-9.]+) results/s", t)
    rate[b] = float(m.group(3)) if m and m.group(1) == m.group(2) else None
    if rate[b] is None:
        print(f"  {r}: {b}: not every result arrived: {t.strip()}")
ratio = rate["moquette"] / rate["mosquitto"] if all(rate.values()) else float("nan")
print(f"  {r:<5} {rate['mosquitto'] or 0:16.0f} {rate['moquette'] or 0:16.0f} {ratio:7.2f}")
PY
done
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
