#!/usr/bin/env bash
# The boot test's control room: talks to the appliance in the guest over MQTT, through the test's own
# mosquitto on the host's loopback (the guest reaches it as 10.0.2.2). Started in the background by
# image/boot-test.sh; not meant to be run by hand (it needs the broker and the subscriber log that
# boot-test.sh starts).
#
#   boot-control.sh PORT APPLIANCE_ID TEST_DIR SWAP_JAR
#
# TEST_DIR/mqtt.log is the subscriber's log ("<unix time> <topic> <payload>" per message, every
# message under rtbox/v1/up/ID/). This script waits for the appliance's retained "online" status,
# then:
#   1. runs the timer, rtc (1024 Hz) and tsc probes with the `run` verb, one after the other, and
#      checks each reply (200) and result (verdict, probe, samples; the rtc result's rate_hz 1024);
#   2. swaps a workload bundle: `update` of rtbox.workload.pipe with SWAP_JAR (another Bundle-Version)
#      and its SHA-256, then `bundles` must list that version ACTIVE;
#   3. writes TEST_DIR/tftp/mqtt-done, which the guest's self test polls over qemu's TFTP server
#      (the signal that the MQTT phase is over and it may go on with the SIGKILL test).
# Each check is one line in TEST_DIR/mqtt-checks.txt: "ok <what>" or "FAIL <what>"; figures go to
# TEST_DIR/mqtt-figures.txt, payloads to TEST_DIR/mqtt/.
#
# Environment: RTBOX_MQTT_ONLINE_TIMEOUT (s, default 480) for the appliance to come online,
# RTBOX_MQTT_STEP_TIMEOUT (s, default 240) for each reply and result.
set -uo pipefail
export LC_ALL=C
PORT="$1" ID="$2" TD="$3" SWAP_JAR="$4"
SUBLOG="$TD/mqtt.log"
CHECKS="$TD/mqtt-checks.txt"
FIG="$TD/mqtt-figures.txt"
OUTD="$TD/mqtt"
ONLINE_TIMEOUT="${RTBOX_MQTT_ONLINE_TIMEOUT:-480}"
STEP_TIMEOUT="${RTBOX_MQTT_STEP_TIMEOUT:-240}"
mkdir -p "$OUTD" "$TD/tftp"
: > "$CHECKS"; : > "$FIG"

log()  { printf '[boot-control %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
ok()   { echo "ok   $*" >> "$CHECKS"; log "ok   $*"; }
bad()  { echo "FAIL $*" >> "$CHECKS"; log "FAIL $*"; }
figure() { echo "$1=$2" >> "$FIG"; }
# The tftp file is written on every exit path: the guest must never wait for its full timeout
# because this script failed.
finish() { echo "${1:-done}" > "$TD/tftp/mqtt-done.tmp" && mv "$TD/tftp/mqtt-done.tmp" "$TD/tftp/mqtt-done"; }
trap 'finish "control room stopped early"' EXIT

now() { date +%s.%N | cut -c1-14; }
# await TOPIC_REGEX SECONDS [JQ_FILTER]: the payload of the first message whose topic matches (and
# for which the jq filter, if given, is true), written to stdout; fails after SECONDS.
await() {
  local re="$1" secs="$2" filter="${3:-true}" end line p
  end=$(( $(date +%s) + secs ))
  while [ "$(date +%s)" -le "$end" ]; do
    while IFS= read -r line; do
      p="${line#* }"; p="${p#* }"
      if printf '%s' "$p" | jq -e "$filter" >/dev/null 2>&1; then printf '%s\n' "$p"; return 0; fi
    done < <(awk -v re="$re" '$2 ~ re' "$SUBLOG" 2>/dev/null)
    sleep 1
  done
  return 1
}
expires() { date -u -d "+15 min" +%Y-%m-%dT%H:%M:%SZ; }
# command VERB REQUEST_ID BODY_JSON_OBJECT: publishes the command (QoS 1, not retained)
command() {
  local verb="$1" req="$2" body="$3"
  jq -c -n --arg r "$req" --arg e "$(expires)" --arg a "$ID" --argjson b "$body" \
     '{requestId: $r, expires: $e, appliance: $a} + $b' > "$OUTD/cmd-$req.json" || return 1
  mosquitto_pub -h 127.0.0.1 -p "$PORT" -q 1 -i "boottest-control-$$" \
      -t "rtbox/v1/down/$ID/cmd/$verb" -f "$OUTD/cmd-$req.json"
}
# reply REQUEST_ID: waits for the reply, saves it, prints it
reply() {
  local r
  r="$(await "^rtbox/v1/up/$ID/reply/$1\$" "$STEP_TIMEOUT")" || return 1
  printf '%s\n' "$r" > "$OUTD/reply-$1.json"
  printf '%s\n' "$r"
}

# ------------------------------------------------------------------ online
t0="$(now)"
if ! await "^rtbox/v1/up/$ID/status\$" "$ONLINE_TIMEOUT" '.state == "online"' > "$OUTD/status-online.json"; then
  bad "appliance $ID online on the host broker within ${ONLINE_TIMEOUT}s (no retained online status)"
  exit 1
fi
ok "appliance $ID online on the host's broker (status: $(jq -c '{state, probes}' "$OUTD/status-online.json"))"
figure mqtt_online_wait_s "$(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}')"

# ------------------------------------------------------------------ runs
# run_probe NAME PARAMETERS_JSON: one remote run; checks reply and result; the result is in $OUTD/result-NAME.json
run_probe() {
  local name="$1" params="$2" req="run-$1-$$" r code run res verdict t1
  t1="$(now)"
  command run "$req" "{\"probe\":\"$name\",\"parameters\":$params}" || { bad "publish run $name"; return 1; }
  if ! r="$(reply "$req")"; then bad "reply to run $name within ${STEP_TIMEOUT}s"; return 1; fi
  code="$(jq -r .code <<<"$r")"
  if [ "$code" != 200 ]; then bad "run $name accepted (reply code $code: $(jq -r .message <<<"$r"))"; return 1; fi
  run="$(jq -r .body.run <<<"$r")"
  if ! res="$(await "^rtbox/v1/up/$ID/runs/$run/result\$" "$STEP_TIMEOUT")"; then
    bad "result of run $name ($run) within ${STEP_TIMEOUT}s"; return 1
  fi
  printf '%s\n' "$res" > "$OUTD/result-$name.json"
  figure "mqtt_${name}_request_to_result_s" "$(awk -v a="$t1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}')"
  verdict="$(jq -r .verdict <<<"$res")"
  figure "mqtt_${name}_verdict" "$verdict"
  figure "mqtt_${name}_summary" "$(jq -r '"samples=\(.samples) min_us=\(.min_us) p50_us=\(.p50_us) p99_us=\(.p99_us) max_us=\(.max_us)"' <<<"$res")"
  # latency under TCG means nothing: PASS, FAIL and INCONCLUSIVE all show the probe measured;
  # ERROR (could not measure) and ABORTED do not
  case "$verdict" in
    PASS|FAIL|INCONCLUSIVE) ;;
    *) bad "run $name measured (verdict $verdict: $(jq -r .reason <<<"$res"))"; return 1 ;;
  esac
  if jq -e --arg p "$name" '.probe == $p and .complete == true and .samples > 0 and .appliance != null' <<<"$res" >/dev/null; then
    ok "remote run $name: result on the host broker, verdict $verdict, $(jq -r .samples <<<"$res") samples, max $(jq -r .max_us <<<"$res") us"
  else
    bad "run $name result: probe $name, complete, samples > 0 ($(jq -c '{probe, complete, samples}' <<<"$res"))"
    return 1
  fi
}

run_probe timer '{"duration":"5s","warmup":"1s","interval_us":1000,"policy":"fifo","priority":80,"mlock":true}'
if run_probe rtc '{"duration":"5s","warmup":"1s","policy":"fifo","priority":99,"mlock":true,"options":{"rate":1024}}'; then
  # the rate the probe set on /dev/rtc, from the full report's figures; and the samples it took
  rate="$(jq -r '[.. | objects | .rate_hz? // empty] | first // "missing"' "$OUTD/result-rtc.json")"
  samples="$(jq -r .samples "$OUTD/result-rtc.json")"
  figure mqtt_rtc_rate_hz "$rate"
  if [ "$rate" = 1024 ] || [ "$rate" = 1024.0 ]; then
    # 5 s at 1024 Hz are 5120 interrupts; under TCG some are missed (counted apart), so ask for half
    if [ "$samples" -ge 2560 ]; then ok "rtc probe ran at 1024 Hz ($samples reads in 5 s)"
    else bad "rtc probe at 1024 Hz read only $samples times in 5 s (expected about 5120)"; fi
  else
    bad "rtc probe rate: rate_hz=$rate in the result, expected 1024"
  fi
fi
run_probe tsc '{"duration":"2s","warmup":"0s","options":{"from":10,"to":1000,"step":100}}'

# ------------------------------------------------------------------ bundle swap
bundle_state() { # prints "version state" of a symbolic name from a bundles reply
  jq -r --arg n "$2" '.body.bundles[] | select(.symbolicName == $n) | "\(.version) \(.state)"' <<<"$1"
}
sha="$(sha256sum "$SWAP_JAR" | cut -d' ' -f1)"
newver="$(unzip -p "$SWAP_JAR" META-INF/MANIFEST.MF | tr -d '\r' | sed -n 's/^Bundle-Version: //p')"
req="bundles-before-$$"
command bundles "$req" '{}'
if r="$(reply "$req")" && [ "$(jq -r .code <<<"$r")" = 200 ]; then
  before="$(bundle_state "$r" rtbox.workload.pipe)"
  figure mqtt_pipe_before "${before// /_}"
  req="update-$$"
  t1="$(now)"
  jq -n --arg d "$(base64 -w0 "$SWAP_JAR")" --arg s "$sha" '{bundle: "rtbox.workload.pipe", data: $d, sha256: $s}' \
    > "$OUTD/update-body.json"
  command update "$req" "$(cat "$OUTD/update-body.json")"
  if r="$(reply "$req")"; then
    figure mqtt_update_reply_s "$(awk -v a="$t1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}')"
    if [ "$(jq -r .code <<<"$r")" = 200 ] && [ "$(jq -r .body.version <<<"$r")" = "$newver" ]; then
      ok "remote update of rtbox.workload.pipe ($(stat -c %s "$SWAP_JAR") bytes, sha256 ${sha:0:12}...): $(jq -r .message <<<"$r")"
    else
      bad "remote update of rtbox.workload.pipe to $newver: $(jq -c '{code, message}' <<<"$r")"
    fi
  else
    bad "reply to update within ${STEP_TIMEOUT}s"
  fi
  req="bundles-after-$$"
  command bundles "$req" '{}'
  if r="$(reply "$req")"; then
    after="$(bundle_state "$r" rtbox.workload.pipe)"
    figure mqtt_pipe_after "${after// /_}"
    if [ "$after" = "$newver ACTIVE" ]; then ok "bundles: rtbox.workload.pipe $newver ACTIVE after the swap (was ${before:-missing})"
    else bad "bundles after the swap: rtbox.workload.pipe is '${after:-missing}', expected '$newver ACTIVE'"; fi
  else
    bad "reply to bundles after the swap"
  fi
else
  bad "reply to bundles (before the swap): ${r:-none}"
fi

trap - EXIT
finish "done: $(grep -c '^ok' "$CHECKS") ok, $(grep -c '^FAIL' "$CHECKS") failed"
log "MQTT phase over"
