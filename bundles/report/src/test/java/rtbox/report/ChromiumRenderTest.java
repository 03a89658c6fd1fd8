package rtbox.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opens the report in a real browser (Debian's headless Chromium, offline: the page
 * fetches nothing), reads where plots.js says it drew each plot (--dump-dom), takes a
 * screenshot (--screenshot) and checks the pixels there: every CPU's colour on the
 * histogram canvas, grid lines across both axes, the threshold line in its colour at the
 * x where a log latency axis puts 1000 us, every spike cause's colour, both cells in the
 * overlay, the pWCET's exceedance plot (block maxima, fitted tail rising to the right, its band,
 * the threshold across it). CI installs chromium; on a developer machine without it the test is skipped
 * and says so. With -Drtbox.report.screenshot=FILE the screenshot is kept (the README's).
 */
class ChromiumRenderTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final int WIDTH = 1000, HEIGHT = 3200;

    @TempDir
    static Path dir;

    private static BufferedImage shot;
    private static String dom;

    /** One report, one DOM dump and one screenshot for all the checks below. */
    @BeforeAll
    static void render() throws Exception {
        boolean ci = System.getenv("CI") != null;
        if (!Files.isExecutable(CHROMIUM)) {
            Assumptions.assumeTrue(ci, "no /usr/bin/chromium here (apt-get install chromium): browser check skipped");
            throw new AssertionError("CI must install chromium (.ci/run does)");
        }
        Path html = dir.resolve("report.html");
        Files.writeString(html, HtmlReport.render("rtbox plan quick (run-1)", "plans/quick.json", "FAIL: two cells",
                List.of(new ReportCell("fifo x none", Fixtures.withPwcet(Fixtures.report("rtbox plan run /tmp/x.json # cell 1"))),
                        new ReportCell("fifo x pipe", Fixtures.report("rtbox plan run /tmp/x.json # cell 2", 150)))));
        dom = chromium(html, "--dump-dom");
        Path png = dir.resolve("shot.png");
        chromium(html, "--screenshot=" + png);
        shot = ImageIO.read(png.toFile());
        String keep = System.getProperty("rtbox.report.screenshot");
        if (keep != null && !keep.isBlank()) {
            // The top of the page (header, table, overlay, first cell's plots): what a README can show.
            ImageIO.write(shot.getSubimage(0, 0, WIDTH, Math.min(HEIGHT, 1900)), "png", Path.of(keep).toFile());
        }
    }

    private static String chromium(Path html, String what) throws Exception {
        Path log = dir.resolve("chromium.log");
        List<String> cmd = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--hide-scrollbars", "--force-device-scale-factor=1",
                "--user-data-dir=" + dir.resolve("profile"), "--window-size=" + WIDTH + "," + HEIGHT, what,
                html.toUri().toString()));
        Path out = dir.resolve("chromium.out");
        Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).redirectOutput(out.toFile()).start();
        assertTrue(p.waitFor(90, TimeUnit.SECONDS), "chromium did not finish");
        assertEquals(0, p.exitValue(), Files.readString(log));
        return Files.readString(out);
    }

    /** The numbers of one data-* attribute of the plot holder of class {@code kind} (the n-th such). */
    private double[] attr(String kind, int nth, String name) {
        Matcher m = Pattern.compile("<div class=\"plot " + kind + "\"[^>]*>").matcher(dom);
        for (int i = 0; i <= nth; i++) {
            assertTrue(m.find(), "no plot '" + kind + "' #" + i + " in the DOM: plots.js did not run");
        }
        Matcher a = Pattern.compile(name + "=\"([^\"]*)\"").matcher(m.group());
        assertTrue(a.find(), "plot '" + kind + "' has no " + name + ": " + m.group());
        String[] parts = a.group(1).split(",");
        double[] v = new double[parts.length];
        for (int i = 0; i < parts.length; i++) {
            v[i] = Double.parseDouble(parts[i]);
        }
        return v;
    }

    private int count(double[] box, String colour) {
        int rgb = Integer.parseInt(colour.substring(1), 16), n = 0;
        for (int y = (int) box[1]; y < box[1] + box[3]; y++) {
            for (int x = (int) box[0]; x < box[0] + box[2]; x++) {
                n += (shot.getRGB(x, y) & 0xffffff) == rgb ? 1 : 0;
            }
        }
        return n;
    }

    private boolean is(int x, int y, String colour) {
        return (shot.getRGB(x, y) & 0xffffff) == Integer.parseInt(colour.substring(1), 16);
    }

    @Test
    void histogramHasEveryCpuGridAndTheThresholdWhereALogAxisPutsIt() {
        double[] box = attr("histogram", 0, "data-plot-box");
        for (String colour : new String[] {HtmlReport.THREAD_COLOURS[0], HtmlReport.THREAD_COLOURS[1]}) {
            int n = count(box, colour);
            assertTrue(n > 200, "CPU colour " + colour + " drawn on only " + n + " pixels of the histogram");
        }
        // Grid: whole columns and whole rows of the grid colour (lines interrupted only by series).
        int columns = 0, rows = 0;
        for (int x = (int) box[0]; x < box[0] + box[2]; x++) {
            int n = 0;
            for (int y = (int) box[1]; y < box[1] + box[3]; y++) {
                n += is(x, y, HtmlReport.GRID_COLOUR) ? 1 : 0;
            }
            columns += n > box[3] / 2 ? 1 : 0;
        }
        for (int y = (int) box[1]; y < box[1] + box[3]; y++) {
            int n = 0;
            for (int x = (int) box[0]; x < box[0] + box[2]; x++) {
                n += is(x, y, HtmlReport.GRID_COLOUR) ? 1 : 0;
            }
            rows += n > box[2] / 2 ? 1 : 0;
        }
        assertTrue(columns >= 3, "only " + columns + " vertical grid lines");
        assertTrue(rows >= 3, "only " + rows + " horizontal grid lines");

        // The x axis is logarithmic: 1000 us sits at log(1000/lo)/log(hi/lo) of the width.
        double[] range = attr("histogram", 0, "data-range");
        assertEquals(1000, attr("histogram", 0, "data-threshold")[0], 0);
        double expected = box[0] + box[2] * Math.log(1000 / range[0]) / Math.log(range[1] / range[0]);
        assertEquals(expected, attr("histogram", 0, "data-threshold-px")[0], 2.5, "threshold not at 1000 us on a log axis");
        int best = 0;
        for (int x = (int) expected - 2; x <= expected + 2; x++) {
            int n = 0;
            for (int y = (int) box[1]; y < box[1] + box[3]; y++) {
                n += is(x, y, HtmlReport.THRESHOLD_COLOUR) ? 1 : 0;
            }
            best = Math.max(best, n);
        }
        assertTrue(best > box[3] * 0.8, "no threshold line at x=" + expected + ": " + best + " of " + box[3] + " pixels");
        // The bulk (40 to 120 us) is not squeezed to the left edge: it spans a good part of the width.
        int left = Integer.MAX_VALUE, right = 0;
        for (int x = (int) box[0]; x < box[0] + box[2]; x++) {
            for (int y = (int) box[1]; y < box[1] + box[3]; y++) {
                if (is(x, y, HtmlReport.THREAD_COLOURS[0])) {
                    left = Math.min(left, x);
                    right = Math.max(right, x);
                }
            }
        }
        assertTrue(right - left > box[2] * 0.15, "the bulk spans only " + (right - left) + " of " + box[2] + " pixels");
    }

    @Test
    void spikesAreColouredByCause() {
        double[] box = attr("spikes", 0, "data-plot-box");
        for (String cause : new String[] {"RT throttling", "JVM pause", "unexplained"}) {
            int n = count(box, HtmlReport.CAUSE_COLOURS.get(cause));
            assertTrue(n > 20, "cause " + cause + " drawn on only " + n + " pixels");
        }
        double[] line = attr("spikes", 0, "data-threshold-px");
        int n = 0;
        for (int x = (int) box[0]; x < box[0] + box[2]; x++) {
            for (int y = (int) line[0] - 2; y <= line[0] + 2; y++) {
                n += is(x, y, HtmlReport.THRESHOLD_COLOUR) ? 1 : 0;
            }
        }
        assertTrue(n > box[2] * 0.8, "no threshold line across the spike plot at y=" + line[0]);
    }

    /**
     * The control room builds the plot model in the browser from a RunReport's JSON
     * (cellFromRunReport); the report writes it in Java (HtmlReport.model): both must be the
     * same model, or the two would draw the same run differently.
     */
    @Test
    void theBrowsersModelOfARunReportIsTheReportsModel() throws Exception {
        rtbox.api.result.RunReport r = Fixtures.withPwcet(Fixtures.report("x", 7));
        String java = HtmlReport.model(List.of(new ReportCell("c", r)));
        Path html = dir.resolve("model.html");
        Files.writeString(html, "<!DOCTYPE html><html><body><pre id=\"out\"></pre>"
                + "<script type=\"application/json\" id=\"report\">" + rtbox.report.Reports.json(r).replace("</", "<\\/")
                + "</script><script type=\"application/json\" id=\"java\">" + java + "</script>"
                + "<script>" + PlotAssets.text(PlotAssets.UPLOT_JS) + "</script><script type=\"module\">"
                + PlotAssets.text(PlotAssets.PLOTS_JS)
                + "\nconst a = cellFromRunReport('c', JSON.parse(document.getElementById('report').textContent));"
                + "\nconst b = JSON.parse(document.getElementById('java').textContent).cells[0];"
                + "\nconst norm = (m) => JSON.stringify(m, (k, v) => (k === 'avg' || k === 'verdict' ? undefined : v));"
                + "\ndocument.getElementById('out').textContent = norm(a) === norm(b) ? 'SAME' : 'DIFFERENT ' + norm(a) + ' ' + norm(b);"
                + "\n</script></body></html>");
        String out = chromium(html, "--dump-dom");
        assertTrue(out.contains("<pre id=\"out\">SAME</pre>"), out.length() > 4000 ? out.substring(0, 4000) : out);
    }

    @Test
    void pwcetPlotHasTheMaximaTheTailRisingTowardsRareProbabilitiesItsBandAndTheThreshold() {
        double[] box = attr("pwcet", 0, "data-plot-box");
        int maxima = count(box, "#1f77b4");
        assertTrue(maxima > 100, "block maxima drawn on only " + maxima + " pixels");
        // The fit: its leftmost pixels (likely blocks) lower on the page than its rightmost (rare ones).
        int fit = Integer.parseInt("d62728", 16), leftX = Integer.MAX_VALUE, rightX = -1, leftY = 0, rightY = 0, n = 0;
        int band = 0;
        for (int x = (int) box[0]; x < box[0] + box[2]; x++) {
            for (int y = (int) box[1]; y < box[1] + box[3]; y++) {
                int rgb = shot.getRGB(x, y) & 0xffffff;
                if (rgb == fit) {
                    n++;
                    if (x < leftX) {
                        leftX = x;
                        leftY = y;
                    }
                    if (x >= rightX) {
                        rightX = x;
                        rightY = y;
                    }
                }
                int r = rgb >> 16, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
                // The band: the fit's colour at 12 % over white.
                band += r >= 245 && g >= 215 && g <= 240 && Math.abs(g - b) <= 3 ? 1 : 0;
            }
        }
        assertTrue(n > 200, "the fit drawn on only " + n + " pixels");
        assertTrue(rightX - leftX > box[2] * 0.7, "the fit spans " + (rightX - leftX) + " of " + box[2] + " pixels");
        assertTrue(rightY < leftY - box[3] * 0.3, "the tail does not rise to the right: " + leftY + " -> " + rightY);
        assertTrue(band > 1000, "the confidence band covers only " + band + " pixels");
        assertEquals(Fixtures.PWCET_US, attr("pwcet", 0, "data-threshold")[0], 0);
        double[] line = attr("pwcet", 0, "data-threshold-px");
        int across = 0;
        for (int x = (int) box[0]; x < box[0] + box[2]; x++) {
            boolean hit = false;
            for (int y = (int) line[0] - 2; y <= line[0] + 2; y++) {
                hit |= is(x, y, HtmlReport.THRESHOLD_COLOUR);
            }
            across += hit ? 1 : 0;
        }
        assertTrue(across > box[2] * 0.8, "no threshold line across the pWCET plot at y=" + line[0]);
    }

    @Test
    void overlayShowsBothCells() {
        double[] box = attr("overlay", 0, "data-plot-box");
        for (String colour : new String[] {HtmlReport.CELL_COLOURS[0], HtmlReport.CELL_COLOURS[1]}) {
            int n = count(box, colour);
            assertTrue(n > 200, "cell colour " + colour + " drawn on only " + n + " pixels of the overlay");
        }
        assertTrue(dom.contains("plan file: <b>plans/quick.json</b>"), "plan file in the header");
    }
}
