package rtbox.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

/**
 * Issue 35's "the control room's regression page and rtbox compare give the same numbers for the
 * same sets": two runs of a plan that repeats its one cell 3 times ({@code rtbox job PLAN
 * --report DIR}, which stores the runs in the control room's database too) are set A and set
 * B, 3 + 3 runs. {@code rtbox compare A/report.json -- B/report.json} prints its table; the
 * regression page in Debian's headless Chromium shows the same table for local/A and local/B,
 * every number the same, the same whole verdict, its badge's colour and both sets' histograms
 * overlaid in the pixels. Then the acceptance record of run B carries the verdict with both
 * sets named, a record without one is issued as before, and the chain verifies.
 */
class RegressionPageIT {
    private static final Pattern LINE = Pattern.compile("^(\\S.*?)\\s+(p50 \\(us\\)|p99 \\(us\\)|p99\\.9 \\(us\\)"
            + "|max \\(us\\)|missed deadlines|xruns)\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)\\s+(\\[[^\\]]*\\]|-)"
            + "\\s+(\\S+)\\s+(d \\S+|-)\\s+(\\S.*)$");
    @TempDir
    Path home;
    @TempDir
    Path brokerDir;
    @TempDir
    Path browserDir;
    private Mosquitto broker;
    private ControlServer control;
    private Browser browser;

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : new AutoCloseable[] {browser, control, broker}) {
            if (c != null) {
                c.close();
            }
        }
    }

    @Test
    void thePageAndRtboxCompareGiveTheSameNumbersAndTheRecordCarriesTheVerdict() throws Exception {
        if (!Browser.available()) {
            Assumptions.assumeTrue(System.getenv("CI") != null,
                    "no chromium and chromium-driver here (apt-get install chromium chromium-driver): skipped");
            throw new AssertionError("CI must install chromium and chromium-driver (.ci/run does)");
        }
        Path plan = home.resolve("ab.json");
        Files.writeString(plan, "{\"rtbox_plan\": 1, \"name\": \"ab\", \"probe\": \"timer\", \"duration\": \"1s\","
                + " \"warmup\": \"200ms\", \"repetitions\": 3, \"cells\": [{\"name\": \"idle\"}]}");
        String runA = job(plan, "A"), runB = job(plan, "B");

        Rtbox.Result cli;
        try (Rtbox rtbox = new Rtbox(home)) {
            cli = rtbox.run(60, "compare", home.resolve("A/report.json").toString(), "--",
                    home.resolve("B/report.json").toString());
        }
        assertTrue(cli.exitCode() == 0 || cli.exitCode() == 1, cli.stdout() + cli.stderr());
        List<String> cliRows = new ArrayList<>();
        for (String l : cli.stdout().lines().toList()) {
            Matcher m = LINE.matcher(l);
            if (m.matches()) {
                cliRows.add(String.join("|", m.group(1), m.group(2), m.group(3), m.group(4), m.group(5), m.group(6),
                        m.group(7), m.group(8), m.group(9), m.group(10), m.group(11).strip()));
            }
        }
        assertEquals(5, cliRows.size(), "p50, p99, p99.9, max, missed deadlines of cell idle: " + cli.stdout());
        String cliVerdict = cli.stdout().lines().reduce((x, y) -> y).orElseThrow();
        assertTrue(cliVerdict.contains("n = 3 + 3"), cliVerdict);

        broker = new Mosquitto(brokerDir, "local");
        control = new ControlServer(home, broker);
        String base = "http://127.0.0.1:" + control.port;
        browser = new Browser(browserDir.resolve("profile"), 1280, 800);
        browser.open(base + "/ui/regression.html?a=" + enc("local/" + runA) + "&b=" + enc("local/" + runB));
        browser.awaitElement(60, "#login");
        browser.find("#user").sendKeys("admin");
        browser.find("#password").sendKeys(control.adminPassword());
        browser.find("#login-button").click();
        browser.awaitElement(60, "#changes tbody tr");
        List<String> pageRows = new ArrayList<>();
        for (WebElement tr : browser.driver.findElements(By.cssSelector("#changes tbody tr"))) {
            List<String> cells = tr.findElements(By.tagName("td")).stream().map(td -> td.getText().strip()).toList();
            pageRows.add(String.join("|", cells));
        }
        assertEquals(cliRows, pageRows, "the page's table against rtbox compare's");
        String verdict = browser.find("#verdict").getText();
        String whole = cliVerdict.substring(0, cliVerdict.indexOf(':'));
        assertTrue(verdict.startsWith(whole + " B against A: " + whole), verdict + " / " + cliVerdict);
        assertTrue(verdict.contains("n = 3 + 3"), verdict);
        assertEquals("A: 3 runs from 1 stored run (local/" + runA + ")", browser.find("#set-a").getText());
        BufferedImage badge = Browser.shot(browser.find("#verdict .verdict"));
        assertTrue(Browser.count(badge, whole.equals("REGRESSED") ? "#ffcdd2" : "#c8e6c9") > 50,
                "the verdict badge's colour");
        browser.awaitElement(60, ".regression-histograms .plot.overlay canvas");
        BufferedImage overlay = Browser.shot(browser.find(".regression-histograms .plot.overlay"));
        assertTrue(Browser.count(overlay, "#1f77b4") > 100 && Browser.count(overlay, "#ff7f0e") > 100,
                "set A and set B overlaid: " + Browser.count(overlay, "#1f77b4") + " / "
                        + Browser.count(overlay, "#ff7f0e") + " pixels");

        Object widths = browser.driver.executeScript("return [document.documentElement.scrollWidth, innerWidth]");
        assertTrue(((Number) ((java.util.List<?>) widths).get(0)).longValue()
                <= ((Number) ((java.util.List<?>) widths).get(1)).longValue(), "the page with its table and plots does not scroll sideways at 1280 px (page, window): " + widths);
        browser.page(Boolean.getBoolean("rtbox.web.screenshots")
                ? Path.of("..", "bundles", "control.web", "doc", "regression.png") : null);

        // The record: B's run signed off with the regression verdict, both sets named; A's without one.
        ControlServer.Client api = control.client();
        assertEquals(200, api.login("admin", control.adminPassword()).status());
        assertEquals(200, api.post("/appliances/local/accept", "{}").status());
        try (Connection c = control.openDatabase()) {
            c.createStatement().executeUpdate("UPDATE run SET serial = 'SN-1', model = 'X20' WHERE appliance = 'local'");
        }
        JsonObject values = api.get("/regression/values?plan=ab&key=kernel").json();
        JsonObject kernel = values.getAsJsonArray("values").get(0).getAsJsonObject();
        assertEquals(2, kernel.get("runs").getAsInt(), values.toString());
        // By a key, the last N of each value: one kernel for both here, so A is the newest run and B the one before.
        String release = enc(kernel.get("value").getAsString());
        JsonObject byKey = api.get("/regression?plan=ab&key=kernel&a=" + release + "&b=" + release + "&last=1").json();
        assertEquals("local/" + runB, byKey.getAsJsonObject("a").getAsJsonArray("runs").get(0).getAsString(), byKey.toString());
        assertEquals("local/" + runA, byKey.getAsJsonObject("b").getAsJsonArray("runs").get(0).getAsString());
        assertEquals(3, byKey.getAsJsonArray("runs_a").size(), "3 repetitions of the one run");
        ControlServer.Client.Response none = api.get("/regression?plan=ab&key=kernel&a=" + release + "&b=2.6.20");
        assertEquals(400, none.status(), none.body());
        assertTrue(none.body().contains("no run of plan 'ab' with kernel '2.6.20'"), none.body());
        ControlServer.Client.Response wrong = api.post("/records", "{\"appliance\": \"local\", \"run\": \"" + runA
                + "\", \"override_reason\": \"no self-test in a job\", \"regression\": {\"a\": \"local/" + runA
                + "\", \"b\": \"local/" + runB + "\"}}");
        assertEquals(400, wrong.status(), wrong.body());
        assertTrue(wrong.body().contains("is not in set B"), wrong.body());
        assertEquals(201, api.post("/records", "{\"appliance\": \"local\", \"run\": \"" + runA
                + "\", \"override_reason\": \"no self-test in a job\"}").status());
        ControlServer.Client.Response rec = api.post("/records", "{\"appliance\": \"local\", \"run\": \"" + runB
                + "\", \"override_reason\": \"no self-test in a job\", \"regression\": {\"a\": \"local/" + runA
                + "\", \"b\": \"local/" + runB + "\", \"a_name\": \"certified kernel\", \"b_name\": \"new kernel\"}}");
        assertEquals(201, rec.status(), rec.body());
        JsonObject r = rec.json().getAsJsonObject("regression");
        assertEquals(whole, r.get("verdict").getAsString());
        assertEquals("certified kernel", r.getAsJsonObject("a").get("name").getAsString());
        assertEquals("local/" + runB, r.getAsJsonObject("b").getAsJsonArray("runs").get(0).getAsString());
        assertEquals("3 + 3", r.get("n").getAsString());
        assertTrue(r.get("summary").getAsString().endsWith("n = 3 + 3"), r.toString());
        JsonObject verify = api.get("/records/verify").json();
        assertTrue(verify.get("ok").getAsBoolean(), "both records, with and without a regression verdict, verify: "
                + verify);
    }

    /** One {@code rtbox job} of the plan, its report in DIR; the run's id. */
    private String job(Path plan, String dir) throws Exception {
        try (Rtbox job = new Rtbox(home)) {
            Rtbox.Result r = job.run(300, "job", plan.toString(), "--report", home.resolve(dir).toString());
            assertEquals(0, r.exitCode(), "a plan without thresholds is MEASURED: " + r.stdout() + r.stderr());
            assertTrue(r.stdout().contains("rtbox control import: 4 messages stored"), r.stdout() + r.stderr());
            return JsonParser.parseString(Files.readString(home.resolve(dir).resolve("report.json"))).getAsJsonObject()
                    .get("id").getAsString();
        }
    }

    private static String enc(String s) {
        return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8);
    }
}
