#!/usr/bin/env bash
# Boot the rtbox image under qemu as a Pentium III with 192 MB and check the guest's self test.
#
#   image/boot-test.sh [IMAGE]        (default: image/out/rtbox.img, built by image/build.sh)
#
# The image is copied, its SYSLINUX entry switched from rtbox.mode=appliance to the self test and
# pointed at the test's own MQTT broker (kernel parameters rtbox.selftest=1 rtbox.selftest.mqtt=SECONDS
# rtbox.id=ID rtbox.broker=10.0.2.2:PORT, the way a factory provisions a card; the only change), and
# booted with the serial console logged. A mosquitto of the test's own listens on a free port of the
# host's loopback, which qemu's user networking offers the guest as 10.0.2.2. The guest runs
# /opt/rtbox/bin/rtbox-selftest, prints each command's output between markers; while its appliance
# serves, image/boot-control.sh (the control room) runs the timer, rtc (1024 Hz) and tsc probes over
# MQTT, checks the results that arrive at the host's broker, runs the rtc probe under the blockio workload
# on the IDE disk with the kernel trace (the largest spikes must name culprits) and swaps a workload
# bundle; then the guest
# kills the appliance, sees init restart it, and powers off.
# The same boot runs with the p3scan TCG plugin, which must find no instruction a Pentium III lacks.
#
# Environment:
#   RTBOX_BOOT_TIMEOUT   seconds for the whole qemu run (default 900; ~2.5-4 min on an idle 2-core machine)
#   RTBOX_P3SCAN         1 (default) run with the p3scan plugin; 0 skip it
#   RTBOX_P3SCAN_SRC     p3scan.c (default: <repo>/../shared/tools/p3scan/p3scan.c)
#   RTBOX_TEST_DIR       where logs go (default: image/build/boot-test)
#   RTBOX_QEMU_CPU       qemu CPU model (default pentium3; "qemu32" has SSE2: a control run in
#                        which p3scan must report findings and the test must fail)
#   RTBOX_MQTT_WAIT      seconds the guest waits for the host's MQTT phase once it serves (default 600)
# Exit status: 0 all checks passed, 1 a check failed, 2 the test could not run.
set -euo pipefail
trap 'rc=$?; echo "[boot-test] ERROR: line $LINENO: \"$BASH_COMMAND\" failed (exit $rc)" >&2' ERR
export LC_ALL=C

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
IMG="${1:-$HERE/out/rtbox.img}"
TIMEOUT="${RTBOX_BOOT_TIMEOUT:-900}"
P3SCAN="${RTBOX_P3SCAN:-1}"
P3SRC="${RTBOX_P3SCAN_SRC:-$REPO/../shared/tools/p3scan/p3scan.c}"
TD="${RTBOX_TEST_DIR:-$HERE/build/boot-test}"
CPU="${RTBOX_QEMU_CPU:-pentium3}"

log() { printf '[boot-test %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[boot-test] ERROR: %s\n' "$*" >&2; exit 2; }

[ -f "$IMG" ] || die "image $IMG not found: run image/build.sh first"
need=()
command -v qemu-system-i386 >/dev/null || need+=(qemu-system-x86)
command -v mcopy >/dev/null || need+=(mtools)
command -v sfdisk >/dev/null || need+=(fdisk)
[ "$P3SCAN" = 1 ] && ! command -v gcc >/dev/null && need+=(gcc)
command -v mosquitto >/dev/null || [ -x /usr/sbin/mosquitto ] || need+=(mosquitto)
command -v mosquitto_pub >/dev/null || need+=(mosquitto-clients)
command -v jq >/dev/null || need+=(jq)
command -v debugfs >/dev/null || need+=(e2fsprogs)
command -v unzip >/dev/null || need+=(unzip)
command -v jar >/dev/null || need+=(openjdk-17-jdk-headless)
if [ "${#need[@]}" -gt 0 ]; then
  [ "$(id -u)" = 0 ] || die "missing host packages: ${need[*]}"
  log "installing host packages: ${need[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null \
    || die "apt-get install ${need[*]} failed"
fi

rm -rf "$TD"
mkdir -p "$TD" "$TD/tftp"
MOSQUITTO="$(command -v mosquitto || echo /usr/sbin/mosquitto)"
MQTT_WAIT="${RTBOX_MQTT_WAIT:-600}"
# Processes this test starts (broker, subscriber, control room); stopped by their pid on every exit.
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
PLUGIN=()
if [ "$P3SCAN" = 1 ]; then
  [ -f "$P3SRC" ] || die "p3scan source $P3SRC not found (set RTBOX_P3SCAN_SRC, or RTBOX_P3SCAN=0 to skip)"
  gcc -O2 -shared -fPIC -o "$TD/p3scan.so" "$P3SRC" -lpthread || die "building p3scan failed"
  PLUGIN=(-plugin "$TD/p3scan.so,out=$TD/p3scan.txt")
fi

# the test's broker: its own config, a free port on the loopback (tried until one binds), anonymous
# (the appliance connects with the settings rcS derives from the kernel command line)
mkdir -p "$TD/broker"
PORT=""
for try in 1 2 3 4 5 6 7 8 9 10; do
  p=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
  (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue   # taken
  cat > "$TD/broker/mosquitto.conf" <<EOF
listener $p 127.0.0.1
user $(id -un)
allow_anonymous true
persistence false
log_dest file $TD/broker/mosquitto.log
log_type error
log_type warning
log_type notice
log_type information
EOF
  "$MOSQUITTO" -c "$TD/broker/mosquitto.conf" > "$TD/broker/stdout" 2>&1 &
  bpid=$!
  for i in $(seq 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && { PORT=$p; break; }
    kill -0 "$bpid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -n "$PORT" ]; then PIDS+=("$bpid"); break; fi
  kill "$bpid" 2>/dev/null || true; wait "$bpid" 2>/dev/null || true
done
[ -n "$PORT" ] || die "mosquitto did not start on a free loopback port: $(tail -n3 "$TD/broker/stdout" "$TD/broker/mosquitto.log" 2>/dev/null)"
ID="boottest-$$"
# subscribe DIR: logs every message of the appliance to DIR/mqtt.log (one subscriber per boot, so that
# each boot's control room reads only its own boot's messages); sets SUB_PID
subscribe() {
  mosquitto_sub -h 127.0.0.1 -p "$PORT" -q 1 -i "boottest-sub-$$-${1##*/}" -t "rtbox/v1/up/$ID/#" -F '%U %t %p' \
    > "$1/mqtt.log" 2> "$1/mqtt-sub.stderr" &
  SUB_PID=$!
  PIDS+=("$SUB_PID")
}
subscribe "$TD"
log "broker mosquitto on 127.0.0.1:$PORT (guest: 10.0.2.2:$PORT), appliance id $ID"

# test copy of the image with the self-test boot entry
TIMG="$TD/test.img"
cp --sparse=always "$IMG" "$TIMG"
parts="$(sfdisk -d "$TIMG")"
start="$(awk -F'[=,]' '/^[^ ]+1 :/{gsub(/ /,"",$2); print $2}' <<<"$parts")"
[ -n "$start" ] || die "cannot find the boot partition in $IMG"
export MTOOLS_SKIP_CHECK=1
FAT="$TIMG@@$((start * 512))"
mtype -i "$FAT" ::/syslinux.cfg > "$TD/syslinux.cfg.orig" || die "cannot read syslinux.cfg from the boot partition"
grep -q 'rtbox.mode=appliance' "$TD/syslinux.cfg.orig" || die "syslinux.cfg has no rtbox.mode=appliance entry"
# both entries (stock, the default, and rt) get the self test; rt's is the short one of the second boot
sed -e "s/rtbox\.mode=appliance/rtbox.selftest=1 rtbox.selftest.mqtt=$MQTT_WAIT rtbox.id=$ID rtbox.broker=10.0.2.2:$PORT/" \
    -e '/rtbox\.kernel=rt /s/rtbox\.selftest=1 /rtbox.selftest=1 rtbox.selftest.short=1 /' \
  "$TD/syslinux.cfg.orig" > "$TD/syslinux.cfg"
mcopy -o -i "$FAT" "$TD/syslinux.cfg" ::/syslinux.cfg || die "cannot write syslinux.cfg"

# the bundle for the remote swap: the image's own rtbox.workload.pipe with another Bundle-Version,
# taken from the root partition (read with debugfs: no mount)
read -r rstart rsize < <(awk -F'[=,]' '/^[^ ]+2 :/{gsub(/ /,"",$2); gsub(/ /,"",$4); print $2, $4}' <<<"$parts")
[ -n "$rstart" ] || die "cannot find the root partition in $IMG"
dd if="$TIMG" of="$TD/root.ext4" bs=512 skip="$rstart" count="$rsize" conv=sparse status=none
debugfs -R "dump /opt/rtbox/lib/rtbox.jar $TD/rtbox.jar" "$TD/root.ext4" 2>/dev/null
rm -f "$TD/root.ext4"
SWAP_JAR="$TD/swap/rtbox.workload.pipe-swap.jar"
if [ -s "$TD/rtbox.jar" ]; then
  mkdir -p "$TD/swap/x"
  pj="$(unzip -Z1 "$TD/rtbox.jar" 'jar/rtbox.workload.pipe-*.jar' 2>/dev/null | head -n1)"
  [ -n "$pj" ] || die "the image's rtbox.jar has no jar/rtbox.workload.pipe-*.jar for the swap test"
  unzip -p "$TD/rtbox.jar" "$pj" > "$TD/swap/orig.jar"
  (cd "$TD/swap/x" && unzip -q ../orig.jar) || die "cannot unpack $pj"
  sed -i 's/^Bundle-Version: .*/Bundle-Version: 0.2.0.boottest\r/' "$TD/swap/x/META-INF/MANIFEST.MF"
  jar --create --file "$SWAP_JAR" --manifest "$TD/swap/x/META-INF/MANIFEST.MF" -C "$TD/swap/x" . \
    || die "cannot pack the swap bundle"
  rm -rf "$TD/swap/x"
  # the control room: waits for the appliance on the broker, then runs its MQTT phase. It runs from a
  # copy: bash reads a script as it goes, so an edit of the checkout during the run would derail it.
  cp "$HERE/boot-control.sh" "$TD/boot-control.sh"
  bash "$TD/boot-control.sh" "$PORT" "$ID" "$TD" "$SWAP_JAR" > "$TD/control.log" 2>&1 &
  CONTROL_PID=$!
  PIDS+=("$CONTROL_PID")
else
  CONTROL_PID=""
  echo "image has no appliance: no MQTT phase" > "$TD/tftp/mqtt-done"
fi

# qemu_boot DIR TIMEOUT: boots the test image once (the kernel its syslinux.cfg's DEFAULT names); serial
# console to DIR/serial.log, each line stamped with seconds since qemu started; qemu's TFTP root DIR/tftp;
# p3scan's findings to DIR/p3scan.txt. Sets QRC and WALL.
qemu_boot() {
  local dir="$1" t0 d plugin=()
  [ "$P3SCAN" = 1 ] && plugin=(-plugin "$TD/p3scan.so,out=$dir/p3scan.txt")
  log "booting $(basename "$IMG") (qemu -cpu $CPU -m 192, TCG${plugin:+, p3scan}), timeout ${2}s"
  t0="${EPOCHREALTIME/./}"   # microseconds
  set +e; trap - ERR
  timeout --kill-after=10 "$2" \
    qemu-system-i386 -cpu "$CPU" -m 192 -nographic -no-reboot \
      -drive file="$TIMG",format=raw,if=ide,index=0,media=disk \
      -nic "user,model=e1000,tftp=$dir/tftp" \
      "${plugin[@]}" < /dev/null 2> "$dir/qemu.stderr" \
    | while IFS= read -r line || [ -n "$line" ]; do
        d=$(( ${EPOCHREALTIME/./} - t0 ))
        printf '%5d.%02d %s\n' $((d / 1000000)) $(( (d / 10000) % 100 )) "${line%$'\r'}"
      done > "$dir/serial.log"
  QRC="${PIPESTATUS[0]}"
  set -e; trap 'rc=$?; echo "[boot-test] ERROR: line $LINENO: \"$BASH_COMMAND\" failed (exit $rc)" >&2' ERR
  d=$(( ${EPOCHREALTIME/./} - t0 )); WALL="$((d / 1000000)).$(( (d / 100000) % 10 ))"
  log "qemu exited rc=$QRC after ${WALL}s; serial log: $dir/serial.log"
}
# end_control: the control room is done by now unless the guest never came online: then it is stopped
end_control() {
  if [ -n "$CONTROL_PID" ]; then
    for i in $(seq 20); do kill -0 "$CONTROL_PID" 2>/dev/null || break; sleep 0.5; done
    kill "$CONTROL_PID" 2>/dev/null || true
  fi
  sleep 1   # the broker's last messages (the final offline status) reach the subscriber
  kill "$SUB_PID" 2>/dev/null || true
}

# the first boot: the stock kernel (SYSLINUX's default), the whole self test
LOG="$TD/serial.log"
qemu_boot "$TD" "$TIMEOUT"
STOCK_WALL="$WALL"
end_control

# ------------------------------------------------------------------ checks
PASS=0; FAILN=0
ok()   { PASS=$((PASS + 1)); printf '  ok   %s\n' "$*"; }
bad()  { FAILN=$((FAILN + 1)); printf '  FAIL %s\n' "$*"; }
check() { local what="$1"; shift; if "$@" >/dev/null 2>&1; then ok "$what"; else bad "$what"; fi; }
has()  { grep -qE -- "$1" "$LOG"; }
steprc() { sed -n "s/.*--- RTBOX-CMD-END $1 rc=\([0-9]*\) ---.*/\1/p" "$LOG" | tail -n1; }
metric() { sed -n "s/.*RTBOX-METRIC $1=\([^ ]*\).*/\1/p" "$LOG" | tail -n1 | tr -d '\r'; }

echo "boot-test results ($IMG)"
if [ "$QRC" = 0 ]; then ok "guest powered off by itself (${WALL}s)"
elif [ "$QRC" = 124 ] || [ "$QRC" = 137 ]; then bad "guest did not power off within ${TIMEOUT}s (timeout)"
else bad "qemu failed with exit code $QRC: $(tail -n3 "$TD/qemu.stderr" | tr '\n' ' ')"; fi
check "no kernel panic/oops/invalid opcode/unhandled segfault" bash -c "! grep -qE 'Kernel panic|Oops:|invalid opcode|traps: .* trap|segfault at|RTBOX-BOOT-FAILED' '$LOG'"
check "kernel runs with preempt=full" has 'Dynamic Preempt: full'
check "system reached RTBOX-READY" has 'RTBOX-READY uptime='
check "self test started" has '=== RTBOX-SELFTEST-BEGIN ==='
for s in system rootfs-ro data-rw rtc network config java-version java-flags hello memory; do
  rc="$(steprc "$s")"
  if [ "$rc" = 0 ]; then ok "guest step $s"; else bad "guest step $s (rc=${rc:-missing})"; fi
done
check "JVM is the client VM" has 'OpenJDK Client VM'
sse="$(sed -n 's/.* UseSSE *= *\([0-9]*\).*/\1/p' "$LOG" | head -n1)"
if [ -n "$sse" ] && [ "$sse" -le 1 ]; then ok "HotSpot UseSSE=$sse (no SSE2)"; else bad "HotSpot UseSSE=${sse:-missing}, expected <= 1"; fi
check "fixture printed HELLO-OK" has 'HELLO-OK'
check "eth0 has 10.0.2.15 (qemu user net)" has 'inet 10\.0\.2\.15/24'
if [ "$(metric jna)" = present ]; then
  rc="$(steprc jna)"
  if [ "$rc" = 0 ]; then ok "JNA loads its linux-x86 libjnidispatch.so in the guest"; else bad "JNA check failed in the guest (rc=${rc:-missing})"; fi
else
  echo "  note no JNA in the image: JNA check skipped"
fi
if [ "$(metric appliance)" = present ]; then
  check "appliance configured for the test's broker from the kernel command line" \
    has "rcS: MQTT: appliance $ID \\(kernel command line\\), broker tcp://10\\.0\\.2\\.2:$PORT \\(kernel command line\\)"
  # the control room's checks: online, runs with their results on the host broker, bundle swap
  if [ -s "$TD/mqtt-checks.txt" ]; then
    while IFS= read -r line; do
      case "$line" in
        ok*) ok "mqtt: ${line#ok   }" ;;
        note*) echo "  note mqtt: ${line#note }" ;;   # what was seen, recorded but not a check
        *) bad "mqtt: ${line#FAIL }" ;;
      esac
    done < "$TD/mqtt-checks.txt"
  else
    bad "mqtt: the control room recorded no check (see $TD/control.log)"
  fi
  # every status the host's broker passed on, in order: online (busy or not), then the last will
  # (offline) when the appliance was killed, online again after init restarted it, offline at shutdown
  states="$(awk '$2 ~ /\/status$/ {sub(/^[^ ]* [^ ]* /, ""); print}' "$TD/mqtt.log" | jq -r .state 2>/dev/null \
            | uniq | paste -sd' ')"
  if [[ " $states " == *" online offline online "* ]] && [[ "$states" == *offline ]]; then
    ok "mqtt: status online, offline after SIGKILL (last will), online after the restart, offline at power-off"
  else
    bad "mqtt: status sequence '$states', expected online, offline (SIGKILL), online (restart), offline"
  fi
  rc="$(steprc rtbox-service)"
  if [ "$rc" = 0 ]; then ok "appliance service started by init, serving, restarted by init after SIGKILL"
  else bad "appliance service (rc=${rc:-missing})"; fi
  left="$(metric tmp_left_after_kill)"
  if [ "$left" = 0 ]; then ok "the killed appliance left nothing in /tmp (its JVM folder removed at the restart)"
  else bad "the killed appliance left ${left:-?} files or folders in /tmp (expected 0; see the rtbox-service step)"; fi
  check "shutdown through init ran rcK" has 'rcK: stopping the appliance' 
else
  echo "  note appliance jar not in the image: placeholder tests only"
fi
check "self test reported no failures" has '=== RTBOX-SELFTEST-END failures=0 ==='
# p3check DIR WHICH: p3scan's findings of one boot
p3check() {
  local dir="$1" summary nf na
  [ "$P3SCAN" = 1 ] || return 0
  summary="$(grep '^SUMMARY' "$dir/p3scan.txt" 2>/dev/null || true)"
  if [ -z "$summary" ]; then
    bad "p3scan ($2) wrote no SUMMARY (qemu did not exit cleanly?)"
  else
    # Allowed (see p3scan's README): F3 0F BC = REP BSF, which a Pentium III executes as BSF.
    # Everything else the plugin reports (including F3 0F BD = LZCNT, which would run as BSR) is a finding.
    awk '/^EXEC/{ b=""; for(i=1;i<=NF;i++) if($i ~ /^bytes=/) b=substr($i,7);
                  p=b; sawf3=0; sawf2=0;
                  while (match(p, /^(26|2e|36|3e|64|65|66|67|f0|f2|f3)/)) { x=substr(p,1,2); if(x=="f3") sawf3=1; if(x=="f2") sawf2=1; p=substr(p,3) }
                  if (sawf3 && !sawf2 && substr(p,1,4)=="0fbc") print > "/dev/stderr"; else print }' \
        "$dir/p3scan.txt" > "$dir/p3scan-findings.txt" 2> "$dir/p3scan-allowed.txt"
    nf=$(wc -l < "$dir/p3scan-findings.txt"); na=$(wc -l < "$dir/p3scan-allowed.txt")
    if [ "$nf" = 0 ]; then
      ok "p3scan ($2): no instruction a Pentium III lacks was executed ($na allowed REP BSF sites; $summary)"
    else
      bad "p3scan ($2): $nf executed instruction sites a Pentium III lacks ($summary):"
      sort -t= -k3 -nr "$dir/p3scan-findings.txt" | head -n 20 | sed 's/^/       /'
    fi
  fi
}
p3check "$TD" "stock kernel"

# ------------------------------------------------------------------ the second boot: PREEMPT_RT
# The first boot's control room sent the firmware verb with kernel rt: the appliance rewrote the DEFAULT
# of syslinux.cfg on the guest's boot partition. The same disk boots again and must start the rt entry
# (Debian's PREEMPT_RT kernel) with the short self test: the appliance (its Felix storage kept from the
# first boot) serves, the control room checks the status and runs one short plan, the guest powers off.
RT_TD="$TD/rt"
RT_TIMEOUT="${RTBOX_RT_BOOT_TIMEOUT:-480}"
RT_WALL=""
mkdir -p "$RT_TD/tftp"
mtype -i "$FAT" ::/syslinux.cfg > "$RT_TD/syslinux.cfg.after-stock" 2>/dev/null || true
if [ "$(metric appliance)" != present ]; then
  echo "  note no appliance in the image: no firmware verb, no second boot"
elif ! grep -qx 'DEFAULT rt' "$RT_TD/syslinux.cfg.after-stock"; then
  bad "the firmware verb's choice on the boot partition: DEFAULT rt (found: $(grep -i '^default' "$RT_TD/syslinux.cfg.after-stock" || echo nothing)); no second boot"
else
  ok "the firmware verb's choice is on the boot partition: DEFAULT rt, the rest of syslinux.cfg unchanged"
  cmp -s <(sed 's/^DEFAULT rt$/DEFAULT stock/' "$RT_TD/syslinux.cfg.after-stock") "$TD/syslinux.cfg" \
    || bad "syslinux.cfg after the firmware verb differs from the one booted in more than its DEFAULT"
  subscribe "$RT_TD"
  bash "$TD/boot-control.sh" "$PORT" "$ID" "$RT_TD" "$SWAP_JAR" rt > "$RT_TD/control.log" 2>&1 &
  CONTROL_PID=$!
  PIDS+=("$CONTROL_PID")
  LOG="$RT_TD/serial.log"
  qemu_boot "$RT_TD" "$RT_TIMEOUT"
  RT_WALL="$WALL"
  end_control
  echo "boot-test results, second boot (entry rt: PREEMPT_RT)"
  if [ "$QRC" = 0 ]; then ok "rt boot: guest powered off by itself (${WALL}s)"
  else bad "rt boot: qemu exit code $QRC (124/137: no power-off within ${RT_TIMEOUT}s)"; fi
  check "rt boot: no kernel panic/oops/invalid opcode/unhandled segfault" bash -c "! grep -qE 'Kernel panic|Oops:|invalid opcode|traps: .* trap|segfault at|RTBOX-BOOT-FAILED' '$LOG'"
  check "rt boot: SYSLINUX started the rt entry (rtbox.kernel=rt on the command line)" has 'rtbox\.kernel=rt '
  check "rt boot: uname -v names PREEMPT_RT" has '^ *[0-9.]+ Linux .* PREEMPT_RT '
  if [ "$(metric kernel_realtime)" = 1 ]; then ok "rt boot: /sys/kernel/realtime is 1"
  else bad "rt boot: /sys/kernel/realtime is '$(metric kernel_realtime)', expected 1"; fi
  n="$(metric irq_threads)"
  if [ "${n:-0}" -gt 0 ]; then ok "rt boot: interrupts run in threads ($n irq/N-name threads)"
  else bad "rt boot: no irq/N-name thread (threaded interrupts expected on PREEMPT_RT)"; fi
  check "rt boot: system reached RTBOX-READY" has 'RTBOX-READY uptime='
  for st in system preempt rtbox-service; do
    rc="$(steprc "$st")"
    if [ "$rc" = 0 ]; then ok "rt boot: guest step $st"; else bad "rt boot: guest step $st (rc=${rc:-missing})"; fi
  done
  if [ -s "$RT_TD/mqtt-checks.txt" ]; then
    while IFS= read -r line; do
      case "$line" in
        ok*) ok "mqtt: ${line#ok   }" ;;
        note*) echo "  note mqtt: ${line#note }" ;;
        *) bad "mqtt: ${line#FAIL }" ;;
      esac
    done < "$RT_TD/mqtt-checks.txt"
  else
    bad "rt boot: the control room recorded no check (see $RT_TD/control.log)"
  fi
  check "rt boot: self test reported no failures" has '=== RTBOX-SELFTEST-END failures=0 ==='
  p3check "$RT_TD" "PREEMPT_RT kernel"
fi
LOG="$TD/serial.log"

# figures
ready_host="$(awk '/RTBOX-READY/{print $1; exit}' "$LOG")"
{
  echo "image_bytes=$(stat -c %s "$IMG")"
  echo "qemu_wall_s=$STOCK_WALL"
  echo "boot_to_ready_host_s=${ready_host:-?}"
  echo "boot_to_ready_guest_uptime_s=$(metric boot_uptime_s)"
  for k in mem_total_kb mem_available_idle_kb hello_wall_s hello_idle_peak_rss_kb jna appliance \
           appliance_ready_uptime_s appliance_start_to_ready_s serve_rss_kb serve_hwm_kb \
           serve_threads mem_available_serving_kb mem_free_serving_kb mqtt_phase_s mqtt_peak_rss_kb mqtt_peak_threads \
           mqtt_mem_available_min_kb mqtt_mem_free_min_kb after_mqtt_rss_kb after_mqtt_mem_available_kb \
           serve_gc_pauses serve_gc_max_ms serve_safepoints \
           service_restart_s appliance_restart_start_to_ready_s mem_available_end_kb; do
    v="$(metric "$k")"; [ -n "$v" ] && echo "$k=$v"
  done
  echo "p3scan=${P3SCAN}"
  [ -f "$TD/mqtt-figures.txt" ] && cat "$TD/mqtt-figures.txt"
  if [ -n "$RT_WALL" ]; then
    echo "rt_qemu_wall_s=$RT_WALL"
    echo "rt_boot_to_ready_host_s=$(awk '/RTBOX-READY/{print $1; exit}' "$RT_TD/serial.log")"
    LOG="$RT_TD/serial.log"
    for k in boot_uptime_s appliance_ready_uptime_s appliance_start_to_ready_s serve_rss_kb mem_available_serving_kb \
             mqtt_phase_s irq_threads kernel_realtime sched_rt_runtime_us; do
      v="$(metric "$k")"; [ -n "$v" ] && echo "rt_$k=$v"
    done
    LOG="$TD/serial.log"
    [ -f "$RT_TD/mqtt-figures.txt" ] && cat "$RT_TD/mqtt-figures.txt"
  fi
} > "$TD/figures.txt"
echo "figures (TCG emulation, not board timings):"
sed 's/^/  /' "$TD/figures.txt"

if [ "$FAILN" -gt 0 ]; then
  echo "--- last 40 lines of the serial log ---"
  tail -n 40 "$LOG"
  [ -f "$RT_TD/serial.log" ] && { echo "--- last 40 lines of the rt boot's serial log ---"; tail -n 40 "$RT_TD/serial.log"; }
fi
echo "boot-test: $PASS passed, $FAILN failed"
if [ "$FAILN" -gt 0 ]; then exit 1; fi
