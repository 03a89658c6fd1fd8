# Sourced by rcS and the /opt/rtbox/bin scripts: the appliance's settings, each source overriding the one
# before it:
#   1. /etc/rtbox/rtbox.conf    the image's defaults (read-only root)
#   2. /data/etc/rtbox.conf     the board's own overrides (data partition; shell syntax)
#   3. the kernel command line  rtbox.id=ID  rtbox.broker=HOST:PORT[,HOST:PORT...] (or tcp://, ssl:// URIs)
# The command line comes from syslinux.cfg on the FAT boot partition, the one partition any PC can
# write: a factory provisions each card's identity and broker there (mtools, or a card reader), and the
# boot test points the guest at its own broker the same way.
# Sets RTBOX_CONF_ERRORS (empty when the identity and broker are valid), one message per problem,
# naming the setting, its value and where it came from.
. /etc/rtbox/rtbox.conf
RTBOX_ID_FROM=/etc/rtbox/rtbox.conf
RTBOX_BROKER_FROM=/etc/rtbox/rtbox.conf
if [ -f /data/etc/rtbox.conf ]; then
  _id="$RTBOX_ID" _br="$RTBOX_BROKER"
  . /data/etc/rtbox.conf
  [ "$RTBOX_ID" = "$_id" ] || RTBOX_ID_FROM=/data/etc/rtbox.conf
  [ "$RTBOX_BROKER" = "$_br" ] || RTBOX_BROKER_FROM=/data/etc/rtbox.conf
fi
for _arg in $(cat /proc/cmdline 2>/dev/null); do
  case "$_arg" in
    rtbox.id=*)     RTBOX_ID="${_arg#rtbox.id=}";         RTBOX_ID_FROM="kernel command line" ;;
    rtbox.broker=*) RTBOX_BROKER="${_arg#rtbox.broker=}"; RTBOX_BROKER_FROM="kernel command line" ;;
  esac
done
RTBOX_CONF_ERRORS=""
# The id names the appliance's MQTT topic trees (rtbox/v1/up/ID/...) and is its user name in the
# broker's ACL: the characters the appliance accepts in a topic level, at most 64.
if ! printf '%s' "$RTBOX_ID" | grep -Eqx '[A-Za-z0-9._-]{1,64}'; then
  RTBOX_CONF_ERRORS="${RTBOX_CONF_ERRORS}RTBOX_ID='$RTBOX_ID' (from $RTBOX_ID_FROM) is not 1-64 letters, digits, '.', '_' or '-'
"
fi
# Broker: empty turns MQTT off; else a comma-separated list of HOST:PORT or tcp:// / ssl:// URIs.
RTBOX_BROKER_URIS=""
for _b in $(printf '%s' "$RTBOX_BROKER" | tr ',' ' '); do
  case "$_b" in *://*) ;; *) _b="tcp://$_b" ;; esac
  if printf '%s' "$_b" | grep -Eqx '(tcp|ssl)://[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?:[0-9]{1,5}' \
     && [ "${_b##*:}" -ge 1 ] && [ "${_b##*:}" -le 65535 ]; then
    RTBOX_BROKER_URIS="${RTBOX_BROKER_URIS:+$RTBOX_BROKER_URIS,}$_b"
  else
    RTBOX_CONF_ERRORS="${RTBOX_CONF_ERRORS}RTBOX_BROKER='$RTBOX_BROKER' (from $RTBOX_BROKER_FROM): '$_b' is not HOST:PORT, tcp://HOST:PORT or ssl://HOST:PORT (port 1-65535)
"
  fi
done
unset _arg _b _id _br
