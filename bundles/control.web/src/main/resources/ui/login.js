import { logIn, say, clear, $ } from "/ui/app.js";

$("#login").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  clear($("#messages"));
  try {
    await logIn($("#user").value, $("#password").value);
    const next = new URLSearchParams(location.search).get("next");
    // only a page of this control room, never another site
    location.href = next && next.startsWith("/ui/") ? next : "/ui/fleet.html";
  } catch (e) {
    say(e.status === 429 ? "too many failed log-ins for this user: wait a minute" : e.message);
  }
});
