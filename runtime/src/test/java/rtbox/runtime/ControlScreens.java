package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;

/**
 * Issue 32 item 5 on every page of the control room (each {@code ui/*.html} of
 * rtbox.control.web, so that a page added later is checked too), in the browser of a web IT
 * after its scenario filled the database: at a 1280x800 and a 1920x1080 window the page does
 * not scroll sideways, nothing is drawn right of the page's margin (the screenshot's pixels),
 * every control is where a click reaches it (not covered, not cut off), and the page's main
 * table is on the first screen and drawn; every time is shown in the browser's zone (the
 * browser runs in {@link #ZONE}) with its UTC instant on hover and no time is shown outside
 * such an element; tables sort by a click or by Enter and Space on a focused header, times
 * as instants and numbers as numbers; and no page asked anything of a host other than the
 * control room's own.
 */
final class ControlScreens {
    /** Not UTC and not a whole hour from it: a page that shows UTC, or rounds the offset, reads wrong. */
    static final String ZONE = "Asia/Kolkata";
    private static final Path UI = Path.of("..", "bundles", "control.web", "src", "main", "resources", "ui");
    private static final DateTimeFormatter LOCAL = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
            .withZone(ZoneId.of(ZONE));
    private static final DateTimeFormatter UTC = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneId.of("UTC"));
    private static final int[][] SIZES = {{1280, 800}, {1920, 1080}};

    private final Browser browser;
    private final String base;
    /** Page name -> its query (run ids and the like the scenario made) and the CSS of its main table. */
    private final Map<String, String[]> pages;

    ControlScreens(Browser browser, String base, Map<String, String[]> pages) {
        this.browser = browser;
        this.base = base;
        this.pages = pages;
    }

    /** Every page at both sizes, then the sorting, then every request the browser made so far. */
    void check() throws Exception {
        List<String> names = new ArrayList<>();
        try (Stream<Path> files = Files.list(UI)) {
            files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".html"))
                    .map(n -> n.substring(0, n.length() - 5)).sorted().forEach(names::add);
        }
        assertTrue(names.containsAll(pages.keySet()), "pages named by the test but not in ui/: " + pages.keySet());
        Dimension before = browser.driver.manage().window().getSize();
        List<String> problems = new ArrayList<>();
        try {
            for (int[] size : SIZES) {
                browser.driver.manage().window().setSize(new Dimension(size[0], size[1]));
                for (String name : names) {
                    problems.addAll(page(name, size));
                }
            }
            sorting();
        } finally {
            browser.driver.manage().window().setSize(before);
        }
        assertEquals(List.of(), problems);
        requests();
    }

    private List<String> page(String name, int[] size) throws IOException {
        String[] p = pages.getOrDefault(name, new String[] {"", "main h1"});
        browser.open(base + "/ui/" + name + ".html" + p[0]);
        String at = name + " at " + size[0] + "x" + size[1] + ": ";
        WebElement main = browser.awaitElement(60, p[1]);
        settled();
        List<String> problems = new ArrayList<>();
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) browser.driver.executeScript(LAYOUT, p[1]);
        long iw = n(m.get("iw")), ih = n(m.get("ih")), sw = n(m.get("sw")), nav = n(m.get("nav"));
        if (sw > iw) {
            problems.add(at + "the page scrolls sideways: " + sw + " px wide in a " + iw + " px window");
        }
        @SuppressWarnings("unchecked")
        List<String> blocked = (List<String>) m.get("blocked");
        for (String b : blocked) {
            problems.add(at + "a control a click does not reach: " + b);
        }
        @SuppressWarnings("unchecked")
        List<Number> r = (List<Number>) m.get("main");
        if (r.get(0).doubleValue() < 0 || r.get(2).doubleValue() > iw || r.get(1).doubleValue() >= ih) {
            problems.add(at + "its main part (" + p[1] + ") is not on the first screen: " + r);
        }
        // Pixels: nothing drawn in the last 8 columns below the navigation bar (the page's right margin).
        BufferedImage shot = browser.shot();
        int inked = 0;
        for (int y = (int) nav + 2; y < Math.min(ih, shot.getHeight()); y++) {
            for (int x = (int) iw - 8; x < Math.min(iw, shot.getWidth()); x++) {
                inked += (shot.getRGB(x, y) & 0xffffff) != 0xffffff ? 1 : 0;
            }
        }
        if (inked > 0) {
            problems.add(at + inked + " pixels drawn in the right margin: something is wider than the page");
        }
        if (Browser.inked(Browser.shot(main)) < 200) {
            problems.add(at + "its main part (" + p[1] + ") drew nothing");
        }
        if (size[0] == 1920) {
            problems.addAll(times(at));
        }
        return problems;
    }

    /** Waits until the page stops changing its size (tables and plots drawn after their API answers). */
    private void settled() {
        String[] last = {""};
        browser.await(30, d -> {
            String now = String.valueOf(browser.driver.executeScript("return document.readyState + ' '"
                    + " + document.documentElement.scrollWidth + ' ' + document.documentElement.scrollHeight + ' '"
                    + " + document.querySelectorAll('canvas, table, time').length"));
            boolean same = now.equals(last[0]) && now.startsWith("complete");
            last[0] = now;
            if (!same) {
                try {
                    Thread.sleep(300); // the interval between two looks at the layout
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return same;
        });
    }

    /**
     * The page's width, the window's, the navigation bar's bottom, the main part's box, and
     * every visible control on the first screen that a click at its centre does not reach.
     */
    private static final String LAYOUT = """
            const sel = arguments[0];
            const blocked = [];
            for (const c of document.querySelectorAll("input, select, textarea, button, a[href], th[tabindex]")) {
              const r = c.getBoundingClientRect();
              if (!r.width || !r.height || getComputedStyle(c).visibility === "hidden") continue;
              const name = c.tagName.toLowerCase() + (c.id ? "#" + c.id : "") + " '" + (c.textContent || c.value || c.name || "").trim().slice(0, 30) + "'";
              if (r.left < -1 || r.right > innerWidth + 1) { blocked.push(name + " cut off at the side: " + Math.round(r.left) + " to " + Math.round(r.right)); continue; }
              const f = c.getClientRects()[0]; // a link that wraps: the middle of its first line, not of its box
              const cx = f.left + f.width / 2, cy = f.top + f.height / 2;
              if (cy < 0 || cy >= innerHeight) continue;
              const hit = document.elementFromPoint(cx, cy);
              if (!hit || !(hit === c || c.contains(hit) || (hit.control && hit.control === c))) {
                blocked.push(name + " covered by " + (hit ? hit.tagName.toLowerCase() + (hit.id ? "#" + hit.id : "") + "." + hit.className : "nothing"));
              }
            }
            const m = document.querySelector(sel).getBoundingClientRect();
            const nav = document.querySelector("nav.top");
            return { iw: innerWidth, ih: innerHeight, sw: document.documentElement.scrollWidth,
              nav: nav ? nav.getBoundingClientRect().bottom : 0, main: [m.left, m.top, m.right, m.bottom], blocked };
            """;

    /**
     * Every {@code <time>} reads as the instant in {@link #ZONE} (or "N ago"), with the UTC
     * instant in its title; no date and time is shown outside one; the navigation bar names
     * the zone.
     */
    private List<String> times(String at) {
        List<String> problems = new ArrayList<>();
        @SuppressWarnings("unchecked")
        List<List<String>> found = (List<List<String>>) browser.driver.executeScript("""
                return [...document.querySelectorAll("time")].map((t) => [t.dateTime, t.textContent, t.title]);""");
        for (List<String> t : found) {
            Instant i = Instant.parse(t.get(0));
            String local = LOCAL.format(i);
            if (!(t.get(1).equals(local) || t.get(1).endsWith(" ago") && t.get(2).contains(local))) {
                problems.add(at + "a time reads '" + t.get(1) + "', in " + ZONE + " it is " + local);
            }
            if (!t.get(2).startsWith(UTC.format(i))) {
                problems.add(at + "a time's title is '" + t.get(2) + "', not its UTC instant " + UTC.format(i));
            }
        }
        @SuppressWarnings("unchecked")
        List<String> loose = (List<String>) browser.driver.executeScript("""
                const out = [];
                const walk = document.createTreeWalker(document.querySelector("main") || document.body, NodeFilter.SHOW_TEXT);
                for (let n = walk.nextNode(); n; n = walk.nextNode()) {
                  if (/\\d{4}-\\d\\d-\\d\\d[ T]\\d\\d:\\d\\d/.test(n.data) && !n.parentElement.closest("time, pre, code, textarea"))
                    out.push(n.data.trim().slice(0, 80));
                }
                return out;""");
        for (String l : loose) {
            problems.add(at + "a time shown without its zone's reading and UTC title: '" + l + "'");
        }
        List<WebElement> zone = browser.driver.findElements(By.id("zone"));
        // where a page shows times (the log-in page and the 404 show none, and have no session's navigation bar)
        if (!found.isEmpty() && (zone.isEmpty() || !zone.get(0).getText().contains("UTC+05:30"))) {
            problems.add(at + "the navigation bar does not name the zone: "
                    + (zone.isEmpty() ? "no #zone" : zone.get(0).getText()));
        }
        return problems;
    }

    /**
     * The runs table by its start time, by mouse and by keyboard; the history table by a
     * number column, where text order and number order differ ("9.7" after "16661" as text).
     */
    private void sorting() {
        browser.open(base + "/ui/runs.html");
        browser.awaitElement(60, "#runs-table tbody tr");
        WebElement started = header("#runs-table", "started");
        // its place: the runs table starts with the column of the boxes that pick two runs to compare
        int at = Integer.parseInt(String.valueOf(browser.driver.executeScript("return arguments[0].cellIndex", started)));
        assertEquals("0", started.getAttribute("tabindex"), "the header is not a tab stop");
        started.click();
        assertEquals("ascending", started.getAttribute("aria-sort"));
        List<Long> asc = instants("#runs-table", at);
        assertTrue(asc.size() >= 3, "runs shown: " + asc);
        assertEquals(asc.stream().sorted().toList(), asc, "runs by start, ascending");
        started.sendKeys(Keys.ENTER);
        assertEquals("descending", started.getAttribute("aria-sort"));
        assertEquals(started, browser.driver.switchTo().activeElement(), "Enter on a header that has no focus");
        List<Long> desc = instants("#runs-table", at);
        List<Long> reversed = new ArrayList<>(asc);
        java.util.Collections.reverse(reversed);
        assertEquals(reversed, desc, "runs by start, descending");

        browser.open(base + "/ui/" + "history.html" + pages.get("history")[0]);
        browser.awaitElement(60, "#history-table tbody tr");
        WebElement max = header("#history-table", "max (us)");
        int col = Integer.parseInt(String.valueOf(browser.driver.executeScript("return arguments[0].cellIndex", max)));
        max.sendKeys(Keys.SPACE);
        assertEquals("ascending", max.getAttribute("aria-sort"));
        List<Double> values = new ArrayList<>();
        for (WebElement td : browser.driver.findElements(By.cssSelector("#history-table tbody tr td:nth-child(" + (col + 1)
                + ")"))) {
            values.add(Double.parseDouble(td.getText().trim()));
        }
        assertTrue(new TreeSet<>(values).size() >= 2, "too few different values to tell an order: " + values);
        assertEquals(values.stream().sorted().toList(), values, "max (us) as numbers, ascending");
        max.click();
        assertEquals("descending", max.getAttribute("aria-sort"));
    }

    private WebElement header(String table, String text) {
        for (WebElement th : browser.driver.findElements(By.cssSelector(table + " thead th"))) {
            if (th.getText().replaceAll("[\\u2195\\u25B2\\u25BC]", "").trim().equals(text)) {
                return th;
            }
        }
        throw new AssertionError("no header '" + text + "' in " + table);
    }

    private List<Long> instants(String table, int col) {
        List<Long> out = new ArrayList<>();
        for (WebElement t : browser.driver.findElements(By.cssSelector(table + " tbody tr td:nth-child(" + (col + 1)
                + ") time"))) {
            out.add(Instant.parse(t.getAttribute("datetime")).toEpochMilli());
        }
        return out;
    }

    /** Every request of every page since the browser started: to the control room only. */
    private void requests() {
        List<String> urls = browser.requests();
        Set<String> hosts = new TreeSet<>();
        for (String u : urls) {
            URI uri = URI.create(u);
            // data:, blob: and the browser's own chrome:// pages (its new-tab page at launch) leave no machine
            if (Set.of("data", "blob", "about", "chrome").contains(uri.getScheme())) {
                continue;
            }
            hosts.add(uri.getScheme() + "://" + uri.getHost());
        }
        System.out.printf("ControlScreens: %d requests recorded, to %s%n", urls.size(), hosts);
        // The recorder saw the pages' own requests: a log that recorded nothing would pass anything.
        assertTrue(urls.contains(base + "/ui/sort.js") && urls.stream().anyMatch(u -> u.startsWith(base + "/api/v1/runs")),
                "the request log lacks the pages' own requests: " + urls.size() + " recorded");
        assertEquals(Set.of("http://127.0.0.1"), hosts, "requests beyond the control room");
    }

    private static long n(Object o) {
        return Math.round(((Number) o).doubleValue());
    }
}
