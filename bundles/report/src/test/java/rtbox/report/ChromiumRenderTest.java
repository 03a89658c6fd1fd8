package rtbox.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.imageio.ImageIO;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Opens the report in a real browser (Debian's headless Chromium), takes a screenshot
 * and counts the pixels of each plotted series' colour: the plots render, and every
 * series and every spike cause is on the page. CI installs chromium; on a developer
 * machine without it the test is skipped and says so.
 */
class ChromiumRenderTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    @TempDir
    Path dir;

    @Test
    void plotsRenderWithEverySeries() throws Exception {
        boolean ci = System.getenv("CI") != null;
        if (!Files.isExecutable(CHROMIUM)) {
            Assumptions.assumeTrue(ci, "no /usr/bin/chromium here (apt-get install chromium): browser check skipped");
            throw new AssertionError("CI must install chromium (.ci/run does)");
        }
        Path html = dir.resolve("report.html");
        Files.writeString(html, HtmlReport.render("rtbox", "FAIL",
                List.of(new ReportCell("fifo x none", Fixtures.report("rtbox run timer")))));
        Path png = dir.resolve("shot.png");
        Process p = new ProcessBuilder(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--hide-scrollbars", "--user-data-dir=" + dir.resolve("profile"),
                "--window-size=900,1400", "--screenshot=" + png, html.toUri().toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("chromium.log").toFile()).start();
        assertTrue(p.waitFor(90, TimeUnit.SECONDS), "chromium did not finish");
        assertEquals(0, p.exitValue(), Files.readString(dir.resolve("chromium.log")));
        BufferedImage img = ImageIO.read(png.toFile());
        for (String colour : new String[] {HtmlReport.THREAD_COLOURS[0], HtmlReport.THREAD_COLOURS[1],
                HtmlReport.CAUSE_COLOURS.get("RT throttling"), HtmlReport.CAUSE_COLOURS.get("JVM pause")}) {
            int rgb = Integer.parseInt(colour.substring(1), 16);
            int n = 0;
            for (int y = 0; y < img.getHeight(); y++) {
                for (int x = 0; x < img.getWidth(); x++) {
                    if ((img.getRGB(x, y) & 0xffffff) == rgb) {
                        n++;
                    }
                }
            }
            assertTrue(n > 40, "colour " + colour + " drawn on only " + n + " pixels");
        }
    }
}
