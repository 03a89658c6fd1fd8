# Sourced by metrics.sh and webhooks.sh (with n, here and root set): Debian's mosquitto with users
# control and sim, and one rtbox control on H2 in a temporary home that knows N appliances
# (appliancesFile, so they are registered); sets out, port, pw, h (its home) and hp (its HTTP port),
# and kills both at exit.
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
grep -q "rtbox control: serving" "$h/control.log" || { cat "$h/control.log" >&2; exit 2; }
