#!/usr/bin/env bash
# The boot test's control room: talks to the appliance in the guest over MQTT, through the test's own
# mosquitto on the host's loopback (the guest reaches it as 10.0.2.2). Started in the background by
# image/boot-test.sh; not meant to be run by hand (it needs the broker and the subscriber log that
# boot-test.sh starts).
#
#   boot-control.sh PORT APPLIANCE_ID TEST_DIR SWAP_JAR [rt]
#
# With "rt" (the boot test's second boot, on the PREEMPT_RT kernel): only the online status and one
# short plan (rt_boot below).
#
# TEST_DIR/mqtt.log is the subscriber's log ("<unix time> <topic> <payload>" per message, every
# message under rtbox/v1/up/ID/). This script waits for the appliance's retained "online" status,
# then:
#   1. sends a plan with three cells, timer, rtc (1024 Hz) and tsc, and checks the reply (200, 3 cells),
#      the plan's result (verdict measured, complete, the three cells without ERROR), each cell's
#      message (probe, samples; the rtc cell's rate_hz 1024) and the sequence numbers 1..7
#      (RTBOX_MQTT_VERB=run: three single runs instead);
#   2. runs the rtc probe (1024 Hz, FIFO 99, 15 s) under the blockio workload reading the IDE disk
#      (/dev/sda), with the appliance's kernel trace: the trace must have run in the guest and the
#      largest spikes must carry culprits from it; what it named (the IDE interrupt, the reading task,
#      or else) is a "note" line and figures, not a demand;
#   3. swaps a workload bundle: `update` of rtbox.workload.pipe with SWAP_JAR (another Bundle-Version)
#      and its SHA-256, then `bundles` must list that version ACTIVE, and a short timer run under the
#      swapped pipe workload must report its figures;
#   4. runs Debian's cyclictest in the guest (asked for over qemu's TFTP server, its figures read from the
#      serial console) and the timer probe (without the kernel trace) alternately, two pairs of 5 s, and
#      prints both (issue 37);
#   5. checks the status's kernel (stock, PREEMPT_DYNAMIC) and sends the firmware verb: an unknown entry
#      (400), then rt, the next boot's kernel (boot-test.sh's second boot must start it);
#   6. writes TEST_DIR/tftp/mqtt-done, which the guest's self test polls over qemu's TFTP server
#      (the signal that the MQTT phase is over and it may go on with the SIGKILL test).
# Each check is one line in TEST_DIR/mqtt-checks.txt: "ok <what>" or "FAIL <what>" (and "note <what>" for
# what was seen but is not checked); figures go to
# TEST_DIR/mqtt-figures.txt, payloads to TEST_DIR/mqtt/.
#
# Environment: RTBOX_MQTT_ONLINE_TIMEOUT (s, default 480) for the appliance to come online,
# RTBOX_MQTT_STEP_TIMEOUT (s, default 240) for each reply and result, RTBOX_MQTT_VERB (plan, the
# default: the three probes as one plan; run: as three single runs).
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
# run_probe LABEL PROBE PARAMETERS_JSON [MORE_FIELDS_JSON]: one remote run; checks reply and result; the
# result is in $OUTD/result-LABEL.json
run_probe() {
  local name="$1" probe="$2" params="$3" more="${4:-}" req="run-$1-$$" r code run res verdict t1
  [ -n "$more" ] || more='{}'
  t1="$(now)"
  command run "$req" "$(jq -c -n --arg p "$probe" --argjson pa "$params" --argjson m "$more" '{probe: $p, parameters: $pa} + $m')" \
    || { bad "publish run $name"; return 1; }
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
  # latency under TCG means nothing: PASS, FAIL, INCONCLUSIVE and MEASURED (no thresholds) all show the probe measured;
  # ERROR (could not measure) and ABORTED do not
  case "$verdict" in
    PASS|FAIL|INCONCLUSIVE|MEASURED) ;;
    *) bad "run $name measured (verdict $verdict: $(jq -r .reason <<<"$res"))"; return 1 ;;
  esac
  if jq -e --arg p "$probe" '.probe == $p and .complete == true and .samples > 0 and .appliance != null' <<<"$res" >/dev/null; then
    ok "remote run $name: result on the host broker, verdict $verdict, $(jq -r .samples <<<"$res") samples, max $(jq -r .max_us <<<"$res") us"
  else
    bad "run $name result: probe $name, complete, samples > 0 ($(jq -c '{probe, complete, samples}' <<<"$res"))"
    return 1
  fi
}

# rtc_at_1024 FILE: the rtc result or cell in FILE ran at 1024 Hz (rate_hz in the report's figures) and
# read at least half of the 5,120 interrupts of 5 s (under TCG some are missed; they are counted apart)
rtc_at_1024() {
  local rate samples
  rate="$(jq -r '[.. | objects | .rate_hz? // empty] | first // "missing"' "$1")"
  samples="$(jq -r '.samples // 0' "$1")"
  figure mqtt_rtc_rate_hz "$rate"
  if [ "$rate" = 1024 ] || [ "$rate" = 1024.0 ]; then
    if [ "$samples" -ge 2560 ]; then ok "rtc probe ran at 1024 Hz ($samples reads in 5 s)"
    else bad "rtc probe at 1024 Hz read only $samples times in 5 s (expected about 5120)"; fi
  else
    bad "rtc probe rate: rate_hz=$rate in the result, expected 1024"
  fi
}

# The acceptance test plan the board's factory test would send: timer (FIFO 80), RTC at 1024 Hz
# (FIFO 99) and the TSC sweep, one cell each, no thresholds (latency under TCG means nothing).
PLAN='{"rtbox_plan":1,"name":"boottest","description":"image boot test: timer, RTC at 1024 Hz, TSC",
  "probe":"timer","policy":"fifo:80","warmup":"1s","duration":"5s",
  "parameters":{"interval_us":1000,"mlock":true},
  "cells":[{"name":"timer"},
           {"name":"rtc","probe":"rtc","policy":"fifo:99","parameters":{"options":{"rate":"1024"}}},
           {"name":"tsc","probe":"tsc","warmup":"0s","duration":"2s",
            "parameters":{"options":{"from":"10","to":"1000","step":"100"}}}]}'
run_plan() {
  local req="plan-$$" r code run res t1 n c v
  t1="$(now)"
  command plan "$req" "$(jq -c -n --argjson p "$PLAN" '{plan: $p}')" || { bad "publish plan"; return 1; }
  if ! r="$(reply "$req")"; then bad "reply to plan within ${STEP_TIMEOUT}s"; return 1; fi
  code="$(jq -r .code <<<"$r")"
  if [ "$code" != 200 ] || [ "$(jq -r .body.cells <<<"$r")" != 3 ]; then
    bad "plan accepted with 3 cells (reply $(jq -c '{code, message, body}' <<<"$r" | head -c 600))"; return 1
  fi
  run="$(jq -r .body.run <<<"$r")"
  if ! res="$(await "^rtbox/v1/up/$ID/runs/$run/result\$" $((STEP_TIMEOUT * 2)))"; then
    bad "result of plan $run within $((STEP_TIMEOUT * 2))s"; return 1
  fi
  printf '%s\n' "$res" > "$OUTD/result-plan.json"
  figure mqtt_plan_request_to_result_s "$(awk -v a="$t1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}')"
  figure mqtt_plan_verdict "$(jq -r .verdict <<<"$res")"
  figure mqtt_plan_cells "$(jq -c '[.cells[]? | {name, verdict, max_us}]' <<<"$res")"
  # the plan's result: measured (only ERROR, could not run, and ABORTED fail), complete, all three cells
  if jq -e '(.verdict | IN("PASS","FAIL","INCONCLUSIVE","MEASURED")) and .state == "complete" and .cells_run == 3
            and ([.cells[].name] == ["timer","rtc","tsc"]) and all(.cells[]; .verdict != "ERROR")' <<<"$res" >/dev/null; then
    ok "remote plan: result on the host broker, verdict $(jq -r .verdict <<<"$res"), cells $(jq -r '[.cells[] | "\(.name) \(.verdict) max \(.max_us) us"] | join(", ")' <<<"$res")"
  else
    bad "plan result: verdict measured, complete, cells timer, rtc, tsc without ERROR: $(jq -c '{verdict, reason, state, cells_run, cells}' <<<"$res" | head -c 800)"
  fi
  # each cell's own message, with its figures; the sequence numbers 1..7 without a gap
  for c in timer rtc tsc; do
    if v="$(await "^rtbox/v1/up/$ID/runs/$run/cell\$" 5 ".cell_name == \"$c\"")"; then
      printf '%s\n' "$v" > "$OUTD/cell-$c.json"
      figure "mqtt_${c}_verdict" "$(jq -r .verdict <<<"$v")"
      figure "mqtt_${c}_summary" "$(jq -r '"samples=\(.samples) min_us=\(.min_us) p50_us=\(.p50_us) p99_us=\(.p99_us) max_us=\(.max_us)"' <<<"$v")"
      if ! jq -e --arg p "$c" '.probe == $p and .samples > 0' <<<"$v" >/dev/null; then
        bad "plan cell $c: probe $c with samples ($(jq -c '{probe, samples, verdict, reason}' <<<"$v"))"
      fi
    else
      bad "plan cell $c: no cell message on the host broker"
    fi
  done
  [ -f "$OUTD/cell-rtc.json" ] && rtc_at_1024 "$OUTD/cell-rtc.json"
  n="$(awk -v re="^rtbox/v1/up/$ID/runs/$run/" '$2 ~ re {sub(/^[^ ]* [^ ]* /, ""); print}' "$SUBLOG" \
       | jq -r .sequence | sort -n | uniq | paste -sd,)"
  if [ "$n" = "1,2,3,4,5,6,7" ]; then ok "plan messages numbered 1..7 without a gap (3 progress, 3 cells, result)"
  else bad "plan sequence numbers $n, expected 1,2,3,4,5,6,7"; fi
}

# ------------------------------------------------------------------ the second boot: PREEMPT_RT
# MODE rt (boot-test.sh's second boot, on the kernel the firmware verb chose in the first): the status
# names PREEMPT_RT; one short plan (a timer cell of 2 s) runs, and its cell's system block names the
# kernel and PREEMPT_RT. Then the guest powers off.
RT_PLAN='{"rtbox_plan":1,"name":"boottest-rt","description":"image boot test on the PREEMPT_RT kernel",
  "probe":"timer","policy":"fifo:80","warmup":"1s","duration":"2s",
  "parameters":{"interval_us":1000,"mlock":true},"cells":[{"name":"timer"}]}'
rt_boot() {
  local st req="plan-rt-$$" r run res v sys
  st="$(jq -c '{kernel, preemption, boot_entry}' "$OUTD/status-online.json")"
  figure mqtt_rt_status_kernel "$st"
  if jq -e '.boot_entry == "rt" and .preemption == "PREEMPT_RT" and (.kernel | test("-rt-686-pae$"))' \
      "$OUTD/status-online.json" >/dev/null; then ok "rt boot: the status names the PREEMPT_RT kernel the firmware verb chose ($st)"
  else bad "rt boot: status names kernel *-rt-686-pae, PREEMPT_RT, entry rt ($st)"; fi
  command plan "$req" "$(jq -c -n --argjson p "$RT_PLAN" '{plan: $p}')" || { bad "publish plan"; return 1; }
  if ! r="$(reply "$req")" || [ "$(jq -r .code <<<"$r")" != 200 ]; then
    bad "rt boot: plan accepted (reply $(jq -c '{code, message}' <<<"${r:-null}" | head -c 400))"; return 1
  fi
  run="$(jq -r .body.run <<<"$r")"
  if ! res="$(await "^rtbox/v1/up/$ID/runs/$run/result\$" $((STEP_TIMEOUT * 2)))"; then
    bad "rt boot: result of plan $run within $((STEP_TIMEOUT * 2))s"; return 1
  fi
  v="$(await "^rtbox/v1/up/$ID/runs/$run/cell\$" 5 '.cell_name == "timer"')" || { bad "rt boot: no cell message"; return 1; }
  printf '%s\n' "$v" > "$OUTD/cell-rt-timer.json"
  figure mqtt_rt_timer_summary "$(jq -r '"samples=\(.samples) min_us=\(.min_us) p50_us=\(.p50_us) p99_us=\(.p99_us) max_us=\(.max_us)"' <<<"$v")"
  if jq -e '(.verdict | IN("PASS","FAIL","INCONCLUSIVE","MEASURED")) and .state == "complete" and .cells_run == 1' <<<"$res" >/dev/null \
      && jq -e '.probe == "timer" and .samples > 0' <<<"$v" >/dev/null; then
    ok "rt boot: plan measured on the PREEMPT_RT kernel, verdict $(jq -r .verdict <<<"$res"), $(jq -r .samples <<<"$v") samples, max $(jq -r .max_us <<<"$v") us"
  else bad "rt boot: plan measured, complete, 1 cell with samples ($(jq -c '{verdict, reason, state, cells_run}' <<<"$res" | head -c 400))"; fi
  sys="$(jq -c '[.. | objects | select(has("preemption") and has("release")) | {release, preemption, realtime, boot_entry, rt_throttling}] | first' <<<"$v")"
  figure mqtt_rt_system "$sys"
  if jq -e '.preemption == "PREEMPT_RT" and .realtime == "1" and .boot_entry == "rt" and (.release | test("-rt-686-pae$"))' <<<"$sys" >/dev/null
  then ok "rt boot: the cell's system block names PREEMPT_RT ($sys)"
  else bad "rt boot: the cell's system block names PREEMPT_RT, realtime 1, entry rt ($sys)"; fi
}
if [ "${5:-}" = rt ]; then
  rt_boot
  trap - EXIT
  finish "done: $(grep -c '^ok' "$CHECKS") ok, $(grep -c '^FAIL' "$CHECKS") failed"
  log "MQTT phase of the rt boot over"
  exit 0
fi

# RTBOX_MQTT_VERB=plan (default): the probes as one plan of three cells; run: three single runs (the
# run verb is also used after the swap below)
if [ "${RTBOX_MQTT_VERB:-plan}" = plan ]; then
  run_plan
else
  run_probe timer timer '{"duration":"5s","warmup":"1s","interval_us":1000,"policy":"fifo","priority":80,"mlock":true}'
  run_probe rtc rtc '{"duration":"5s","warmup":"1s","policy":"fifo","priority":99,"mlock":true,"options":{"rate":1024}}' \
    && rtc_at_1024 "$OUTD/result-rtc.json"
  run_probe tsc tsc '{"duration":"2s","warmup":"0s","options":{"from":10,"to":1000,"step":100}}'
fi

# ------------------------------------------------------------------ kernel trace: RTC under disk reads
# The RTC probe (1024 Hz, FIFO 99, 15 s) while rtbox.workload.blockio reads the IDE disk (/dev/sda on
# ata_piix, the guest's own root disk, read-only) as fast as it goes, with the appliance's kernel trace
# (rtbox.trace, on by default): the trace must have run in the guest's i386 kernel and the largest
# spikes must carry what it saw holding the CPU (issue 13). Which culprit it names is recorded and
# printed, not demanded: under TCG qemu does the disk's DMA outside the guest's CPU, so the guest may
# see little of the disk in its own trace.
TRACE_TOP=3
# culprit_text: a culprit object as rtbox.api.result.Culprit's toString says it, in jq
CULPRIT='def dur: if . >= 10000000 then "\(. / 1000000 | round) ms" else "\(. / 1000 | round) us" end;
  def culprit: (if .kind == "irq" then "IRQ \(.id) \(.name)" elif .kind == "softirq" then "softirq \(.name)"
    else "\(.name) (pid \(if .pid > 0 and .pid != .id then "\(.pid), tid \(.id)" else .id end)\(if .ownJvm then ", this JVM" else "" end)\(if .policy == "SCHED_OTHER" then ", nice \(.priority)" elif .policy != "" then ", \(.policy) \(.priority)" else "" end))" end)
    + " " + (.durationNs | dur);'
trace_run() {
  local f="$OUTD/result-rtc_blockio.json" note n top reads spikes attempt covered
  # Whether a spike over 10x the median comes in 15 s depends on the host under TCG: one CI run had a
  # 6.2 ms maximum and none. Up to three runs, so that the attribution is checked rather than the host's
  # luck; the test fails only if none of them had a spike.
  for attempt in 1 2 3; do
    run_probe rtc_blockio rtc '{"duration":"15s","warmup":"1s","policy":"fifo","priority":99,"mlock":true,"options":{"rate":1024}}' \
      '{"loads":["blockio:path=/dev/sda"]}' || return 1
    n="$(jq '[.report.result.threads[].spikes[]?] | length' "$f")"
    figure "mqtt_trace_attempt_${attempt}_spikes" "$n"
    # A run whose largest spikes the trace covered none of (events lost, or a stall the guest cannot
    # see: one CI run had a single 14 ms spike and no event in it) exercises nothing either: run again.
    # Broken attribution still fails: no run of three would be covered.
    covered="$(jq '[.report.result.threads[].spikes[]?] | sort_by(-.latencyNs) | .[:'"$TRACE_TOP"']
      | any((.culprits | length) > 0 or (.detail | contains("kernel'"'"'s trace shows nothing else")))' "$f")"
    [ "$n" != 0 ] && [ "$covered" = true ] && break
    [ "$n" != 0 ] && log "rtc under blockio, run $attempt: $n spikes, none of the largest covered by the trace"
    [ "$n" != 0 ] && continue
    log "rtc under blockio, run $attempt: no spike over 10x the median (p50 $(jq -r .p50_us "$f") us, max $(jq -r .max_us "$f") us)"
  done
  reads="$(jq -r '.report.workloads.blockio.reads // 0' "$f")"
  figure mqtt_trace_blockio "$(jq -c '.report.workloads.blockio // {} | {reads, mb_per_s, dma, read_us_p50, read_us_max, errors}' "$f")"
  if [ "${reads%.*}" -gt 0 ] 2>/dev/null; then ok "blockio read the IDE disk /dev/sda under the rtc probe ($(jq -r '.report.workloads.blockio | "\(.reads) reads of 64 KiB, \(.mb_per_s * 10 | round / 10) MB/s, dma=\(.dma)"' "$f"))"
  else bad "blockio read nothing from /dev/sda under the rtc probe (workloads: $(jq -c '.report.workloads // {}' "$f"))"; return 1; fi
  note="$(jq -r '[.report.result.notes[]? | select(startswith("kernel trace on CPU"))] | first // empty' "$f")"
  figure mqtt_trace_note "${note:-none}"
  if [ -n "$note" ] && [[ "$note" =~ :\ ([0-9]+)\ events ]] && [ "${BASH_REMATCH[1]}" -gt 0 ]; then
    ok "kernel trace in the guest's i386 kernel: $note"
  else
    bad "kernel trace in the guest: no 'kernel trace on CPU N: EVENTS events' note (notes: $(jq -c '[.report.result.notes[]? | select(test("trace"))]' "$f"))"
    return 1
  fi
  # every spike the run labelled, largest first, each with its culprits
  spikes="$(jq -c '[.report.result.threads[].spikes[]?] | sort_by(-.latencyNs)' "$f")"
  n="$(jq length <<<"$spikes")"
  figure mqtt_trace_spikes "$n"
  if [ "$n" = 0 ] && awk -v p="$(jq -r .p50_us "$f")" 'BEGIN { exit !(p >= 488) }'; then
    # The median wake-up was half the RTC's 976 us period or more: the emulated guest did not keep
    # the 1024 Hz pace (a loaded host under TCG), so every sample is late and nothing stands 10x
    # above the median. Nothing to attribute, said as such; on a guest that keeps pace it fails.
    echo "note rtc under blockio: attribution not exercised: the guest did not keep the RTC's 1024 Hz pace in $attempt runs of 15 s (the last: p50 $(jq -r .p50_us "$f") us of a 976 us period, max $(jq -r .max_us "$f") us), so no spike stood 10x over the median" >> "$CHECKS"
    return 0
  fi
  if [ "$n" = 0 ]; then
    bad "rtc under blockio: no spike to attribute (none over 10x the median in $attempt runs of 15 s; the last: p50 $(jq -r .p50_us "$f") us, max $(jq -r .max_us "$f") us)"
    return 1
  fi
  top=$(( n < TRACE_TOP ? n : TRACE_TOP ))
  jq -r "$CULPRIT"' .[:'"$top"'][] | "at \(.offsetNs / 1e9 * 1000 | round / 1000) s: \(.latencyNs | dur), \(.cause): \(.detail)"
        + (if (.culprits | length) > 0 then "; on the CPU: " + ([.culprits[:4][] | culprit] | join("; ")) else "; no culprit" end)' \
    <<<"$spikes" > "$TD/trace-spikes.txt"
  # traced: a culprit list, or the trace's own word that nothing else ran (the wake-up came late); a spike
  # the trace did not cover (before it started, events lost) has neither
  if jq -e '.[:'"$top"'] | all((.culprits | length) > 0 or (.detail | contains("kernel'"'"'s trace shows nothing else")))
            and any((.culprits | length) > 0)' <<<"$spikes" >/dev/null; then
    ok "the $top largest of $n spikes under blockio name what held the CPU from the kernel's trace: $(paste -sd'|' "$TD/trace-spikes.txt" | sed 's/|/ | /g')"
  else
    bad "the $top largest of $n spikes under blockio without culprits from the kernel's trace: $(paste -sd'|' "$TD/trace-spikes.txt" | sed 's/|/ | /g')"
  fi
  # what the trace named, over all spikes: the culprits by time held, and whether the disk's interrupt
  # handler or the reading thread is among them (recorded, not demanded)
  figure mqtt_trace_top_culprits "$(jq -r "$CULPRIT"' [.[].culprits[]] | group_by([.kind, .name, .id]) | map(.[0] + {durationNs: (map(.durationNs) | add), n: length})
        | sort_by(-.durationNs) | .[:6] | map("\(culprit) in \(.n) spike\(if .n > 1 then "s" else "" end)") | join("; ")
        | if . == "" then "none" else . end' <<<"$spikes")"
  # in_top(SELECT): "WHO in K of the TOP largest: T1, T2" (the time it held the CPU in each), or "none"
  in_top() {
    jq -r "$CULPRIT"' .[:'"$top"'] | [.[] | [.culprits[] | select('"$1"')] | first // empty]
      | if length == 0 then "none" else "\(.[0] | culprit | sub(" [0-9]+ [mu]s$"; "")) in \(length) of the '"$top"' largest: \(map(.durationNs | dur) | join(", "))" end' <<<"$spikes"
  }
  figure mqtt_trace_ide_irq "$(in_top '.kind == "irq" and (.name | test("ata|ide|pata"))')"
  figure mqtt_trace_reader "$(in_top '.kind == "task" and .name == "rtbox-blockio"')"
  echo "note trace named: the IDE interrupt: $(sed -n 's/^mqtt_trace_ide_irq=//p' "$FIG"); the reading task: $(sed -n 's/^mqtt_trace_reader=//p' "$FIG"); over all $n spikes, by time held: $(sed -n 's/^mqtt_trace_top_culprits=//p' "$FIG")" >> "$CHECKS"
  log "$(tail -n1 "$CHECKS")"
}
trace_run

# ------------------------------------------------------------------ the graph under emulated SCHED_ISO
# Seed 004's experiment in the guest (issue 19): the graph probe, driven by the RTC (64 Hz: a 15.6 ms
# period that TCG keeps), 4 client threads at 50 % DSP load, under iso@70. The guest's kernel has no
# SCHED_ISO, so the tuner emulates its rule: the cell must say so, and count cycles and xruns with the
# ISO figures. Whether it demotes or counts xruns is recorded, not demanded (TCG's timing).
GRAPH_PLAN='{"rtbox_plan":1,"name":"boottest-graph","description":"image boot test: the graph at iso@70",
  "probe":"graph","policy":"iso@70","warmup":"1s","duration":"5s","tuning":{"iso_period_ms":1000},
  "parameters":{"mlock":true,"options":{"clock":"rtc","rtc_hz":"64","clients":"4","load":"50"}}}'
graph_run() {
  local req="plan-graph-$$" r code run res cell
  command plan "$req" "$(jq -c -n --argjson p "$GRAPH_PLAN" '{plan: $p}')" || { bad "publish graph plan"; return 1; }
  if ! r="$(reply "$req")"; then bad "reply to the graph plan within ${STEP_TIMEOUT}s"; return 1; fi
  code="$(jq -r .code <<<"$r")"
  if [ "$code" != 200 ]; then bad "graph plan accepted (reply $(jq -c '{code, message}' <<<"$r" | head -c 600))"; return 1; fi
  run="$(jq -r .body.run <<<"$r")"
  if ! res="$(await "^rtbox/v1/up/$ID/runs/$run/result\$" "$STEP_TIMEOUT")"; then
    bad "result of the graph plan $run within ${STEP_TIMEOUT}s"; return 1
  fi
  if ! cell="$(await "^rtbox/v1/up/$ID/runs/$run/cell\$" 5)"; then bad "graph plan: no cell message"; return 1; fi
  printf '%s\n' "$cell" > "$OUTD/cell-graph.json"
  figure mqtt_graph_verdict "$(jq -r .verdict <<<"$cell")"
  figure mqtt_graph_rule "$(jq -r '.tuner["sched.rule"] // "none"' <<<"$cell")"
  figure mqtt_graph_figures "$(jq -c '.report.result.figures | with_entries(select(.key | test("cycles|xruns|dsp_load|iso_")))' <<<"$cell")"
  if jq -e '.probe == "graph" and (.verdict | IN("PASS","FAIL","INCONCLUSIVE","MEASURED"))
            and ((.tuner["sched.rule"] // "") | startswith("emulated ISO"))
            and (.report.result.figures | (.cycles // 0) > 0 and has("xruns") and has("iso_demotions"))' <<<"$cell" >/dev/null; then
    ok "graph probe at iso@70 in the guest, driven by the RTC at 64 Hz: $(jq -r '.report.result.figures as $f | "\($f.cycles | floor) cycles, \($f.xruns | floor) xruns, DSP load \($f.dsp_load_pct * 10 | round / 10) %, \($f.iso_demotions | floor) demotions; rule: \(.tuner["sched.rule"])"' <<<"$cell" | head -c 400)"
  else
    bad "graph probe at iso@70: probe graph measured under the emulated ISO rule with cycles, xruns and ISO figures: $(jq -c '{verdict, reason, tuner, figures: .report.result.figures}' <<<"$cell" | head -c 800)"
  fi
}
graph_run

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
  # the new version works: a short timer run under its pipe ping-pong (on i386 the round trip is
  # rtbox.os.PipeLoop's machine-code loop, which p3scan then sees executed on the Pentium III)
  if run_probe timer-pipe timer '{"duration":"3s","warmup":"0s","interval_us":1000,"policy":"fifo","priority":80}' \
       '{"loads":["pipe:mode=rtt"]}'; then
    w="$(jq -c '.report.workloads // {}' "$OUTD/result-timer-pipe.json")"
    figure mqtt_pipe_load "$w"
    if jq -e 'length > 0 and ([.. | numbers] | any(. > 0))' <<<"$w" >/dev/null; then
      ok "the swapped rtbox.workload.pipe ran as the load of a remote run: $(jq -r '.pipe // {} | "\(.round_trips) round trips, machine_code_loop=\(.machine_code_loop), errors=\(.errors)"' <<<"$w")"
    else
      bad "the swapped pipe workload reported no figures in the run's report (workloads: $w)"
    fi
  fi
else
  bad "reply to bundles (before the swap): ${r:-none}"
fi

# ------------------------------------------------------------------ timer probe beside cyclictest
# Debian's cyclictest in the guest and the appliance's timer probe, alternated (issue 37): the same
# parameters (FIFO 99, 1 ms, 5 s, memory locked, 1 us histogram to 20,000 us), two pairs, the order of
# the second pair reversed. The guest runs cyclictest when it finds ct-go-K on qemu's TFTP server (its
# MQTT-phase loop polls every 2 s) and prints its figures on the serial console; the timer probe runs
# as any remote run. Both read the same way: min, then p50, p90, p99 and mean from the 1 us buckets, as both
# tools truncate. Under TCG the timings are not the board's, but a fixed cost per wake-up on rtbox's
# side shows as a difference at p50 and in the mean. The timer's notes must say that the i386
# machine-code wake-up path ran (rtbox.os.WakeStamp; the p3scan plugin watches its instructions).
# Like for like, bare against bare: at its first ct-go the guest writes enabled=false to the
# appliance's etc/rtbox.trace.cfg (FileInstall applies it within its 2 s poll, during cyclictest's
# 5 s) and removes it when the MQTT phase is over; the kernel trace costs each wake-up on rtbox's
# side (bench/timer-vs-cyclictest/README.md). Last in the MQTT phase, so that no run after it wants
# the trace; a check demands the timer's note that the trace was off.
SERIAL="$TD/serial.log"
SIDE_S=5
side_params='{"duration":"'$SIDE_S's","warmup":"1s","interval_us":1000,"policy":"fifo","priority":99,"mlock":true,"histogram_us":20000}'
# cyclictest_in_guest K: asks the guest for cyclictest run K; prints its figures min/p50/p90/p99/mean/max/cycles
cyclictest_in_guest() {
  local k="$1" end v
  echo "$SIDE_S" > "$TD/tftp/ct-go-$k.tmp" && mv "$TD/tftp/ct-go-$k.tmp" "$TD/tftp/ct-go-$k"
  end=$(( $(date +%s) + STEP_TIMEOUT ))
  while [ "$(date +%s)" -le "$end" ]; do
    v="$(sed -n "s/.*RTBOX-METRIC cyclictest_$k=\([^ ]*\).*/\1/p" "$SERIAL" 2>/dev/null | tr -d '\r' | tail -n1)"
    [ -n "$v" ] && { echo "$v"; return 0; }
    sleep 1
  done
  return 1
}
# timer_in_appliance LABEL: the timer probe as a remote run; prints its figures as cyclictest's
timer_in_appliance() {
  run_probe "$1" timer "$side_params" >&2 || return 1
  jq -r 'if .histogram_bucket_us != 1 then "bucket \(.histogram_bucket_us) us" else
      . as $r | $r.histogram as $h | ($h | add) as $n | [foreach $h[] as $c (0; . + $c)] as $cum
      | [$r.min_us | floor] + [(0.5, 0.9, 0.99) as $q | ($cum | map(. >= $q * $n) | index(true))]
        + [((reduce range(0; $h | length) as $i (0; . + $i * $h[$i])) / $n * 100 | round) / 100]
        + [($r.max_us | floor), $r.samples] | map(tostring) | join("/") end' "$OUTD/result-$1.json"
}
side_by_side() {
  local k ct rt order arm v rows="" path
  for k in 1 2; do
    order="ct rt"; [ "$k" = 2 ] && order="rt ct"
    ct="" rt=""
    for arm in $order; do
      if [ "$arm" = ct ]; then
        ct="$(cyclictest_in_guest "$k")" || { bad "cyclictest run $k in the guest: no figures on the serial console within ${STEP_TIMEOUT}s"; return 1; }
      else
        rt="$(timer_in_appliance "timer_side_$k")" || return 1
      fi
    done
    [[ "$ct" =~ ^[0-9]+/[0-9]+/[0-9]+/[0-9]+/[0-9.]+/[0-9]+/[0-9]+$ ]] || { bad "cyclictest run $k figures: '$ct'"; return 1; }
    [[ "$rt" =~ ^[0-9]+/[0-9]+/[0-9]+/[0-9]+/[0-9.]+/[0-9]+/[0-9]+$ ]] || { bad "timer run $k figures: '$rt'"; return 1; }
    figure "guest_cyclictest_$k" "$ct"
    figure "guest_rtbox_timer_$k" "$rt"
    rows="$rows$ct $rt"$'\n'
  done
  figure guest_side_by_side_fields "min/p50/p90/p99/mean/max us/cycles, FIFO 99, 1 ms, ${SIDE_S} s, pairs alternated"
  # rtbox - cyclictest per pair: the per-wake-up cost of rtbox's path against cyclictest's. Under TCG
  # the host's load moves p50 and the mean by tens of us between runs; the minimum (the wake-up
  # nothing else got in the way of) shows a fixed cost best.
  figure guest_rtbox_minus_cyclictest "$(awk -F'[/ ]' 'NF >= 14 { printf "%spair %d: min %+d us, p50 %+d us, mean %+.2f us", (NR > 1 ? "; " : ""), NR, $8 - $1, $9 - $2, $12 - $5 }' <<<"$rows")"
  ok "cyclictest and the timer probe side by side in the guest: $(awk -F'[/ ]' 'NF >= 14 { printf "%spair %d min %d/%d us, p50 %d/%d us, mean %.2f/%.2f us", (NR > 1 ? "; " : ""), NR, $1, $8, $2, $9, $5, $12 }' <<<"$rows") (cyclictest/rtbox)"
  for k in 1 2; do
    if jq -e '[.report.result.notes[]? | select(startswith("no kernel trace: the kernel trace is off"))] | length > 0' \
        "$OUTD/result-timer_side_$k.json" >/dev/null; then ok "like for like: timer run $k beside cyclictest ran without the kernel trace"
    else bad "timer run $k beside cyclictest: no note that the kernel trace was off (notes: $(jq -c '[.report.result.notes[]? | select(test("trace"))]' "$OUTD/result-timer_side_$k.json"))"; fi
  done
  path="$(jq -r '[.report.result.notes[]? | select(startswith("wake-up path: "))] | first // "none"' "$OUTD/result-timer_side_1.json")"
  figure guest_timer_wakeup_path "$path"
  if [[ "$path" == "wake-up path: machine code: clock_nanosleep"* ]]; then ok "the timer probe in the guest woke through the i386 machine code ($path)"
  else bad "the timer probe in the guest did not use the machine-code wake-up ($path)"; fi
}
side_by_side

# ------------------------------------------------------------------ the next boot's kernel (issue 35)
# The status names the kernel and its preemption model; the firmware verb (rtbox firmware kernel's)
# makes the PREEMPT_RT kernel the next boot's: the appliance rewrites syslinux.cfg's DEFAULT on its boot
# partition, and boot-test.sh boots the same disk again, which must start the rt entry.
firmware_next() {
  local st r
  st="$(jq -c '{kernel, preemption, boot_entry}' "$OUTD/status-online.json")"
  figure mqtt_status_kernel "$st"
  if jq -e '.boot_entry == "stock" and (.preemption | startswith("PREEMPT_DYNAMIC")) and (.kernel | test("-686$"))' \
      "$OUTD/status-online.json" >/dev/null; then ok "status names the stock kernel and its preemption model ($st)"
  else bad "status names the stock kernel, PREEMPT_DYNAMIC, entry stock ($st)"; fi
  command firmware fw-bad '{"kernel":"lowlatency"}' || { bad "publish firmware"; return 1; }
  r="$(reply fw-bad)" || { bad "firmware reply within ${STEP_TIMEOUT}s"; return 1; }
  if jq -e '.code == 400 and (.message | test("kernel .lowlatency. is not an entry of /boot/syslinux.cfg: it has stock, rt"))' <<<"$r" >/dev/null
  then ok "firmware: an entry the image does not have is refused, naming those it has ($(jq -r .message <<<"$r"))"
  else bad "firmware lowlatency: 400 naming stock, rt ($(jq -c '{code, message}' <<<"$r"))"; fi
  command firmware fw-rt '{"kernel":"rt"}' || { bad "publish firmware"; return 1; }
  r="$(reply fw-rt)" || { bad "firmware reply within ${STEP_TIMEOUT}s"; return 1; }
  if jq -e '.code == 200 and .body.next == "rt" and .body.was == "stock" and .body.booted == "stock" and .body.reboot == false' <<<"$r" >/dev/null
  then ok "firmware: the next boot's kernel is rt, written on the guest's boot partition ($(jq -r .message <<<"$r"))"
  else bad "firmware rt: 200, next rt, was stock ($(jq -c '{code, message, body}' <<<"$r"))"; fi
}
firmware_next

trap - EXIT
finish "done: $(grep -c '^ok' "$CHECKS") ok, $(grep -c '^FAIL' "$CHECKS") failed"
log "MQTT phase over"
