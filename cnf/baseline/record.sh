#!/bin/sh
# cnf/baseline/record.sh VERSION: records every bundle that exports a package, built from
# the tree as it is, as rtbox's release VERSION in this folder (a Maven repository), for
# bnd's baseline. Then set <rtbox.baseline.version>VERSION</rtbox.baseline.version> in
# pom.xml. A recorded release never changes (Maven caches it in ~/.m2 by its version):
# record a new one under a new version. See README.md here.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 VERSION" >&2; exit 2; }
V=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
mvn -q -o -DskipTests package -pl '!runtime'
for j in bundles/*/target/rtbox.*-SNAPSHOT.jar; do
    unzip -p "$j" META-INF/MANIFEST.MF | grep -q '^Export-Package:' || continue
    a=rtbox.$(basename "$(dirname "$(dirname "$j")")")
    d=cnf/baseline/rtbox/$a/$V
    if [ -e "$d" ]; then
        echo "$d exists: a recorded release never changes; record under a new version" >&2
        exit 1
    fi
    mkdir -p "$d"
    cp "$j" "$d/$a-$V.jar"
    sha1sum "$d/$a-$V.jar" | cut -d' ' -f1 | tr -d '\n' > "$d/$a-$V.jar.sha1"
    md5sum "$d/$a-$V.jar" | cut -d' ' -f1 | tr -d '\n' > "$d/$a-$V.jar.md5"
    echo "recorded $d"
done
