// Every table of every page with a header row sorts by a column: a click on its header, or
// Enter or Space on the header when it has the keyboard's focus (each header is a tab stop);
// a second time the other way. aria-sort says which column and which way. Numbers sort as
// numbers ("9.7" before "16661"; "3/5" by its first number), times as instants (the
// datetime of the cell's <time>, see time.js), the rest as text with numbers inside it in
// their order ("a2" before "a10"); empty cells ("-") go last either way. A paged table
// (fleet, runs) sorts the page shown. A table drawn again with the same id keeps its order.
// Nothing to do in a page: app.js imports this module, which watches for tables added.

const chosen = new Map(); // table id -> {col, dir}
const NUMBER = /^[+-]?\d[\d,]*(\.\d+)?(e[+-]?\d+)?( ?(%|us|µs|ms|s|B|kB|MB))?(\/\S*)?$/i;

function cellKey(td) {
  if (!td) return null;
  const time = td.querySelector("time[datetime]");
  if (time) return { num: Date.parse(time.dateTime), text: time.textContent };
  const text = (td.dataset.sort ?? td.textContent).trim();
  if (text === "" || text === "-" || text === "never") return null;
  return { num: NUMBER.test(text) ? parseFloat(text.replace(/,/g, "")) : NaN, text };
}

function sortBy(table, col, dir) {
  const headers = [...table.tHead.rows[0].cells];
  headers.forEach((th, i) => {
    if (i === col) th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
    else th.removeAttribute("aria-sort");
  });
  for (const body of table.tBodies) {
    const rows = [...body.rows].map((tr) => ({ tr, key: cellKey(tr.cells[col]) }));
    const numeric = rows.every((r) => r.key == null || isFinite(r.key.num));
    rows.sort((a, b) => {
      if (a.key == null || b.key == null) return (a.key == null) - (b.key == null);
      const c = numeric ? a.key.num - b.key.num : a.key.text.localeCompare(b.key.text, undefined, { numeric: true });
      return c * dir;
    });
    body.append(...rows.map((r) => r.tr));
  }
  if (table.id) chosen.set(table.id, { col, dir });
}

function sortable(table) {
  if (table.dataset.sortable || !table.tHead || !table.tHead.rows.length || table.tHead.rows.length > 1) return;
  if (table.querySelector("td[rowspan]:not([rowspan='1'])")) return; // grouped rows: an order of their own
  table.dataset.sortable = "true";
  [...table.tHead.rows[0].cells].forEach((th, col) => {
    if (!th.textContent.trim() || th.colSpan > 1) return; // a column of buttons or boxes
    th.tabIndex = 0;
    th.classList.add("sortable");
    th.title = th.title || "sort by " + th.textContent.trim();
    const go = () => sortBy(table, col, th.getAttribute("aria-sort") === "ascending" ? -1 : 1);
    th.addEventListener("click", go);
    th.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" || ev.key === " ") {
        ev.preventDefault();
        go();
      }
    });
  });
  const again = table.id && chosen.get(table.id);
  if (again) sortBy(table, again.col, again.dir);
}

function scan(node) {
  if (node.nodeType !== 1) return;
  if (node.tagName === "TABLE") sortable(node);
  else for (const t of node.getElementsByTagName("table")) sortable(t);
}

new MutationObserver((changes) => {
  for (const c of changes) for (const n of c.addedNodes) scan(n);
}).observe(document.documentElement, { childList: true, subtree: true });
if (document.body) scan(document.body);
