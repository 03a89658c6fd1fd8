#!/usr/bin/env bash
# bench/startup: how long rtbox takes to answer, and to serve, on this machine (issue 15).
# Alternated rounds; per command the median and the range (min-max) of wall time, in ms:
#   --help, --version        answered without the framework (rtbox.runtime.launch.NoFramework)
#   --help (framework)       the same with RTBOX_FRAMEWORK=always: what every command paid before
#   plan check plans/quick.json, probes      the framework starts
#   serve: ready             launch to "rtbox: serving" on stdout (framework, bundles, SCR up)
#   serve: online            launch to the retained status "online" at a subscriber of a local
#                            mosquitto (the appliance reachable over MQTT: what a control room sees)
#   serve: RSS               VmRSS of the serving JVM 3 s after online (/proc/PID/status)
# Run it under the shared lock: flock /tmp/rtbox-heavy.lock bench/startup/run.sh [rounds=7]
# With RTBOX_BASELINE_LAUNCHER=PATH and RTBOX_BASELINE_JAR=PATH (e.g. main's launcher and jar
# before a change), every command also runs that way, in the same rounds, with a home of its
# own (its own framework storage), and is printed again with "(base)".
set -euo pipefail
rounds=${1:-7}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
command -v mosquitto >/dev/null || { echo "mosquitto missing: apt-get install mosquitto mosquitto-clients" >&2; exit 2; }
jar=${RTBOX_JAR:-$root/runtime/target/rtbox.jar}
[ -f "$jar" ] || { echo "$jar missing: mvn -q -DskipTests package" >&2; exit 2; }
out=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$out"
}
trap cleanup EXIT
variants=(new)
[ -n "${RTBOX_BASELINE_LAUNCHER:-}" ] && variants+=(base)
use() { # variant: its launcher (started directly: its exec'ed java keeps the pid $! names), jar and home
  if [ "$1" = base ]; then
    launcher=$RTBOX_BASELINE_LAUNCHER; sfx="(base)"; export RTBOX_JAR=$RTBOX_BASELINE_JAR
  else
    launcher=$root/runtime/rtbox; sfx=""; export RTBOX_JAR=$jar
  fi
  export RTBOX_HOME=$out/home-$1 RTBOX_RUN=$out/run-$1
}
for v in "${variants[@]}"; do mkdir -p "$out/home-$v/etc" && cp "$root"/runtime/etc/* "$out/home-$v/etc/"; done
now() { date +%s%N; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$port" > "$out/mosquitto.conf"
mosquitto -c "$out/mosquitto.conf" > "$out/mosquitto.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break; sleep 0.1; done
for v in "${variants[@]}"; do
  printf 'brokers=tcp://127.0.0.1:%s\nappliance=bench\nusername=bench\npassword=bench\n' "$port" \
    > "$out/home-$v/etc/rtbox.mqtt.cfg"
done
status=rtbox/v1/up/bench/status

timed() { # name command...: one timed run, its exit code must be that of a normal answer
  local t0 t1 rc=0
  t0=$(now)
  "$@" > "$out/last.out" 2>&1 || rc=$?
  t1=$(now)
  [ "$rc" -le 3 ] || { echo "$* exited $rc:" >&2; cat "$out/last.out" >&2; exit 2; }
  echo "$name$sfx $(( (t1 - t0) / 1000000 ))" >> "$out/times"
}

serve_round() {
  mosquitto_pub -p "$port" -t "$status" -r -n # no retained status left from the last round
  rm -f "$out/online"
  (mosquitto_sub -p "$port" -t "$status" | while read -r line; do
     case "$line" in *'"online"'*) now > "$out/online"; break ;; esac
   done) &
  local sub=$! t0 ready="" pid
  sleep 0.3 # the subscriber is subscribed
  t0=$(now)
  "$launcher" serve > "$out/serve.out" 2>&1 &
  pid=$!
  for _ in $(seq 1 3000); do
    if [ -z "$ready" ] && grep -q "rtbox: serving" "$out/serve.out"; then ready=$(now); fi
    [ -n "$ready" ] && [ -s "$out/online" ] && break
    sleep 0.01
  done
  [ -s "$out/online" ] || { echo "serve did not come online:" >&2; cat "$out/serve.out" >&2; exit 2; }
  echo "serve:ready$sfx $(( (ready - t0) / 1000000 ))" >> "$out/times"
  echo "serve:online$sfx $(( ($(cat "$out/online") - t0) / 1000000 ))" >> "$out/times"
  sleep 3
  echo "serve:RSS_MB$sfx $(awk '/VmRSS/ {printf "%d", $2 / 1024}' "/proc/$pid/status")" >> "$out/times"
  kill "$pid"; wait "$pid" || true
  kill "$sub" 2>/dev/null || true; wait "$sub" 2>/dev/null || true
}

commands=()
for v in "${variants[@]}"; do
  for c in help version help-framework plan-check probes serve; do commands+=("$v:$c"); done
done
run_one() {
  use "${1%%:*}"
  case "${1#*:}" in
    help) name=--help timed "$launcher" --help ;;
    version) name=--version timed "$launcher" --version ;;
    help-framework) name="--help(framework)" RTBOX_FRAMEWORK=always timed "$launcher" --help ;;
    plan-check) name="plan-check" timed "$launcher" plan check "$root/plans/quick.json" ;;
    probes) name=probes timed "$launcher" probes ;;
    serve) serve_round ;;
  esac
}
# One unmeasured pass: the jar copies in $RTBOX_RUN/jars and the framework storage are made once.
for v in "${variants[@]}"; do
  for c in help version help-framework plan-check probes; do run_one "$v:$c"; done
done
rm -f "$out/times"
for r in $(seq 1 "$rounds"); do
  n=${#commands[@]}
  for i in $(seq 0 $((n - 1))); do run_one "${commands[$(( (i + r) % n ))]}"; done # rotated order
done
echo "rtbox start-up, $rounds alternated rounds, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-26s %8s %14s\n' command median range
for k in --help --version "--help(framework)" plan-check probes serve:ready serve:online serve:RSS_MB; do
  for v in "${variants[@]}"; do
    name=$k
    [ "$v" = base ] && name="$k(base)"
    grep -F -- "$name " "$out/times" | awk '{print $2}' | sort -n | awk -v k="$name" '
      { v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
        printf "%-26s %8s %14s\n", k, m, v[1] "-" v[NR] }'
  done
done
