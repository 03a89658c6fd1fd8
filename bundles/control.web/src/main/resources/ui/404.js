// The control room's own 404 page (served for any path nothing answers): names the path as
// text, never as HTML. It needs no session: the links lead to the log-in page when needed.
document.getElementById("not-found-path").textContent = location.pathname + location.search;
