#!/usr/bin/env bash
# Issue 35's "Done when" for bundles/regression, measured on this machine with the real rtbox:
#   /work/tools/bench-alone bench/regression/run.sh [seconds=10] [same=10] [disturbed=3] [splits=20]
# 1. SAME: one plan run of a single timer cell (SCHED_FIFO 80 on CPU 0, 1 ms interval, SECONDS
#    each) with "repetitions": SAME, i.e. SAME runs of one setting, interleaving nothing else.
# 2. DISTURBED: the same plan with "repetitions": DISTURBED beside the self-test's foreign
#    disturber (rtbox.cli's DisturberProcess, 3 ms of spinning every 100 ms at SCHED_FIFO 90 on
#    CPU 0, a separate JVM): a synthetic regression of the project's own.
# Each repetition is cut into a report.json of its own (a plan run of one cell), so that
# rtbox compare can be given any subset; then, with the real rtbox compare:
#   - the first 3 SAME runs against the 3 DISTURBED runs (expected REGRESSED, exit 1);
#   - 2 + 2 and 1 + 1 of them (expected TOO FEW RUNS, exit 3, with the runs it would need);
#   - SPLITS random splits (seeded shuffles) of the SAME runs into halves (expected NO CHANGE).
# KEEP=DIR keeps the reports. The figures go to bundles/regression/README.md by hand.
set -euo pipefail
secs=${1:-10}
same=${2:-10}
disturbed=${3:-3}
splits=${4:-20}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rtbox=$root/runtime/rtbox
[ -f "$root/runtime/target/rtbox.jar" ] || (cd "$root" && mvn -q -DskipTests package)
cli_jar=$(ls "$root"/bundles/cli/target/rtbox.cli-*.jar | head -1)
out=${KEEP:-$(mktemp -d)}
mkdir -p "$out"
export RTBOX_HOME=$out/home RTBOX_DATA=$out/home/data RTBOX_JAR=$root/runtime/target/rtbox.jar
mkdir -p "$RTBOX_HOME"
cp -r "$root/runtime/etc" "$RTBOX_HOME/" 2>/dev/null || true
disturber=
cleanup() {
  [ -n "$disturber" ] && kill "$disturber" 2>/dev/null || true
  exec 3>&- 2>/dev/null || true
  [ -z "${KEEP:-}" ] && rm -rf "$out" || true
}
trap cleanup EXIT

plan() { # repetitions file
  cat > "$2" <<JSON
{"rtbox_plan": 1, "name": "regression-bench", "probe": "timer",
 "parameters": {"interval_us": 1000, "cpus": [0], "histogram_us": 20000, "mlock": true},
 "policy": "fifo:80", "warmup": "1s", "duration": "${secs}s", "repetitions": $1,
 "cells": [{"name": "timer"}]}
JSON
}

# One report.json per repetition: the plan run with that repetition's cells only.
cut_runs() { # report.json prefix
  python3 - "$1" "$2" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
cells = run["cells"]
for k, c in enumerate(cells):
    one = dict(run)
    c = dict(c); c["index"] = 0
    one["cells"] = [c]; one["cellsPlanned"] = 1; one["cellNames"] = [c["name"]]
    json.dump(one, open("%s%02d.json" % (sys.argv[2], k + 1), "w"))
print(len(cells))
PY
}

figures() { # file...: the runs' p99/p99.9/max of the timer cell, one line each
  python3 - "$@" <<'PY'
import json, sys
for f in sys.argv[1:]:
    t = json.load(open(f))["cells"][0]["report"]["result"]["threads"]
    l = max((x["latency"] for x in t), key=lambda l: l["maxNs"])
    print("%s p50 %.1f p99 %.1f p99.9 %.1f max %.1f missed %d" % (f.rsplit("/", 1)[-1], l["p50Ns"] / 1e3,
          l["p99Ns"] / 1e3, l["p999Ns"] / 1e3, l["maxNs"] / 1e3, sum(x["missedDeadlines"] for x in t)))
PY
}

start=$(date +%s)
plan "$same" "$out/same.json"
"$rtbox" plan run "$out/same.json" --report "$out/same" > "$out/same.log" 2>&1 || true
n=$(cut_runs "$out/same/report.json" "$out/s")
echo "SAME: $n runs of ${secs} s in $(( $(date +%s) - start )) s"

plan "$disturbed" "$out/disturbed.json"
coproc DIST { exec chrt -f 90 taskset -c 0 java -cp "$cli_jar" rtbox.cli.internal.DisturberProcess 3000 100 2>/dev/null; }
disturber=$DIST_PID
read -r first <&"${DIST[0]}"
case "$first" in tid\ *) ;; *) echo "the disturber did not start: $first"; exit 2 ;; esac
echo go >&"${DIST[1]}"
"$rtbox" plan run "$out/disturbed.json" --report "$out/disturbed" > "$out/disturbed.log" 2>&1 || true
eval "exec ${DIST[1]}>&-"
wait "$disturber" 2>/dev/null || true
disturber=
m=$(cut_runs "$out/disturbed/report.json" "$out/d")
echo "DISTURBED: $m runs of ${secs} s"
figures "$out"/s[0-9]*.json "$out"/d[0-9]*.json

compare() { # label A-files -- B-files
  local label=$1; shift
  local code=0
  "$rtbox" compare "$@" > "$out/cmp.txt" 2>&1 || code=$?
  echo "== $label: exit $code: $(tail -1 "$out/cmp.txt")"
}

s=("$out"/s[0-9]*.json)
d=("$out"/d[0-9]*.json)
compare "3 + 3, B disturbed" "${s[@]:0:3}" -- "${d[@]:0:3}"
cat "$out/cmp.txt"
compare "2 + 2, B disturbed" "${s[@]:0:2}" -- "${d[@]:0:2}"
grep -E "TOO FEW|REGRESSED" "$out/cmp.txt" | head -5
compare "1 + 1, B disturbed" "${s[@]:0:1}" -- "${d[@]:0:1}"
half=$(( ${#s[@]} / 2 ))
nochange=0
for i in $(seq 1 "$splits"); do
  mapfile -t order < <(python3 -c "import random,sys; r=random.Random($i); l=sys.argv[1:]; r.shuffle(l); print('\n'.join(l))" "${s[@]}")
  compare "split $i ($half + $half of SAME)" "${order[@]:0:$half}" -- "${order[@]:$half}"
  tail -1 "$out/cmp.txt" | grep -q "^NO CHANGE" && nochange=$((nochange + 1))
  grep -E "REGRESSED|IMPROVED" "$out/cmp.txt" | grep -v "^REGRESSED:\|^IMPROVED:" || true
done
echo "RESULT: splits NO CHANGE $nochange of $splits; total $(( $(date +%s) - start )) s"
