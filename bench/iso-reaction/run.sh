#!/usr/bin/env bash
# Emulated ISO's reaction (issue 19): from the ISO class's share crossing iso_cpu to the
# demotion, as the demoted thread sees it, at a 10 ms and a 4 ms tick. Goal: at most 2
# sampling intervals. The bench is IsoReactionBench in rtbox.policy.sched's test classes.
#   flock /tmp/rtbox-heavy.lock bench/iso-reaction/run.sh [trials]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"

cp=$(mktemp)
trap 'rm -f "$cp"' EXIT
mvn -q test-compile org.apache.maven.plugins:maven-dependency-plugin:3.6.1:build-classpath -pl bundles/policy.sched -am -Dmdep.outputFile="$cp" -Dmdep.includeScope=test
echo "# $(uname -srm), $(nproc) CPUs; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
java -cp "bundles/policy.sched/target/test-classes:bundles/policy.sched/target/classes:$(cat "$cp")" \
  rtbox.policy.sched.internal.IsoReactionBench "${1:-5}"
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
