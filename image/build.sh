#!/usr/bin/env bash
# Build the rtbox firmware image for the Pentium III board (32-bit x86, no SSE2).
#
#   image/build.sh [PATH/TO/board.jar]
#
# Everything comes from Debian 12 (bookworm) i386 packages, fetched with a private
# apt configuration (no i386 foreign architecture on the host, no chroot, no mounts),
# plus the appliance jar built by Maven. Output: image/out/rtbox.img (raw disk, MBR:
# 1 = FAT16 boot with SYSLINUX, 2 = ext4 root without journal, read-only,
# 3 = ext4 data, read-write). See image/README.md.
#
# Environment:
#   RTBOX_JAR            appliance jar (default: <repo>/runtime/target/board.jar, runtime/board.bndrun: no embedded
#                        broker, no ctl; installed as the image's /opt/rtbox/lib/rtbox.jar; missing -> image without it)
#   RTBOX_LAUNCHER       launcher script (default: <repo>/runtime/rtbox if present)
#   RTBOX_IMAGE_CACHE    download cache (default: image/.cache)
#   RTBOX_IMAGE_OUT      output folder (default: image/out)
#   RTBOX_APT_UPDATE     auto (default: refresh package lists older than 24 h) | always | never
#   RTBOX_DEBS_LOCK      a manifest.txt of an earlier build: use exactly its package versions
#                        (and check their sha256); with the .debs in the cache no network is needed
#   RTBOX_PRUNE_CACHE=0  keep cached packages this build does not use
#   RTBOX_DEBIAN_MIRROR  Debian mirror URL (default: taken from the host's apt sources)
#   RTBOX_SECURITY_MIRROR  Debian security mirror URL (default: from the host's apt sources)
#   RTBOX_REQUIRE_SECURITY=1  fail when the security suite's index cannot be fetched (default: build
#                        from the main suite alone, with SECURITY_SUITE=unavailable in the manifest)
#   RTBOX_APT_RETRY_S    seconds between the three apt-get update tries (default 30)
#   RTBOX_EXTRA_MODULES  extra JDK modules for jlink, comma separated
#   RTBOX_EXCLUDE_MODULES  JDK modules never linked although jdeps names them (comma separated;
#                        default java.desktop; set it empty to link java.desktop again)
#   RTBOX_JNA_JAR        a JNA jar to put in the image for the self test's JNA check, when the
#                        appliance jar does not carry JNA itself (optional)
#   RTBOX_SKIP_HOST_DEPS=1  do not apt-get install host tools
set -euo pipefail
trap 'rc=$?; echo "[build] ERROR: line $LINENO: \"$BASH_COMMAND\" failed (exit $rc)" >&2' ERR

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
SUITE=bookworm
CACHE="${RTBOX_IMAGE_CACHE:-$HERE/.cache}"
OUT="${RTBOX_IMAGE_OUT:-$HERE/out}"
WORK="$OUT/work"
JAR="${1:-${RTBOX_JAR:-$REPO/runtime/target/board.jar}}"
LAUNCHER="${RTBOX_LAUNCHER:-$REPO/runtime/rtbox}"

# Kernel modules the board and qemu need (dependencies are added automatically).
KMODS=(
  # disk: qemu's PIIX3/4 IDE and common CF/IDE controllers of PIII-era boards
  ata_piix ata_generic pata_oldpiix pata_mpiix pata_via pata_ali pata_sis pata_amd
  sd_mod
  # root and data file systems; the FAT boot partition, which `rtbox firmware kernel` writes
  ext4 crc32c_generic vfat nls_cp437 nls_ascii nls_utf8
  # NICs: qemu (e1000, ne2k_pci, rtl8139) and common boards (e100, 8139too, via-rhine)
  e1000 ne2k_pci 8139too 8139cp e100 via_rhine
)
# Sizes (MiB)
BOOT_MB=24
DATA_MB=32

log()  { printf '[build %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die()  { printf '[build] ERROR: %s\n' "$*" >&2; exit 1; }
T0=$(date +%s)

[ "$(id -u)" = 0 ] || die "run as root (needs apt-get for host tools and root-owned files in the image)"

# ---------------------------------------------------------------- host tools
host_deps() {
  local need=() p
  local pkgs=(qemu-system-x86 qemu-utils qemu-user syslinux syslinux-common mtools dosfstools
              e2fsprogs fdisk cpio gzip unzip kmod binutils openjdk-17-jdk-headless ca-certificates)
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
  done
  if [ "${#need[@]}" -gt 0 ]; then
    [ "${RTBOX_SKIP_HOST_DEPS:-0}" = 1 ] && die "missing host packages: ${need[*]}"
    log "installing host packages: ${need[*]}"
    apt-get update -qq || die "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null \
      || die "apt-get install ${need[*]} failed"
  fi
}
host_deps
for t in jlink jdeps javac jar unzip mkfs.ext4 mkfs.fat syslinux mcopy sfdisk depmod modprobe readelf cpio qemu-i386; do
  command -v "$t" >/dev/null || die "host tool '$t' not found"
done
jlink --version | grep -q '^17\.' || die "host jlink must be JDK 17 (found $(jlink --version))"

# ---------------------------------------------------------------- private apt for i386
# Mirror URLs: explicit env, else the host's configured Debian mirrors (deb822 or one-line format).
host_mirror() { # $1 = debian | debian-security
  local kind="$1" f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    grep -hoE '(https?|file)://[^ ]+' "$f" | sed 's:/*$::' | grep -E "/${kind}\$" || true
  done | head -n1
}
MIRROR="${RTBOX_DEBIAN_MIRROR:-$(host_mirror debian)}"
SECMIRROR="${RTBOX_SECURITY_MIRROR:-$(host_mirror debian-security)}"
[ -n "$MIRROR" ] || die "no Debian mirror found in /etc/apt/sources*; set RTBOX_DEBIAN_MIRROR"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$KEYRING" ] || die "missing $KEYRING (package debian-archive-keyring)"

APTDIR="$CACHE/apt"
DEBS="$CACHE/debs"
mkdir -p "$APTDIR/state/lists/partial" "$APTDIR/cache/archives/partial" "$APTDIR/etc/parts" "$DEBS"
touch "$APTDIR/state/status"
{
  echo "deb [arch=i386 signed-by=$KEYRING] $MIRROR $SUITE main"
  [ -n "$SECMIRROR" ] && echo "deb [arch=i386 signed-by=$KEYRING] $SECMIRROR $SUITE-security main"
} > "$APTDIR/etc/sources.list.new"
cat > "$APTDIR/apt.conf" <<EOF
APT::Architecture "i386";
APT::Architectures { "i386"; };
APT::Get::AllowUnauthenticated "false";
Dir::State "$APTDIR/state";
Dir::State::status "$APTDIR/state/status";
Dir::Cache "$APTDIR/cache";
Dir::Etc::SourceList "$APTDIR/etc/sources.list";
Dir::Etc::SourceParts "$APTDIR/etc/parts";
Dir::Etc::Preferences "$APTDIR/etc/preferences";
Dir::Etc::PreferencesParts "$APTDIR/etc/parts";
Dir::Etc::Trusted "$APTDIR/etc/trusted.gpg";
Dir::Etc::TrustedParts "$APTDIR/etc/parts";
EOF
export APT_CONFIG="$APTDIR/apt.conf"
need_update=0
cmp -s "$APTDIR/etc/sources.list.new" "$APTDIR/etc/sources.list" 2>/dev/null || need_update=1
mv "$APTDIR/etc/sources.list.new" "$APTDIR/etc/sources.list"
case "${RTBOX_APT_UPDATE:-auto}" in
  always) need_update=1 ;;
  never)  ;;
  auto)   [ -n "$(find "$APTDIR/state/lists" -maxdepth 1 -name '*_Packages*' -mmin -1440 2>/dev/null | head -n1)" ] || need_update=1 ;;
  *) die "RTBOX_APT_UPDATE must be auto, always or never" ;;
esac
# apt-get update, tried three times: an index whose size or hash does not match the Release file
# ("Mirror sync in progress?") is normally gone once the mirror has synced. A security index that
# stays broken (seen on 5 Dec 2026: a caching proxy held a stale bookworm-security i386 Packages.xz
# for days) does not stop the build: the image is then built from the main suite alone and says so
# in its manifest (SECURITY_SUITE=unavailable) and in the log. RTBOX_REQUIRE_SECURITY=1 (a release
# build) makes that fatal instead. A broken main suite is always fatal.
SECURITY_SUITE="${SECMIRROR:+$SECMIRROR $SUITE-security}"
[ -n "$SECMIRROR" ] || SECURITY_SUITE="not configured"
apt_update() {
  local try
  for try in 1 2 3; do
    apt-get update -qq > "$APTDIR/update.log" 2>&1 && return 0
    grep '^E:' "$APTDIR/update.log" | head -n 3 | sed 's/^/[build]   /' >&2
    [ "$try" = 3 ] || { log "apt-get update failed (try $try of 3), again in ${RTBOX_APT_RETRY_S:-30} s"; sleep "${RTBOX_APT_RETRY_S:-30}"; }
  done
  return 1
}
if [ "$need_update" = 1 ]; then
  log "apt-get update (i386, $MIRROR${SECMIRROR:+ + $SECMIRROR})"
  if ! apt_update; then
    failed="$(grep '^E: Failed to fetch' "$APTDIR/update.log" || true)"
    if [ -n "$SECMIRROR" ] && [ -n "$failed" ] && ! grep -vqF "$SECMIRROR/" <<< "$failed" \
        && [ "${RTBOX_REQUIRE_SECURITY:-0}" != 1 ]; then
      SECURITY_SUITE="unavailable ($(head -n1 <<< "$failed" | sed 's/^E: Failed to fetch //; s/ \[IP:.*//'))"
      log "WARNING: the security suite's index cannot be had; building from $SUITE main alone (RTBOX_REQUIRE_SECURITY=1 refuses)"
      echo "deb [arch=i386 signed-by=$KEYRING] $MIRROR $SUITE main" > "$APTDIR/etc/sources.list"
      apt-get update -qq > "$APTDIR/update.log" 2>&1 || { cat "$APTDIR/update.log" >&2; die "apt-get update for i386 ($MIRROR) failed"; }
    else
      cat "$APTDIR/update.log" >&2; die "apt-get update for i386 failed"
    fi
  fi
fi

# Versions: the newest candidate, or the version a lock file names (RTBOX_DEBS_LOCK: a manifest.txt
# of an earlier build; its "DEB package version sha256" lines pin the packages and their files).
LOCK="${RTBOX_DEBS_LOCK:-}"
if [ -n "$LOCK" ]; then
  [ -f "$LOCK" ] || die "RTBOX_DEBS_LOCK=$LOCK not found"
  LOCK="$(cd "$(dirname "$LOCK")" && pwd)/$(basename "$LOCK")"
  log "package versions pinned by $LOCK"
fi
locked() { [ -n "$LOCK" ] && awk -v p="$1" -v f="$2" '$1=="DEB" && $2==p {print $f; exit}' "$LOCK"; }

# Fetch one package into the cache unless it is already there; prints the path of the .deb.
fetch_deb() {
  local pkg="$1" ver fn arch sum want f
  ver="$(locked "$pkg" 3)"
  if [ -z "$ver" ]; then
    [ -n "$LOCK" ] && die "$pkg is not pinned in $LOCK"
    ver="$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/{print $2}')"
    [ -n "$ver" ] && [ "$ver" != "(none)" ] || die "package $pkg not found for i386 in $SUITE"
  fi
  fn=""
  for f in "$DEBS/${pkg}_${ver//:/%3a}_"*.deb; do [ -s "$f" ] && fn="$(basename "$f")"; done
  if [ -z "$fn" ]; then
    arch="$(apt-cache show "$pkg=$ver" 2>/dev/null | awk '/^Architecture:/{print $2; exit}')"
    [ -n "$arch" ] || die "$pkg $ver is not in the package lists of $MIRROR (pinned versions that left the mirror: use a snapshot.debian.org URL as RTBOX_DEBIAN_MIRROR/RTBOX_SECURITY_MIRROR, or a cache that has the file)"
    fn="${pkg}_${ver//:/%3a}_${arch}.deb"     # the name apt-get download gives it
    log "download $pkg $ver"
    (cd "$DEBS" && apt-get download -qq "$pkg=$ver" 2>&1 | grep -v 'unsandboxed' >&2 || true)
    [ -s "$DEBS/$fn" ] || die "download of $pkg=$ver failed"
  fi
  sum="$(sha256sum "$DEBS/$fn" | cut -d' ' -f1)"
  want="$(locked "$pkg" 4)"
  [ -z "$want" ] || [ "$want" = "$sum" ] || die "$fn: sha256 $sum differs from $want pinned in $LOCK"
  printf '%s\t%s\t%s\t%s\n' "$pkg" "$ver" "$fn" "$sum" >> "$WORK/manifest.tsv"
  echo "$DEBS/$fn"
}

rm -rf "$WORK"
mkdir -p "$WORK"
: > "$WORK/manifest.tsv"

# Two kernels of one release (issue 35): Debian's stock 686 kernel (PREEMPT_DYNAMIC, booted with
# preempt=full; SYSLINUX's default entry "stock") and its PREEMPT_RT kernel linux-image-rt-686-pae
# (entry "rt"; PAE, which a Pentium III has). `rtbox firmware kernel stock|rt` picks the next boot's.
if [ -n "$LOCK" ]; then
  KPKG="$(awk '$1=="DEB" && $2 ~ /^linux-image-[0-9]/ && $2 !~ /-rt-/ {print $2; exit}' "$LOCK")"
  RTPKG="$(awk '$1=="DEB" && $2 ~ /^linux-image-[0-9].*-rt-/ {print $2; exit}' "$LOCK")"
  [ -n "$RTPKG" ] || die "$LOCK pins no PREEMPT_RT kernel (linux-image-*-rt-686-pae): a lock of a build before the RT kernel joined the image"
else
  KPKG="$(apt-cache depends linux-image-686 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')"
  RTPKG="$(apt-cache depends linux-image-rt-686-pae | awk '/Depends: linux-image-[0-9]/{print $2; exit}')"
fi
[ -n "$KPKG" ] || die "cannot resolve linux-image-686 to a kernel package"
[ -n "$RTPKG" ] || die "cannot resolve linux-image-rt-686-pae to a kernel package"
# the same release (ABI) for both, so that a comparison of the two is one of the preemption model alone
[ "${KPKG%-686}" = "${RTPKG%-rt-686-pae}" ] || die "stock kernel $KPKG and RT kernel $RTPKG are not of one release"
# rt-tests (and libnuma1, which its cyclictest links): Debian's cyclictest, which the boot test runs
# beside rtbox's timer probe in the guest (issue 37); pinned and checked as every package.
PKGS=(busybox-static "$KPKG" "$RTPKG" openjdk-17-jdk-headless libc6 libgcc-s1 libstdc++6 zlib1g rt-tests libnuma1)
# Big packages (kernel, JDK) are unpacked once per version into the cache; small ones into STAGE.
TREES="$CACHE/trees"
mkdir -p "$TREES"
unpack_cached() { # deb -> prints the folder it is unpacked in
  local t="$TREES/$(basename "$1" .deb)"
  if [ ! -f "$t/.complete" ]; then
    rm -rf "$t"; mkdir -p "$t"
    dpkg-deb -x "$1" "$t" || die "cannot extract $1"
    touch "$t/.complete"
  fi
  echo "$t"
}
STAGE="$WORK/stage"      # small packages extracted (not shipped as is)
mkdir -p "$STAGE"
KTREE="" RTTREE="" JTREE=""
for p in "${PKGS[@]}"; do
  deb="$(fetch_deb "$p")"
  case "$p" in
    "$RTPKG")                RTTREE="$(unpack_cached "$deb")" ;;
    "$KPKG")                 KTREE="$(unpack_cached "$deb")" ;;
    openjdk-17-jdk-headless) JTREE="$(unpack_cached "$deb")" ;;
    *) dpkg-deb -x "$deb" "$STAGE" || die "cannot extract $deb" ;;
  esac
done
# old downloads and unpacked trees (previous versions) pile up: keep only what this build used
# (RTBOX_PRUNE_CACHE=0 keeps everything, e.g. a cache that holds several releases' packages)
[ "${RTBOX_PRUNE_CACHE:-1}" = 1 ] && for f in "$DEBS"/*.deb; do
  cut -f3 "$WORK/manifest.tsv" | grep -qxF "$(basename "$f")" || { log "drop stale cache file $(basename "$f")"; rm -f "$f"; }
done
[ "${RTBOX_PRUNE_CACHE:-1}" = 1 ] && for t in "$TREES"/*/; do
  [ -d "$t" ] || continue
  cut -f3 "$WORK/manifest.tsv" | grep -qxF "$(basename "$t").deb" || { log "drop stale tree $(basename "$t")"; rm -rf "$t"; }
done

KVER="$(ls "$KTREE/lib/modules" | head -n1)"
[ -f "$KTREE/boot/vmlinuz-$KVER" ] || die "kernel image for $KVER not found"
RTKVER="$(ls "$RTTREE/lib/modules" | head -n1)"
[ -f "$RTTREE/boot/vmlinuz-$RTKVER" ] || die "kernel image for $RTKVER not found"
JDK="$JTREE/usr/lib/jvm/java-17-openjdk-i386"
[ -f "$JDK/jmods/java.base.jmod" ] || die "i386 jmods not found in openjdk-17-jdk-headless"
log "kernels $KVER and $RTKVER, jdk $(awk -F'\t' '$1=="openjdk-17-jdk-headless"{print $2}' "$WORK/manifest.tsv")"

# ---------------------------------------------------------------- root file system
ROOT="$WORK/root"
mkdir -p "$ROOT"/usr/bin "$ROOT"/usr/lib/i386-linux-gnu "$ROOT"/etc "$ROOT"/opt/rtbox \
         "$ROOT"/proc "$ROOT"/sys "$ROOT"/dev "$ROOT"/run "$ROOT"/tmp "$ROOT"/data "$ROOT"/root "$ROOT"/var \
         "$ROOT"/boot
chmod 1777 "$ROOT/tmp"
# merged /usr: everything lives below /usr
ln -s usr/bin "$ROOT/bin"; ln -s usr/bin "$ROOT/sbin"; ln -s bin "$ROOT/usr/sbin"; ln -s usr/lib "$ROOT/lib"
ln -s /run "$ROOT/var/run"; ln -s /tmp "$ROOT/var/tmp"; ln -s /run/log "$ROOT/var/log"

# busybox userland: one symlink per applet, as the binary itself lists them
install -m 0755 "$STAGE/bin/busybox" "$ROOT/usr/bin/busybox"
APPLETS="$(qemu-i386 "$ROOT/usr/bin/busybox" --list)" || die "cannot list busybox applets (qemu-i386)"
for a in $APPLETS; do
  [ "$a" = busybox ] || ln -sf busybox "$ROOT/usr/bin/$a"
done

# cyclictest alone of rt-tests (its other tools and their python3 are not needed)
install -m 0755 "$STAGE/usr/bin/cyclictest" "$ROOT/usr/bin/cyclictest"

# trimmed Java runtime
MODULES="java.base,java.logging,java.management,java.naming,java.xml,jdk.unsupported"
if [ -f "$JAR" ]; then
  log "appliance jar: $JAR"
  # work on a snapshot: the jar may be rebuilt by Maven while this runs
  cp "$JAR" "$WORK/rtbox.jar"
  unzip -tq "$WORK/rtbox.jar" >/dev/null 2>&1 || die "$JAR is not a complete jar (being rebuilt? run again)"
  JAR="$WORK/rtbox.jar"
  JX="$WORK/jarx"; mkdir -p "$JX"
  (cd "$JX" && unzip -q "$JAR") || die "cannot unpack $JAR"
  jars=("$JAR")
  while IFS= read -r -d '' j; do jars+=("$j"); done < <(find "$JX" -name '*.jar' -print0 | sort -z)
  # one jdeps run over the jar and its embedded bundles, so that they resolve each other
  if d="$(jdeps --multi-release 17 --ignore-missing-deps --print-module-deps "${jars[@]}" 2>"$WORK/jdeps.err" | tail -n1)" \
     && [ -n "$d" ]; then
    MODULES="java.base,jdk.unsupported,$d"
  else
    log "WARNING: jdeps failed ($(head -n1 "$WORK/jdeps.err")), using the default module list"
  fi
else
  log "NOTE: appliance jar $JAR not found: building the image WITHOUT the appliance (placeholder self test only)"
  JAR=""
fi
[ -n "${RTBOX_EXTRA_MODULES:-}" ] && MODULES="$MODULES,$RTBOX_EXTRA_MODULES"
# Modules jdeps names but the image leaves out (RTBOX_EXCLUDE_MODULES); the boot test shows that the
# appliance still runs without them. java.desktop (9 MB) is named only because JNA's Native has AWT
# types in method signatures; nothing resolves them since rtbox.os.Tsc looks JNA's dispatcher up with
# MethodHandles.findStatic instead of reflecting over Native's methods (which resolved java.awt.Window
# and failed without the module). RTBOX_EXCLUDE_MODULES= (empty) links it again; then its native
# libraries are removed below.
EXCLUDE=",${RTBOX_EXCLUDE_MODULES-java.desktop},"
MODULES="$(tr ',' '\n' <<<"$MODULES" | grep -v '^$' | sort -u | while read -r m; do
             case "$EXCLUDE" in *",$m,"*) ;; *) echo "$m" ;; esac; done | paste -sd, -)"
log "jlink modules: $MODULES"
jlink --module-path "$JDK/jmods" --add-modules "$MODULES" --vm=client \
      --strip-debug --no-header-files --no-man-pages --compress=2 \
      --output "$ROOT/opt/rtbox/jre" || die "jlink failed"
rm -f "$ROOT/opt/rtbox/jre/bin/keytool"
# java.desktop's native side needs X11, ALSA, freetype, libjpeg...: none of that is on the board and
# nothing headless uses it, so only the classes (and the headless libawt) stay
for l in libawt_xawt.so libsplashscreen.so libfontmanager.so libjsound.so libjavajpeg.so liblcms.so \
         libmlib_image.so libjawt.so; do
  rm -f "$ROOT/opt/rtbox/jre/lib/$l"
done
echo "$MODULES" > "$WORK/modules.txt"

# appliance
mkdir -p "$ROOT/opt/rtbox/lib" "$ROOT/opt/rtbox/selftest"
mkdir -p "$ROOT/opt/rtbox/etc" "$ROOT/opt/rtbox/bin"
if [ -n "$JAR" ]; then
  install -m 0644 "$JAR" "$ROOT/opt/rtbox/lib/rtbox.jar"
  if [ -f "$LAUNCHER" ]; then
    install -m 0755 "$LAUNCHER" "$ROOT/opt/rtbox/bin/rtbox.launcher"
    # default appliance configuration (copied to /data/rtbox/etc on first boot, then owned by the board)
    [ -d "$(dirname "$LAUNCHER")/etc" ] && cp -a "$(dirname "$LAUNCHER")/etc/." "$ROOT/opt/rtbox/etc/"
  else
    log "NOTE: launcher $LAUNCHER not found: the image starts java -jar directly"
  fi
fi
# JNA check fixture: compiled against the JNA the image carries. JNA comes from the appliance jar
# (flat com/sun/jna or nested jar/jna-*.jar), else from RTBOX_JNA_JAR (then copied into the image).
JNA_CP=""
if [ -n "$JAR" ] && [ -f "$WORK/jarx/com/sun/jna/Native.class" ]; then
  JNA_CP="$JAR"
elif [ -n "$JAR" ] && j="$(find "$WORK/jarx" -name 'jna-[0-9]*.jar' | head -n1)" && [ -n "$j" ]; then
  JNA_CP="$j"
elif [ -n "${RTBOX_JNA_JAR:-}" ]; then
  [ -f "$RTBOX_JNA_JAR" ] || die "RTBOX_JNA_JAR=$RTBOX_JNA_JAR not found"
  install -m 0644 "$RTBOX_JNA_JAR" "$ROOT/opt/rtbox/selftest/jna.jar"
  JNA_CP="$RTBOX_JNA_JAR"
fi
if [ -n "$JNA_CP" ]; then
  unzip -l "$JNA_CP" 2>/dev/null | grep -q 'linux-x86/libjnidispatch.so' || [ "$JNA_CP" = "$JAR" ] \
    || log "WARNING: $(basename "$JNA_CP") has no linux-x86/libjnidispatch.so"
  mkdir -p "$WORK/fixture/jna"
  javac -nowarn --release 8 -cp "$JNA_CP" -d "$WORK/fixture/jna" "$HERE/fixtures/JnaProbe.java" || die "javac JnaProbe failed"
  jar --create --file "$ROOT/opt/rtbox/selftest/jnaprobe.jar" -C "$WORK/fixture/jna" . || die "jar JnaProbe failed"
  log "JNA check included ($(basename "$JNA_CP"))"
else
  log "NOTE: no JNA available: the image's JNA check is skipped"
fi
# self-test fixture (compiled for Java 8 bytecode, runs on anything)
FX="$WORK/fixture"; mkdir -p "$FX/classes"
javac -nowarn --release 8 -d "$FX/classes" "$HERE/fixtures/Hello.java" || die "javac fixture failed"
jar --create --file "$ROOT/opt/rtbox/selftest/hello.jar" --main-class Hello -C "$FX/classes" . || die "jar fixture failed"

# our files (init scripts, config, launcher wrapper)
cp -a "$HERE/files/rootfs/." "$ROOT/"
chmod 0755 "$ROOT"/etc/init.d/* "$ROOT"/opt/rtbox/bin/* "$ROOT"/usr/share/udhcpc/default.script
chmod 0600 "$ROOT/etc/shadow"

# shared libraries: closure of NEEDED over all ELF files, from the extracted Debian packages
find_lib() { # name -> path inside STAGE
  local n="$1" d
  for d in lib/i386-linux-gnu usr/lib/i386-linux-gnu lib; do
    [ -e "$STAGE/$d/$n" ] && { echo "$d/$n"; return 0; }
  done
  return 1
}
declare -A seen=()
queue=(ld-linux.so.2 libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 libresolv.so.2
       libnss_files.so.2 libnss_dns.so.2 libutil.so.1)
jre_libs=" $(cd "$ROOT/opt/rtbox/jre/lib" && find . -name '*.so' -printf '%f ') "
while IFS= read -r -d '' f; do
  if [ "$(head -c4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then
    for n in $(readelf -d "$f" 2>/dev/null | awk '/NEEDED/{gsub(/[][]/,"",$5); print $5}'); do queue+=("$n"); done
  fi
done < <(find "$ROOT/opt/rtbox/jre" "$ROOT/usr/bin/cyclictest" -type f -print0)
while [ "${#queue[@]}" -gt 0 ]; do
  n="${queue[0]}"; queue=("${queue[@]:1}")
  [ -n "${seen[$n]:-}" ] && continue
  seen[$n]=1
  case "$jre_libs" in *" $n "*) continue ;; esac
  rel="$(find_lib "$n")" || die "shared library $n not found in the i386 packages"
  src="$(readlink -f "$STAGE/$rel")"
  install -m 0755 "$src" "$ROOT/usr/lib/i386-linux-gnu/$n"
  for d in $(readelf -d "$src" 2>/dev/null | awk '/NEEDED/{gsub(/[][]/,"",$5); print $5}'); do queue+=("$d"); done
done
mv "$ROOT/usr/lib/i386-linux-gnu/ld-linux.so.2" "$ROOT/usr/lib/ld-linux.so.2"
echo "/usr/lib/i386-linux-gnu" > "$ROOT/etc/ld.so.conf"   # informative; glibc searches it by default

# licences of what we ship
for p in busybox-static libc6 libgcc-s1 libstdc++6 zlib1g rt-tests libnuma1 "$KPKG" "$RTPKG"; do
  src="$STAGE/usr/share/doc/$p/copyright"; [ -f "$src" ] || src="$KTREE/usr/share/doc/$p/copyright"
  [ -f "$src" ] || src="$RTTREE/usr/share/doc/$p/copyright"
  [ -f "$src" ] && install -D -m 0644 "$src" "$ROOT/usr/share/doc/$p/copyright"
done
install -D -m 0644 "$JTREE/usr/share/doc/openjdk-17-jdk-headless/copyright" "$ROOT/usr/share/doc/openjdk-17/copyright" 2>/dev/null || true

# manifest / version stamp
BUILD_ID="$(date -u +%Y%m%dT%H%M%SZ)"
GITREV="$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo none)"
{
  echo "RTBOX_IMAGE_BUILD=$BUILD_ID"
  echo "RTBOX_IMAGE_GIT=$GITREV"
  echo "KERNEL=$KVER"
  echo "KERNEL_RT=$RTKVER"
  echo "SECURITY_SUITE=$SECURITY_SUITE"
  echo "JLINK_MODULES=$MODULES"
  echo "APPLIANCE_JAR=$([ -n "$JAR" ] && sha256sum "$JAR" | cut -c1-16 || echo none)"
  awk -F'\t' '{print "DEB " $1 " " $2 " " $4}' "$WORK/manifest.tsv"
} > "$ROOT/etc/rtbox/image-manifest"
cp "$ROOT/etc/rtbox/image-manifest" "$OUT/manifest.txt"

# ---------------------------------------------------------------- initramfs
# One per kernel: the same init and busybox, each kernel's own modules.
initramfs() { # KTREE KVER OUT
  local kt="$1" kv="$2" out="$3" IRD="$WORK/initramfs-$2" m ko b
  mkdir -p "$IRD"/{bin,dev,proc,sys,newroot,lib/modules}
  install -m 0755 "$STAGE/bin/busybox" "$IRD/bin/busybox"
  install -m 0755 "$HERE/files/initramfs/init" "$IRD/init"
  # kernel modules in dependency order, resolved by the host's kmod against the Debian tree
  [ -s "$kt/lib/modules/$kv/modules.dep" ] || depmod -b "$kt" "$kv" || die "depmod failed"
  : > "$IRD/lib/modules/load.order"
  for m in "${KMODS[@]}"; do
    modprobe -d "$kt" -S "$kv" --show-depends "$m" 2>"$WORK/modprobe.err" \
      || die "kernel module $m not found in $kv: $(cat "$WORK/modprobe.err")"
  done | awk '$1=="insmod"{print $2}' | grep -v '/crc32c-intel\.ko$' | while read -r ko; do
    b="$(basename "$ko")"
    grep -qxF "$b" "$IRD/lib/modules/load.order" && continue
    install -m 0644 "$ko" "$IRD/lib/modules/$b"
    echo "$b" >> "$IRD/lib/modules/load.order"
  done
  log "initramfs of $kv: $(wc -l < "$IRD/lib/modules/load.order") modules"
  (cd "$IRD" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --owner 0:0 --quiet | gzip -9n) > "$out" \
    || die "initramfs packing failed"
}
initramfs "$KTREE" "$KVER" "$WORK/initrd.gz"
initramfs "$RTTREE" "$RTKVER" "$WORK/initrd-rt.gz"

# ---------------------------------------------------------------- partitions
# root: ext4 without journal, mounted read-only; sized to content + 25% + 8 MiB
chown -R 0:0 "$ROOT"   # whoever owns the checkout, the image is root-owned
root_kb=$(du -sk "$ROOT" | cut -f1)
ROOT_MB=$(( (root_kb * 125 / 100) / 1024 + 8 ))
log "root content $((root_kb/1024)) MiB -> root partition ${ROOT_MB} MiB"
rm -f "$WORK/root.ext4" "$WORK/data.ext4" "$WORK/boot.fat"
mkfs.ext4 -q -F -L rtboxroot -O ^has_journal -m 0 -i 8192 -E root_owner=0:0 -d "$ROOT" \
          "$WORK/root.ext4" "${ROOT_MB}M" || die "mkfs.ext4 root failed"
# data: ext4 with a journal (this is the partition written at run time)
DATA="$WORK/data"; mkdir -p "$DATA/rtbox" "$DATA/etc"
mkfs.ext4 -q -F -L rtboxdata -m 0 -J size=1 -E root_owner=0:0 -d "$DATA" "$WORK/data.ext4" "${DATA_MB}M" \
  || die "mkfs.ext4 data failed"
# boot: FAT16 + SYSLINUX, kernel, initramfs
mkfs.fat -F 16 -n RTBOXBOOT -C "$WORK/boot.fat" $((BOOT_MB * 1024)) >/dev/null || die "mkfs.fat failed"
syslinux --install "$WORK/boot.fat" || die "syslinux --install failed"
export MTOOLS_SKIP_CHECK=1
mcopy -i "$WORK/boot.fat" "$KTREE/boot/vmlinuz-$KVER" ::/vmlinuz
mcopy -i "$WORK/boot.fat" "$WORK/initrd.gz" ::/initrd.gz
mcopy -i "$WORK/boot.fat" "$RTTREE/boot/vmlinuz-$RTKVER" ::/vmlinuz-rt
mcopy -i "$WORK/boot.fat" "$WORK/initrd-rt.gz" ::/initrd-rt.gz
mcopy -i "$WORK/boot.fat" "$HERE/files/syslinux.cfg" ::/syslinux.cfg
mcopy -i "$WORK/boot.fat" "$ROOT/etc/rtbox/image-manifest" ::/manifest.txt

# ---------------------------------------------------------------- disk
IMG="$OUT/rtbox.img"
S=2048                                    # sectors per MiB
p1=$S;                   n1=$((BOOT_MB * S))
p2=$((p1 + n1));         n2=$((ROOT_MB * S))
p3=$((p2 + n2));         n3=$((DATA_MB * S))
total=$((p3 + n3))
rm -f "$IMG"
truncate -s $((total * 512)) "$IMG"
sfdisk -q "$IMG" <<EOF || die "sfdisk failed"
label: dos
label-id: 0x7274626f
start=$p1, size=$n1, type=e, bootable
start=$p2, size=$n2, type=83
start=$p3, size=$n3, type=83
EOF
dd if="$WORK/boot.fat"  of="$IMG" bs=512 seek=$p1 conv=notrunc,sparse status=none
dd if="$WORK/root.ext4" of="$IMG" bs=512 seek=$p2 conv=notrunc,sparse status=none
dd if="$WORK/data.ext4" of="$IMG" bs=512 seek=$p3 conv=notrunc,sparse status=none
dd if=/usr/lib/syslinux/mbr/mbr.bin of="$IMG" bs=440 count=1 conv=notrunc status=none
cp "$WORK/initrd.gz" "$OUT/initrd.gz"
cp "$KTREE/boot/vmlinuz-$KVER" "$OUT/vmlinuz"
cp "$WORK/initrd-rt.gz" "$OUT/initrd-rt.gz"
cp "$RTTREE/boot/vmlinuz-$RTKVER" "$OUT/vmlinuz-rt"

{
  echo "image_bytes=$(stat -c %s "$IMG")"
  echo "boot_mb=$BOOT_MB root_mb=$ROOT_MB data_mb=$DATA_MB"
  echo "root_content_kb=$root_kb"
  echo "jre_kb=$(du -sk "$ROOT/opt/rtbox/jre" | cut -f1)"
  echo "kernel_bytes=$(stat -c %s "$OUT/vmlinuz") initrd_bytes=$(stat -c %s "$OUT/initrd.gz")"
  echo "rt_kernel_bytes=$(stat -c %s "$OUT/vmlinuz-rt") rt_initrd_bytes=$(stat -c %s "$OUT/initrd-rt.gz")"
  echo "appliance=$([ -n "$JAR" ] && echo yes || echo no)"
} > "$OUT/sizes.txt"
[ "${RTBOX_KEEP_WORK:-0}" = 1 ] || rm -rf "$STAGE" "$WORK/jarx"
log "done in $(( $(date +%s) - T0 )) s: $IMG ($(( $(stat -c %s "$IMG") / 1048576 )) MiB)"
cat "$OUT/sizes.txt" >&2
