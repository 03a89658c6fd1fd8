#!/usr/bin/env bash
# bench/control: the control room (rtbox control) against a bare MQTT subscriber, on H2 and
# on PostgreSQL, in one run of this script (figures in README.md):
#  0. one real plan run with 1,000,000 samples per CPU: timer at 100 us on CPUs 0 and 1 for
#     100 s through the README's main command (rtbox job), which also stores it; its cell
#     message is the real payload of 1.
#  1. ingest: APPLIANCES simulated appliances x RESULTS cell messages each (the real one,
#     with appliance, run and sequence replaced) at QoS 1, one in flight, into Debian's
#     mosquitto; the control room and a bare Paho subscriber subscribed side by side.
#     results/s of each, their ratio, the control room's CPU s per 1,000 results.
#  2. the run page's API for the run of 0 (1,000,000 samples per CPU).
#  3. the fleet API with 1,000 appliances online.
# Each on H2 (the default, a file) and on PostgreSQL (Debian's, started in a temp dir).
#   bench/control/run.sh [appliances=50] [results=20] [rounds=2]
set -euo pipefail
appliances=${1:-50}
each=${2:-20}
rounds=${3:-2}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v mosquitto >/dev/null || { echo "mosquitto missing: apt-get install mosquitto" >&2; exit 2; }
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$pgbin/initdb" ] || { echo "PostgreSQL missing: apt-get install postgresql" >&2; exit 2; }
[ -f "$root/runtime/target/control.jar" ] || (cd "$root" && mvn -q -DskipTests package)
m2=$HOME/.m2/repository
cp_="$m2/org/eclipse/paho/org.eclipse.paho.client.mqttv3/1.2.5/org.eclipse.paho.client.mqttv3-1.2.5.jar:$m2/com/google/code/gson/gson/2.11.0/gson-2.11.0.jar"
out=$(mktemp -d)
chmod 755 "$out"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  [ -d "$out/pg/data" ] && as_pg "$pgbin/pg_ctl" -D "$out/pg/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$out"
}
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
trap cleanup EXIT
launcher=$root/runtime/rtbox
bench() { java -cp "$cp_" "$here/ControlBench.java" "$@"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

echo "# $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "# $(mosquitto -h 2>/dev/null | head -1), PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}'), H2 2.3.232, $(java -version 2>&1 | head -1)"
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- 0. a real run of 1,000,000 samples per CPU, stored by rtbox job ----
home=$out/h2
mkdir -p "$home/etc" && cp "$root"/runtime/etc/* "$home/etc/"
cat > "$out/million.json" <<'PLAN'
{"rtbox_plan":1,"name":"million","probe":"timer","parameters":{"interval_us":100,"cpus":[0,1],"histogram_us":2000},
 "warmup":"1s","duration":"DURATION","thresholds":{"max_us":100000},"cells":[{"name":"idle"}]}
PLAN
sed -i "s/DURATION/${RTBOX_BENCH_DURATION:-100s}/" "$out/million.json"
echo "## 0. a plan run of 100 s at 100 us on 2 CPUs (1,000,000 samples per CPU), through rtbox job"
RTBOX_HOME=$home "$launcher" job "$out/million.json" --report "$out/job" > "$out/job.log" 2>&1 || true
grep -E "OVERALL|run page|messages stored" "$out/job.log" | sed 's/^/  /'
million=$(ls "$out"/job/mqtt/local-*-cell-1.json | head -1)
run=$(basename "$million" | sed -E 's/^local-(.*)-cell-1\.json$/\1/')
echo "  its cell message: $(wc -c < "$million") bytes"
# The ingest's payload: a cell of an ordinary plan (timer at 1 ms on CPU 0 for 5 s).
cat > "$out/sample.json" <<'PLAN'
{"rtbox_plan":1,"name":"sample","probe":"timer","parameters":{"interval_us":1000,"cpus":[0]},
 "warmup":"1s","duration":"5s","thresholds":{"max_us":100000},"cells":[{"name":"idle"}]}
PLAN
RTBOX_HOME=$home "$launcher" job "$out/sample.json" --report "$out/sample" > "$out/sample.log" 2>&1 || true
payload=$(ls "$out"/sample/mqtt/local-*-cell-1.json | head -1)
echo "  the ingest's payload, a real cell message of a 5 s plan: $(wc -c < "$payload") bytes"

# ---- the broker: Debian's mosquitto, password, no ACL (one client publishes 1,000 statuses) ----
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

start_control() { # home, http port, extra cfg lines
  local h=$1 p=$2
  mkdir -p "$h/etc" && cp "$root"/runtime/etc/* "$h/etc/"
  { echo "brokers=tcp://127.0.0.1:$port"; echo "username=control"; echo "passwordFile=$out/broker-password"
    echo "clientId=rtbox-control-$(basename "$h")"; shift 2; for l in "$@"; do echo "$l"; done; } > "$h/etc/rtbox.control.cfg"
  RTBOX_HOME=$h "$launcher" control --port "$p" > "$h/control.log" 2>&1 &
  control_pid=$!; pids+=($control_pid)
  for _ in $(seq 1 1200); do grep -q "rtbox control: serving" "$h/control.log" && return 0; sleep 0.1; done
  echo "rtbox control did not start:" >&2; tail -20 "$h/control.log" >&2; exit 2
}
stop_control() { kill "$control_pid"; wait "$control_pid" 2>/dev/null || true; }

measure() { # database name, home, http port
  local db=$1 h=$2 p=$3 url=http://127.0.0.1:$3
  local admin; admin=$(cat "$h/data/control/admin-password")
  echo "## $db: 1. ingest, $appliances appliances x $each cells, control room and bare subscriber side by side"
  # A control room serves for days: the first thousand messages after its start run while the
  # JIT compiles the decode and store paths (1.5x the CPU per result, measured). That start is
  # shown, as the warm-up round, and not counted in the rounds that follow.
  echo "  warm-up (JIT, not counted): $(bench ingest "tcp://127.0.0.1:$port" "$pw" "$payload" "$appliances" "$each" "$url" "$admin" "$control_pid")"
  for r in $(seq 1 "$rounds"); do
    echo "  round $r: $(bench ingest "tcp://127.0.0.1:$port" "$pw" "$payload" "$appliances" "$each" "$url" "$admin" "$control_pid")"
  done
  echo "## $db: 2. $(bench runapi "$url" "$admin" local "$run" | paste -sd ';' | sed 's/;/\n  /g')"
  echo "## $db: 3. fleet of 1,000"
  bench fleet "tcp://127.0.0.1:$port" "$pw" 1000 "$url" "$admin" | sed 's/^/  /'
}

# ---- H2 (the run of 0 is in it already) ----
hp=$(free_port)
start_control "$home" "$hp"
measure H2 "$home" "$hp"
stop_control

# ---- PostgreSQL ----
mkdir -p "$out/pg" && chown postgres "$out/pg" 2>/dev/null || true
pgport=$(free_port)
as_pg "$pgbin/initdb" -D "$out/pg/data" -A trust -U postgres -E UTF8 > "$out/pg/initdb.log" 2>&1
as_pg "$pgbin/pg_ctl" -D "$out/pg/data" -l "$out/pg/log" -w -o "-p $pgport -k $out/pg -c listen_addresses=127.0.0.1" start > /dev/null
as_pg "$pgbin/createdb" -h 127.0.0.1 -p "$pgport" -U postgres rtbox
pghome=$out/pghome
mkdir -p "$pghome/etc" && cp "$root"/runtime/etc/* "$pghome/etc/"
echo "jdbcUrl=jdbc:postgresql://127.0.0.1:$pgport/rtbox?user=postgres" > "$pghome/etc/rtbox.control.cfg"
RTBOX_HOME=$pghome "$launcher" control import "$out/job/mqtt" > "$out/pg-import.log" 2>&1
hp=$(free_port)
start_control "$pghome" "$hp" "jdbcUrl=jdbc:postgresql://127.0.0.1:$pgport/rtbox?user=postgres"
measure PostgreSQL "$pghome" "$hp"
stop_control
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
