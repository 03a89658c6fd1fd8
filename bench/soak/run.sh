#!/usr/bin/env bash
# bench/soak: a real appliance (rtbox serve) on a real mosquitto kept busy over MQTT for a long
# time, as a control room would keep it: plans back to back (two 5 s cells, the second under the
# pipe workload), two swaps of the pipe workload bundle (update) and five other commands after
# each plan. Every interval the appliance's process is sampled from outside: RSS, threads, open
# files, heap used and metaspace after a full collection (jcmd GC.run, GC.heap_info), the result
# journal's size, the outbox's files and bytes. Flat is the goal: the script prints the start, end
# and max of each series and whether it grew over 10 %, and the messages sent, received and lost.
# Writes soak.csv and soak.svg (one panel a series) to OUT. The journal is judged against its bound,
# SOAK_JOURNAL_MAX (default 16 MiB, rtbox.plan's default journalMaxBytes).
#
#   flock /tmp/rtbox-heavy.lock bench/soak/run.sh [minutes=60] [interval_s=60] [out=a new /tmp/rtbox-soak.*]
#
# Exit 0 when every judged series is flat and nothing was lost, 1 when not, 2 when it could not
# run. SoakIT runs it for 10 minutes in CI (-Drtbox.soak.minutes). Environment: RTBOX_JAR (default
# runtime/target/rtbox.jar), SOAK_PAHO (Paho's jar; default from ~/.m2).
set -euo pipefail
minutes=${1:-60}
interval=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${3:-$(mktemp -d /tmp/rtbox-soak.XXXXXX)}
out=$(mkdir -p "$out" && cd "$out" && pwd)
command -v mosquitto >/dev/null || [ -x /usr/sbin/mosquitto ] \
  || { echo "mosquitto missing: apt-get install mosquitto mosquitto-clients" >&2; exit 2; }
PATH=$PATH:/usr/sbin
jar=${RTBOX_JAR:-$root/runtime/target/rtbox.jar}
[ -f "$jar" ] || { echo "$jar is missing: mvn -q -DskipTests package" >&2; exit 2; }
pipe=$(ls "$root"/bundles/workload.pipe/target/rtbox.workload.pipe-*.jar 2>/dev/null | head -1)
[ -n "$pipe" ] || { echo "the pipe bundle is not built: mvn -q -DskipTests package" >&2; exit 2; }
paho=${SOAK_PAHO:-$HOME/.m2/repository/org/eclipse/paho/org.eclipse.paho.client.mqttv3/1.2.5/org.eclipse.paho.client.mqttv3-1.2.5.jar}
[ -f "$paho" ] || (cd "$root" && mvn -q dependency:get -Dartifact=org.eclipse.paho:org.eclipse.paho.client.mqttv3:1.2.5)
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
await_port() {
  for _ in $(seq 1 600); do
    (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nothing listens on $1 after 60 s; $2:" >&2; tail -20 "$2" >&2; exit 2
}

# The broker: mosquitto with the repository's ACL, the appliance "soak" and the control room.
port=$(free_port)
password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
printf 'control:%s\nsoak:%s\n' "$password" "$password" > "$work/passwd"
mosquitto_passwd -U "$work/passwd"
cat > "$work/mosquitto.conf" <<CONF
listener $port 127.0.0.1
user $(id -un)
allow_anonymous false
password_file $work/passwd
acl_file $root/docs/mosquitto.acl
persistence false
max_queued_messages 0
log_dest file $work/mosquitto.log
CONF
mosquitto -c "$work/mosquitto.conf" > "$work/mosquitto.stdout" 2>&1 &
pids+=($!)
await_port "$port" "$work/mosquitto.stdout"

# The appliance, in a home of its own.
export RTBOX_HOME=$work/home RTBOX_JAR=$jar RTBOX_DATA=$work/home/data RTBOX_RUN=$work/home/run
mkdir -p "$RTBOX_HOME/etc" && cp "$root"/runtime/etc/* "$RTBOX_HOME/etc/"
printf '%s' "$password" > "$work/soak.password" && chmod 600 "$work/soak.password"
cat > "$RTBOX_HOME/etc/rtbox.mqtt.cfg" <<CFG
brokers=tcp://127.0.0.1:$port
appliance=soak
username=soak
passwordFile=$work/soak.password
CFG
# The result journal's bound (rtbox.plan's journalMaxBytes): the shipped default unless told.
journal_max=${SOAK_JOURNAL_MAX:-16777216}
echo "journalMaxBytes=$journal_max" > "$RTBOX_HOME/etc/rtbox.plan.cfg"
# Started directly, never through a function: its exec'ed java keeps the pid $! names.
"$root/runtime/rtbox" serve > "$out/appliance.log" 2>&1 &
pids+=($!); appliance=$!
for _ in $(seq 1 600); do
  grep -q "connected to tcp://127.0.0.1:$port" "$out/appliance.log" 2>/dev/null && break
  kill -0 "$appliance" 2>/dev/null || { echo "the appliance exited:" >&2; tail -20 "$out/appliance.log" >&2; exit 2; }
  sleep 0.1
done
grep -q "connected to" "$out/appliance.log" || { echo "the appliance did not connect:" >&2; tail -20 "$out/appliance.log" >&2; exit 2; }

echo "# $(uname -srm), $(nproc) CPUs, $(java -version 2>&1 | head -1), $(mosquitto -h 2>/dev/null | head -1)"
echo "# rtbox at $(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo '?'), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
rc=0
java -cp "$paho" "$here/Soak.java" "tcp://127.0.0.1:$port" "$password" soak "$appliance" "$minutes" "$interval" "$out" \
  "$pipe" "$RTBOX_DATA/results.journal" "$RTBOX_DATA/mqtt/outbox" "$journal_max" || rc=$?
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
if grep -q "OutOfMemoryError" "$out/appliance.log"; then
  echo "soak: the appliance logged an OutOfMemoryError" >&2
  rc=1
fi
exit "$rc"
