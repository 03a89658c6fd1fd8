// Times as an operator reads them: in this browser's time zone (as Grafana shows them),
// with the UTC instant the control room stored on hover. Every page shows a time through
// timeOf(), a <time> element whose datetime attribute keeps the instant, so that a sorted
// column (sort.js) orders instants, not the text.

const LOCAL = new Intl.DateTimeFormat("sv-SE", {
  year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23",
});

function parse(iso) {
  const d = iso ? new Date(iso) : null;
  return d && !isNaN(d) ? d : null;
}

/** "2026-12-07 03:38:10" in this browser's time zone (the text of a time; the zone is in the navigation bar). */
export function fmtTime(iso) {
  const d = parse(iso);
  return d ? LOCAL.format(d) : iso || "-";
}

/** "2026-12-06 22:08:10 UTC": the stored instant, for the hover title. */
export function fmtUtc(iso) {
  const d = parse(iso);
  return d ? d.toISOString().replace("T", " ").replace(/(\.\d+)?Z$/, " UTC") : iso || "";
}

/** The zone this page shows times in: "Asia/Kolkata (UTC+05:30)". */
export function zone(at = new Date()) {
  const off = -at.getTimezoneOffset();
  const hm = String(Math.floor(Math.abs(off) / 60)).padStart(2, "0") + ":" + String(Math.abs(off) % 60).padStart(2, "0");
  const name = Intl.DateTimeFormat().resolvedOptions().timeZone || "local time";
  return name + " (UTC" + (off < 0 ? "-" : "+") + hm + ")";
}

/** A <time>: local text (or the text given, e.g. "12 s ago"), UTC on hover; "-" without a time. */
export function timeOf(iso, text) {
  const d = parse(iso);
  if (!d) return document.createTextNode(iso ? String(iso) : "-");
  const t = document.createElement("time");
  t.dateTime = d.toISOString();
  t.title = fmtUtc(iso) + (text ? " · " + fmtTime(iso) + " local" : "");
  t.textContent = text || fmtTime(iso);
  return t;
}

/** "12 s ago", "3 min ago", "2 h ago", else the local date and time. */
export function ago(iso, now = Date.now()) {
  const d = parse(iso);
  if (!d) return "never";
  const s = Math.round((now - d.getTime()) / 1000);
  if (s < 90) return Math.max(0, s) + " s ago";
  if (s < 5400) return Math.round(s / 60) + " min ago";
  if (s < 172800) return Math.round(s / 3600) + " h ago";
  return fmtTime(iso);
}

/** A <time> that says how long ago: its title the UTC and local instants. */
export function agoOf(iso) {
  return parse(iso) ? timeOf(iso, ago(iso)) : document.createTextNode("never");
}
