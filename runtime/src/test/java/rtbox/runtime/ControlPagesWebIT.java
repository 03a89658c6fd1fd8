package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import rtbox.runtime.fleet.SimulatedAppliance;
import rtbox.runtime.fleet.SimulatedFleet;

/**
 * The pages an operator looks for (issue 32 item 4), in Debian's headless Chromium against
 * one real control room (booted once for every case here) with a simulated appliance a1 on
 * a real mosquitto, whose two runs carry a real appliance's cell (plans/quick.json's timer
 * cell, a histogram with single samples out to 4.7 ms): the users page makes and disables a
 * user; the appliance page shows a1 and saves its site and line and runs the self-test; the
 * runs page's "cells" column and two runs ticked and compared; the control room's own 404
 * (page and JSON); an unknown run id said plainly; and the per-CPU histogram with no line
 * across its empty buckets (pixels).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ControlPagesWebIT {
    private static final String CPU0 = "#1f77b4";
    @TempDir
    static Path dir;
    private Mosquitto broker;
    private ControlServer control;
    private SimulatedFleet fleet;
    private Browser browser;
    private String base;
    private List<String> runs;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @BeforeAll
    void boot() throws Exception {
        if (!Browser.available()) {
            Assumptions.assumeTrue(System.getenv("CI") != null,
                    "no chromium and chromium-driver here (apt-get install chromium chromium-driver): skipped");
            throw new AssertionError("CI must install chromium and chromium-driver (.ci/run does)");
        }
        broker = new Mosquitto(Files.createDirectories(dir.resolve("broker")), "a1");
        control = new ControlServer(Files.createDirectories(dir.resolve("control")), broker);
        base = "http://127.0.0.1:" + control.port;
        fleet = new SimulatedFleet(List.of("a1"), i -> Mosquitto.PASSWORD, i -> new String[] {broker.uri()}, 5).start(0);
        assertTrue(fleet.awaitConnected(60_000), "a1 did not connect");
        ControlServer.Client admin = control.client();
        assertEquals(200, admin.login("admin", control.adminPassword()).status());
        SimulatedAppliance a1 = fleet.get(0);
        for (int i = 1; i <= 2; i++) {
            int want = i;
            Await.until(30_000, () -> "a1 starts plan " + want, () -> a1.startPlan(2, 100));
            Await.until(30_000, () -> "run " + want + " of a1 stored with its verdict", () -> {
                JsonObject r = admin.get("/runs?appliance=a1").json();
                return r.get("total").getAsInt() == want && !r.getAsJsonArray("runs").get(0).getAsJsonObject()
                        .get("verdict").isJsonNull() && !a1.busy();
            });
        }
        runs = new java.util.ArrayList<>();
        admin.get("/runs?appliance=a1").json().getAsJsonArray("runs")
                .forEach(r -> runs.add(r.getAsJsonObject().get("run").getAsString()));
        Await.until(30_000, () -> "a1 online and idle",
                () -> "online".equals(admin.get("/appliances/a1").json().get("state").getAsString()));

        browser = new Browser(Files.createDirectories(dir.resolve("browser")).resolve("profile"), 1280, 900);
        browser.open(base + "/ui/fleet.html");
        browser.awaitElement(30, "#login");
        browser.find("#user").sendKeys("admin");
        browser.find("#password").sendKeys(control.adminPassword());
        browser.find("#login-button").click();
        browser.awaitElement(30, "#fleet-table tr[data-appliance=a1]");
    }

    @AfterAll
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {browser, fleet, control, broker}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    void usersPageMakesAUserAndDisablesIt() throws Exception {
        browser.open(base + "/ui/users.html");
        browser.awaitElement(30, "#users-table tr[data-user=admin]");
        assertTrue(browser.find("nav.top a[href='/ui/users.html']").getAttribute("class").contains("active"));
        browser.find("#user-name").sendKeys("oper1");
        new Select(browser.find("#user-role")).selectByValue("operator");
        browser.find("#user-password").sendKeys("a-long-password-1");
        browser.find("#user-add").click();
        browser.awaitElement(30, "#users-table tr[data-user=oper1] .user-state.enabled");
        assertEquals("operator", new Select(browser.find("#users-table tr[data-user=oper1] select.role"))
                .getFirstSelectedOption().getText());
        ControlServer.Client oper = control.client();
        assertEquals(200, oper.login("oper1", "a-long-password-1").status());
        assertEquals(200, oper.get("/session").status());

        browser.find("#users-table tr[data-user=oper1] button.disable").click();
        browser.driver.switchTo().alert().accept();
        WebElement badge = browser.awaitElement(30, "#users-table tr[data-user=oper1] .user-state.disabled");
        assertTrue(Browser.count(Browser.shot(badge), "#ffcdd2") > 50, "the disabled badge's colour");
        assertTrue(Browser.count(Browser.shot(browser.find("#users-table tr[data-user=admin] .user-state")), "#c8e6c9") > 50,
                "the enabled badge's colour");
        // Disabled: its session ended, and a log-in with the right password says why it is refused.
        assertEquals(401, oper.get("/session").status());
        ControlServer.Client.Response again = control.client().login("oper1", "a-long-password-1");
        assertEquals(401, again.status(), again.body());
        assertTrue(again.body().contains("disabled"), again.body());
        keep("users.png");
        ControlServer.Client.Response wrong = control.client().login("oper1", "not-the-password-1");
        assertEquals("{\"error\":\"wrong user name or password\"}", wrong.body(), "a wrong password tells nothing more");
    }

    @Test
    void appliancePageShowsA1SavesItsPlaceAndRunsTheSelftest() throws Exception {
        browser.open(base + "/ui/fleet.html");
        browser.awaitElement(30, "#fleet-table tr[data-appliance=a1] a[href*='appliance.html']").click();
        browser.awaitElement(30, "#appliance-state .state.online");
        assertEquals("Appliance a1", browser.find("h1").getText());
        assertEquals(2, browser.driver.findElements(By.cssSelector("#appliance-runs-table tbody tr")).size());
        assertTrue(browser.find("#queue-empty").isDisplayed());

        WebElement site = browser.find("#appliance-site");
        site.clear();
        site.sendKeys("plant1");
        WebElement line = browser.find("#appliance-line");
        line.clear();
        line.sendKeys("line3");
        browser.find("#place-save").click();
        browser.awaitElement(30, "#place-saved");
        JsonObject a1 = get("/appliances/a1");
        assertEquals("plant1", a1.get("site").getAsString());
        assertEquals("line3", a1.get("line").getAsString());

        // The self-test button sends MQTT selftest; the simulated appliance does not do it and says so (404):
        // the page shows that answer in red. (SelftestIT and MqttCommandsIT run the real one on an appliance.)
        browser.find("#selftest-run").click();
        WebElement answer = browser.awaitElement(40, "#appliance-selftest .msg.error");
        assertTrue(answer.getText().contains("FAILED") && answer.getText().contains("does not do 'selftest'"),
                answer.getText());
        assertTrue(Browser.count(Browser.shot(answer), "#ffebee") > 500, "the failed self-test's colour");
        browser.await(30, d -> d.findElements(By.id("selftest-waiting")).isEmpty());
        keep("appliance.png");
        String audit = get("/audit?user=admin").toString();
        assertTrue(audit.contains("\"action\":\"selftest\"") && audit.contains("\"action\":\"appliance-set\""), audit);
    }

    @Test
    void runsPageCountsCellsAndComparesTwoTickedRuns() throws Exception {
        browser.open(base + "/ui/runs.html");
        browser.awaitElement(30, "#runs-table tbody tr");
        List<WebElement> rows = browser.driver.findElements(By.cssSelector("#runs-table tbody tr"));
        assertEquals(2, rows.size());
        for (WebElement r : rows) {
            assertEquals("2/2", r.findElement(By.cssSelector("td:nth-child(8)")).getText(), "cells column");
        }
        assertFalse(browser.find("#compare-picked").isEnabled());
        rows.get(1).findElement(By.cssSelector("input.pick")).click();
        rows.get(0).findElement(By.cssSelector("input.pick")).click();
        assertTrue(browser.find("#compare-picked").isEnabled());
        browser.find("#compare-picked").click();
        browser.awaitElement(30, "#deltas tbody tr");
        String url = browser.driver.getCurrentUrl();
        assertTrue(url.contains("a=a1%2F" + runs.get(1)) && url.contains("b=a1%2F" + runs.get(0)), url);
        assertEquals(2, browser.driver.findElements(By.cssSelector("#deltas tbody tr")).size());
        WebElement overlay = browser.awaitElement(30, ".plot.overlay");
        BufferedImage plot = Browser.shot(overlay);
        // b is drawn over a (the same recorded cell): b's colour on the canvas, both in the legend.
        assertTrue(Browser.count(plot, "#ff7f0e") > 300, "run b's histogram not drawn");
        assertTrue(Browser.count(plot, CPU0) > 50, "run a's legend swatch");
        assertTrue(overlay.getText().contains("a: a1/" + runs.get(1)) && overlay.getText().contains("b: a1/" + runs.get(0)),
                overlay.getText());
    }

    @Test
    void unknownPathsGetTheControlRoomsOwn404() throws Exception {
        for (String path : new String[] {"/ui/nope.html", "/nope/deeper", "/ui/lib/nope.js"}) {
            HttpResponse<String> r = raw("GET", path);
            assertEquals(404, r.statusCode(), path);
            assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/html"), path);
            assertTrue(r.body().contains("id=\"not-found\"") && !r.body().toLowerCase().contains("jetty"), path + ": " + r.body());
        }
        for (String path : new String[] {"/api/nope", "/api"}) {
            HttpResponse<String> r = raw("POST", path);
            assertEquals(404, r.statusCode(), path);
            assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/json"), path);
            assertEquals("no such API path: " + path + " (the API is under /api/v1/: docs/control-api.md)",
                    JsonParser.parseString(r.body()).getAsJsonObject().get("error").getAsString());
        }
        browser.open(base + "/ui/nope.html?x=<b>1</b>");
        WebElement page = browser.awaitElement(30, "#not-found");
        assertEquals("/ui/nope.html?x=%3Cb%3E1%3C/b%3E", browser.find("#not-found-path").getText());
        assertTrue(page.getText().contains("Page not found"));
        assertTrue(Browser.count(browser.shot(), "#263238") > 10_000, "the control room's navigation bar");
    }

    @Test
    void anUnknownRunIdSaysSo() throws Exception {
        browser.open(base + "/ui/run.html?appliance=a1&run=no-such-run");
        WebElement m = browser.awaitElement(30, "#no-run");
        assertEquals("No such run", browser.find("h1").getText());
        assertTrue(m.getText().contains("The control room has no run 'no-such-run' of appliance 'a1'"), m.getText());
        assertTrue(Browser.count(Browser.shot(m), "#ffebee") > 500, "the message's colour");
        // The live page with a run that is not APPLIANCE/RUN: said so, no card for it.
        browser.open(base + "/ui/live.html?runs=garbage");
        WebElement live = browser.awaitElement(30, "#messages .msg.error");
        assertTrue(live.getText().contains("'garbage' is not a run"), live.getText());
        assertTrue(browser.driver.findElements(By.cssSelector(".live-card")).isEmpty(), "a card for 'garbage'");
    }

    /**
     * The recorded cell has single samples at 2586 and 4689 us and none between: no line may
     * cross that stretch (uPlot's stepped path drew one at count 1 across it); the buckets
     * themselves are drawn.
     */
    @Test
    void histogramDrawsNoLineAcrossEmptyBuckets() throws Exception {
        browser.open(base + "/ui/run.html?appliance=a1&run=" + runs.get(0));
        WebElement holder = browser.awaitElement(60, ".plot.histogram[data-cell]");
        browser.awaitElement(30, ".plot.histogram[data-cell] canvas");
        browser.await(30, d -> holder.getAttribute("data-range"));
        String[] range = holder.getAttribute("data-range").split(",");
        double min = Double.parseDouble(range[0]), max = Double.parseDouble(range[1]);
        @SuppressWarnings("unchecked")
        List<Number> box = (List<Number>) browser.driver.executeScript("const h = arguments[0], r = h.getBoundingClientRect(),"
                + " o = h.querySelector('.u-over').getBoundingClientRect();"
                + " return [o.left - r.left, o.top - r.top, o.width, o.height];", holder);
        BufferedImage img = Browser.shot(holder);
        Browser.save(img, Path.of("target", "ControlPagesWebIT-histogram.png").toFile()); // to look at when it fails
        double left = box.get(0).doubleValue(), top = box.get(1).doubleValue(), width = box.get(2).doubleValue();
        int bottom = (int) (top + box.get(3).doubleValue());
        java.util.function.DoubleToIntFunction x = us -> (int) Math.round(left + width
                * (Math.log10(us) - Math.log10(min)) / (Math.log10(max) - Math.log10(min)));
        int across = count(img, CPU0, x.applyAsInt(2700), x.applyAsInt(4550), (int) top, bottom);
        int outlier = count(img, CPU0, x.applyAsInt(4600), x.applyAsInt(4800), (int) top, bottom);
        int all = count(img, CPU0, (int) left, (int) (left + width), (int) top, bottom);
        assertEquals(0, across, "a line across the empty buckets from 2.7 to 4.55 ms");
        assertTrue(outlier >= 8, "the single sample at 4689 us is not drawn: " + outlier);
        assertTrue(all > 300, "the histogram is not drawn: " + all);
    }

    /** The whole page for bundles/control.web/doc/ when -Drtbox.web.screenshots=true (as ControlRoomWebIT does). */
    private void keep(String name) throws Exception {
        if (Boolean.getBoolean("rtbox.web.screenshots")) {
            browser.page(Path.of("..", "bundles", "control.web", "doc", name));
        }
    }

    /**
     * Pixels near {@code colour} (each of red, green, blue within 60: a line's anti-aliased
     * edge counts, the grid's grey and the axes' black do not) in the rectangle.
     */
    private static int count(BufferedImage img, String colour, int x0, int x1, int y0, int y1) {
        int rgb = Integer.parseInt(colour.substring(1), 16), n = 0;
        for (int y = Math.max(0, y0); y < Math.min(img.getHeight(), y1); y++) {
            for (int xx = Math.max(0, x0); xx < Math.min(img.getWidth(), x1); xx++) {
                int p = img.getRGB(xx, y);
                boolean near = true;
                for (int shift = 0; shift <= 16; shift += 8) {
                    near &= Math.abs((p >> shift & 0xff) - (rgb >> shift & 0xff)) <= 60;
                }
                n += near ? 1 : 0;
            }
        }
        return n;
    }

    private JsonObject get(String path) throws Exception {
        ControlServer.Client c = control.client();
        c.login("admin", control.adminPassword());
        ControlServer.Client.Response r = c.get(path);
        assertEquals(200, r.status(), r.body());
        return r.json();
    }

    private HttpResponse<String> raw(String method, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }
}
