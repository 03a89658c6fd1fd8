#!/usr/bin/env bash
# The pWCET estimate against longer runs on this machine (issue 36): does the maximum of a long
# run stay under what a short run's estimate says it would reach?
#   /work/tools/bench-alone bench/pwcet/run.sh [pairs=4] [short=60] [long=1800] [cpu=1] [prio=80]
# For each case (CASES, default "idle pipe periodic") and pair: SHORTS (default 1) short runs and
# one long run, alternated (the order swapped from pair to pair), same settings
# (rtbox run timer -m -p PRIO -i INTERVAL -a CPU, INTERVAL=1000 us, --load pipe:mode=rtt for "pipe"). The short run's
# fit (the model its estimate took its levels from) gives the level the long run's maximum
# exceeds with probability q (the long run has long/(interval x block) blocks: G(x)^m = 1 - q);
# the long run's maximum is compared with the short run's levels at q = 0.5 and q = 0.05 (its
# upper 95 % bound too). If the model holds, the long maximum is over the q level in a share q
# of the comparisons: the coverage at 0.05 should be about 95 %. Each long run is compared with
# every short run of its pair (SHORTS > 1: more estimates for one long run's half hour). The
# long runs are estimated too (--pwcet only reads the block maxima every run records): their
# own fit, from 1,800 blocks, is printed beside the short runs'.
# "periodic" runs short runs only, with a disturbance in their second half (a SCHED_FIFO 99
# spinner on CPU for DISTURB_MS=3 ms every DISTURB_EVERY=4 s): the checks must refuse every one.
# KEEP=DIR keeps the reports (SUMMARY_ONLY=1 KEEP=DIR: the tables again from them, no run). Prints
# one line per run and a table per case at the end; the table also gives, for every short run,
# what its maxima would have said with the checks ignored (Unchecked.java, the bundle's fits).
set -euo pipefail
pairs=${1:-4}
short=${2:-60}
long=${3:-1800}
cpu=${4:-1}
prio=${5:-80}
interval=${INTERVAL:-1000}
read -r -a cases <<< "${CASES:-idle pipe periodic}"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[ -f "$root/runtime/target/rtbox.jar" ] || (cd "$root" && mvn -q -DskipTests package)
out=${KEEP:-$(mktemp -d)}
mkdir -p "$out"
disturber=
cleanup() {
  [ -n "$disturber" ] && kill "$disturber" 2>/dev/null || true
  [ -z "${KEEP:-}" ] && rm -rf "$out" || true
}
trap cleanup EXIT

# A periodic disturbance from the run's half on: every DISTURB_EVERY s, DISTURB_MS of spinning at
# SCHED_FIFO 99 on the probe's CPU (above the probe: each wake-up in it is that late). One process,
# which pins and raises itself after its start-up, so that only the spins land on the CPU.
disturb() {
  python3 - "$1" "$2" "$cpu" "${DISTURB_MS:-3}" "${DISTURB_EVERY:-4}" <<'PY'
import os, sys, time
delay, length, cpu, ms, every = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
time.sleep(delay)
os.sched_setaffinity(0, {cpu})
os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(99))
end = time.monotonic() + length
while time.monotonic() < end:
    t = time.monotonic() + ms / 1000
    while time.monotonic() < t:
        pass
    time.sleep(every)
PY
}

run() { # case kind index seconds
  local c=$1 kind=$2 i=$3 secs=$4 load=() est=()
  [ "$c" = pipe ] && load=(--load pipe:mode=rtt)
  est=(--pwcet)
  if [ "$c" = periodic ]; then
    disturb $((secs / 2 + 1)) $((secs / 2)) & disturber=$!
  fi
  RTBOX_JAR=$root/runtime/target/rtbox.jar "$root/runtime/rtbox" run timer -q -m -p "$prio" -i "$interval" -a "$cpu" \
    -D "${secs}s" --jvm-stall-budget 1000000 "${est[@]}" "${load[@]}" --report "$out/$c-$kind-$i.json" \
    >/dev/null 2>"$out/$c-$kind-$i.err" || true
  if [ -n "$disturber" ]; then kill "$disturber" 2>/dev/null || true; wait "$disturber" 2>/dev/null || true; disturber=; fi
  python3 - "$out/$c-$kind-$i.json" "$c" "$kind" "$i" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); t = r["result"]["threads"][0]; p = r.get("pwcet")
line = "%-8s %-5s %-4s %8d samples, max %8.1f us" % (sys.argv[2], sys.argv[3], sys.argv[4], t["cycles"],
                                                   t["latency"]["maxNs"] / 1000)
if p:
    e = p["estimates"][0]
    if e["applicable"]:
        l = [x for x in e["levels"] if x["per"] == "hour" and x["probability"] == 1e-9][0]
        line += "; pWCET %s %s tail, 1e-9/h %.1f us (CI %.1f to %.1f)" % (e["model"], e["tail"], l["ns"] / 1000,
                                                                         l["lowNs"] / 1000, l["highNs"] / 1000)
    else:
        line += "; " + e["refusal"]
print(line, flush=True)
PY
}

shorts=${SHORTS:-1}
shorts() { local j; for ((j = 0; j < shorts; j++)); do run "$1" short "$2.$j" "$short"; done; }
for c in "${cases[@]}"; do
  [ -n "${SUMMARY_ONLY:-}" ] && break   # only the tables, from KEEP's reports of a run before
  for ((i = 0; i < pairs; i++)); do
    if [ "$c" = periodic ]; then
      shorts "$c" "$i"
    elif ((i % 2 == 0)); then
      shorts "$c" "$i"; run "$c" long "$i" "$long"
    else
      run "$c" long "$i" "$long"; shorts "$c" "$i"
    fi
  done
done

python3 - "$out" "$pairs" "$long" "$shorts" "$root" "${cases[@]}" <<'PY'
import glob, json, math, os, subprocess, sys
out, pairs, long_s, shorts, root, cases = (sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]),
                                           sys.argv[5], sys.argv[6:])

def level(e, y, fit):
    f = e[fit]
    mu, s, xi = f["location"], f["scale"], f["shape"]
    return (mu - s * math.log(y)) if fit == "gumbel" or xi == 0 else mu + s / xi * (y ** -xi - 1)

def coverage(name, compared):
    """compared: (long max, q 0.5 level, q 0.05 level) in us."""
    if not compared:
        return
    over50 = sum(1 for r in compared if r[0] > r[1])
    over05 = sum(1 for r in compared if r[0] > r[2])
    print("  %s: coverage at q 0.05: %d of %d (%.0f %%; 95 %% if the model holds); over the median level: %d of %d"
          " (50 %% if it holds)" % (name, len(compared) - over05, len(compared),
                                   100.0 * (len(compared) - over05) / len(compared), over50, len(compared)))

# What every short run's maxima would have given with the checks ignored (Unchecked.java, the
# bundle's own fits), so that the refusals can be judged: would those estimates have covered?
jars = glob.glob(os.path.join(root, "bundles/pwcet/target/rtbox.pwcet-*.jar"))
unchecked = {}
if jars:
    lines = []
    for c in cases:
        for i, j in ((i, j) for i in range(pairs) for j in range(shorts)):
            fs = os.path.join(out, "%s-short-%d.%d.json" % (c, i, j))
            if os.path.exists(os.path.join(out, "%s-long-%d.json" % (c, i))) and os.path.exists(fs):
                p = json.load(open(fs))["pwcet"]
                m = long_s * 1e9 / (p["intervalNs"] * p["blockSamples"])
                lines.append("%s/%d.%d %r %s" % (c, i, j, m, " ".join(map(str, p["estimates"][0]["maximaNs"]))))
    if lines:
        res = subprocess.run(["java", "-cp", jars[0], os.path.join(root, "bench/pwcet/Unchecked.java")],
                             input="\n".join(lines) + "\n", capture_output=True, text=True)
        for l in res.stdout.split("\n"):
            f = l.split()
            if len(f) == 6 and f[1] != "none":
                unchecked[f[0]] = (f[1], f[2], float(f[3]), float(f[4]) / 1000, float(f[5]) / 1000)

for NO_JVM in (False, True):
  print("\n######## the long runs' maxima %s" % ("without the appliance's own JVM pauses (the machine's)"
                                               if NO_JVM else "as measured"))
  for c in cases:
    if NO_JVM and not glob.glob(os.path.join(out, "%s-long-*.json" % c)):
        continue   # no long run (periodic): nothing differs from the first pass
    rows, refused, held = [], 0, 0
    for i, j in ((i, j) for i in range(pairs) for j in range(shorts)):
        fs = os.path.join(out, "%s-short-%d.%d.json" % (c, i, j))
        if not os.path.exists(fs):
            continue
        p = json.load(open(fs))["pwcet"]
        e = p["estimates"][0]
        fl = os.path.join(out, "%s-long-%d.json" % (c, i))
        lmax = None
        if os.path.exists(fl):
            lr = json.load(open(fl))
            lmax = lr["result"]["threads"][0]["latency"]["maxNs"] / 1000
            if NO_JVM:
                # The machine's maximum: the long run's largest block maximum that was not the
                # appliance's own JVM pause (a short run has none to model: its young collection
                # comes ~8 min into a run at 1 kHz).
                le = lr["pwcet"]["estimates"][0]
                lmax = max(x for x, k in zip(le["maximaNs"], le["maximaCauses"]) if k != "JVM pause") / 1000
        u = unchecked.get("%s/%d.%d" % (c, i, j))
        if not e["applicable"]:
            refused += 1
            rows.append(("%d.%d" % (i, j), lmax, None, None, e["refusal"], u))
            continue
        held += 1
        m = long_s * 1e9 / (p["intervalNs"] * p["blockSamples"])   # the long run's blocks
        fit = "gev" if e["model"] == "gev" else "gumbel"
        x50 = level(e, -math.log1p(-0.5) / m, fit)
        x05 = level(e, -math.log1p(-0.05) / m, fit)
        rows.append(("%d.%d" % (i, j), lmax, x50 / 1000, x05 / 1000, "", u))
    print("\n== %s: %d short runs, %d estimates held, %d refused" % (c, len(rows), held, refused))
    for r in rows:
        if r[2] is None:
            print("  short %s: refused: %s" % (r[0], r[4]))
        elif r[1] is not None:
            print("  short %s against long %s: long max %.1f us; short's level for %g s, q 0.5 %.1f us, q 0.05 %.1f us: %s"
                  % (r[0], r[0].split(".")[0], r[1], long_s, r[2], r[3], "OVER the q 0.05 level" if r[1] > r[3] else "under"))
        if r[5] is not None and r[1] is not None:
            u = r[5]
            print("    checks ignored: %s, %s tail (GEV shape %.2f), q 0.5 %.1f us, q 0.05 %.1f us against the long max"
                  " %.1f us: %s" % (u[0], u[1], u[2], u[3], u[4], r[1], "OVER the q 0.05 level" if r[1] > u[4] else "under"))
    coverage("the estimates that held", [(r[1], r[2], r[3]) for r in rows if r[2] is not None and r[1] is not None])
    coverage("all short runs, the checks ignored", [(r[1], r[5][3], r[5][4]) for r in rows
                                                    if r[5] is not None and r[1] is not None])
PY
