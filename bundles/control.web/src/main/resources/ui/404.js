// The control room's own 404 page (served for any path nothing answers): names the path as
// text, never as HTML, and the time zone the other pages show times in. It needs no session:
// the links lead to the log-in page when needed.
import { zone } from "/ui/time.js";

document.getElementById("not-found-path").textContent = location.pathname + location.search;
const z = document.createElement("span");
z.className = "who";
z.append(Object.assign(document.createElement("span"), { className: "zone", id: "zone", textContent: zone(),
  title: "times on these pages; UTC on hover" }));
document.querySelector("nav.top").append(z);
