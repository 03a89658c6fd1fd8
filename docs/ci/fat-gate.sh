#!/bin/bash
# fat-gate.sh: gate a firmware release on a FAT run, with curl and jq only (docs/ci.md).
#
# Starts a plan on one rtbox appliance through the control room's API, waits for the run's
# verdict, fetches its JUnit XML, its run data and its acceptance record, and exits with the
# verdict's code as rtbox does: 0 PASS (or MEASURED), 1 FAIL, 3 INCONCLUSIVE, 2 no verdict (bad
# arguments, control room unreachable, token refused, start refused, timeout).
#
#   fat-gate.sh APPLIANCE SERIAL MODEL PLAN [OUT_DIR]
#
# PLAN is a plan of the control room's library (its name) or a plan file (JSON, sent inline).
# OUT_DIR (default rtbox-fat) gets junit.xml, run.json, result.json and record.json.
#
# Environment:
#   RTBOX_URL          the control room, e.g. https://control.plant1:8480 (required)
#   RTBOX_TOKEN_FILE   a file holding an API token (operator role) ...
#   RTBOX_TOKEN        ... or the token itself (a masked CI variable). Never an argument:
#                      arguments are visible to every local user (ps); this script hands the
#                      token to curl in a 0600 header file, not on curl's command line either.
#   RTBOX_CA           a CA certificate (PEM) for an HTTPS control room with a CA of its own
#   RTBOX_TIMEOUT      seconds to wait for the verdict (default 3600)
#   RTBOX_SIGN_OFF     1: issue the run's acceptance record if the control room did not
#                      (its signOff is "operator"); the record is then signed by the token's user
set -u

die() { echo "fat-gate: $*" >&2; exit 2; }

[ $# -ge 4 ] && [ $# -le 5 ] || die "usage: fat-gate.sh APPLIANCE SERIAL MODEL PLAN [OUT_DIR]"
appliance=$1 serial=$2 model=$3 plan=$4 out=${5:-rtbox-fat}
url=${RTBOX_URL:?fat-gate: set RTBOX_URL to the control room, e.g. https://control:8480}
timeout=${RTBOX_TIMEOUT:-3600}
command -v curl >/dev/null || die "needs curl"
command -v jq >/dev/null || die "needs jq"

if [ -n "${RTBOX_TOKEN_FILE:-}" ]; then
    [ -r "$RTBOX_TOKEN_FILE" ] || die "cannot read RTBOX_TOKEN_FILE $RTBOX_TOKEN_FILE"
    token=$(tr -d ' \r\n' < "$RTBOX_TOKEN_FILE")
elif [ -n "${RTBOX_TOKEN:-}" ]; then
    token=$RTBOX_TOKEN
else
    die "set RTBOX_TOKEN_FILE (a file holding an API token) or RTBOX_TOKEN"
fi

work=$(mktemp -d) || die "cannot make a temporary folder"
trap 'rm -rf "$work"' EXIT
# The header file is made 0600 before the token goes in; printf is a shell builtin (no process
# with the token in its arguments).
(umask 077 && printf 'Authorization: Bearer %s\n' "$token" > "$work/auth") || die "cannot write $work/auth"
unset token
mkdir -p "$out" && rm -f "$out/junit.xml" "$out/run.json" "$out/result.json" "$out/record.json" \
    || die "cannot make $out"

ca=()
[ -n "${RTBOX_CA:-}" ] && ca=(--cacert "$RTBOX_CA")

# api METHOD PATH [BODY_FILE]: the answer's body in $work/body, its HTTP status in $status.
api() {
    local body=()
    [ $# -ge 3 ] && body=(-H 'Content-Type: application/json' --data-binary "@$3")
    status=$(curl -sS "${ca[@]}" --max-time 120 -o "$work/body" -w '%{http_code}' -X "$1" -H "@$work/auth" \
        "${body[@]}" "$url/api/v1$2") || die "$1 $2: the control room at $url did not answer"
}

# Fails the gate (2) with the control room's own error text.
refused() { die "$1: HTTP $status: $(jq -r '.error // empty' "$work/body" 2>/dev/null || cat "$work/body")"; }

# 1. Start the plan (a library name, or a plan file sent inline).
if [ -f "$plan" ]; then
    jq -n --arg a "$appliance" --arg s "$serial" --arg m "$model" --slurpfile p "$plan" \
        '{plan: $p[0], targets: [{appliance: $a, serial: $s, model: $m}]}' > "$work/start.json" \
        || die "$plan is not a JSON plan"
else
    jq -n --arg a "$appliance" --arg s "$serial" --arg m "$model" --arg p "$plan" \
        '{plan: $p, targets: [{appliance: $a, serial: $s, model: $m}]}' > "$work/start.json"
fi
api POST /starts "$work/start.json"
[ "$status" = 200 ] || refused "start"
code=$(jq -r '.starts[0].code' "$work/body")
[ "$code" = 200 ] || die "the appliance $appliance did not start the plan ($code): $(jq -r '.starts[0].message' "$work/body")"
run=$(jq -r '.starts[0].run' "$work/body")
echo "fat-gate: $appliance runs $run (serial $serial, model $model); waiting up to ${timeout}s for its verdict"

# 2. Wait for the verdict: the long poll answers at the run's end or after at most 50 s.
deadline=$(( $(date +%s) + timeout ))
while :; do
    left=$(( deadline - $(date +%s) ))
    [ "$left" -gt 0 ] || die "no verdict for $run within ${timeout}s (RTBOX_TIMEOUT)"
    api GET "/runs/$appliance/$run/wait?timeout=$(( left < 50 ? left : 50 ))"
    [ "$status" = 200 ] || refused "wait for $run"
    [ "$(jq -r .done "$work/body")" = true ] && break
done
verdict=$(jq -r .verdict "$work/body")
echo "fat-gate: $run: $verdict ($(jq -r '.reason // ""' "$work/body"))"

# 3. The evidence: JUnit XML for the CI's test report, the run, its raw result, its record.
api GET "/runs/$appliance/$run/junit.xml"; [ "$status" = 200 ] || refused "junit.xml"
cp "$work/body" "$out/junit.xml"
api GET "/runs/$appliance/$run"; [ "$status" = 200 ] || refused "run"
cp "$work/body" "$out/run.json"
api GET "/runs/$appliance/$run/result.json"; [ "$status" = 200 ] || refused "result.json"
cp "$work/body" "$out/result.json"
# The run's record: the control room issues it at the verdict (signOff=verdict) or at a sign-off.
find_record() {
    api GET "/records?serial=$(jq -rn --arg s "$serial" '$s|@uri')&limit=1000"
    [ "$status" = 200 ] || refused "records"
    id=$(jq -r --arg a "$appliance" --arg r "$run" \
        '[.records[] | select(.appliance == $a and .run == $r)][0].id // empty' "$work/body")
}
find_record
if [ -z "$id" ] && [ "${RTBOX_SIGN_OFF:-}" = 1 ]; then
    jq -n --arg a "$appliance" --arg r "$run" '{appliance: $a, run: $r, comment: "signed off by fat-gate.sh"}' \
        > "$work/sign.json"
    api POST /records "$work/sign.json"
    case "$status" in
        201) id=$(jq -r .id "$work/body") ;;
        403|409) # refused (a viewer token; no self-test before the run; issued meanwhile): said, and
                 # the exit code stays the verdict's
            refusal=$(jq -r .error "$work/body")
            find_record
            [ -n "$id" ] || echo "fat-gate: no record of $run: $refusal" >&2 ;;
        *) refused "record of $run" ;;
    esac
fi
if [ -n "$id" ]; then
    api GET "/records/$id"; [ "$status" = 200 ] || refused "record $id"
    cp "$work/body" "$out/record.json"
    echo "fat-gate: record $id, SHA-256 $(jq -r .sha256 "$out/record.json")"
elif [ "${RTBOX_SIGN_OFF:-}" != 1 ]; then
    echo "fat-gate: no record of $run yet (sign it off on its run page, or set RTBOX_SIGN_OFF=1)"
fi

# 4. The verdict's exit code, as rtbox's.
case "$verdict" in
    PASS|MEASURED) exit 0 ;;
    FAIL) exit 1 ;;
    INCONCLUSIVE) exit 3 ;;
    *) die "$run ended without a verdict rtbox knows ('$verdict')" ;;
esac
