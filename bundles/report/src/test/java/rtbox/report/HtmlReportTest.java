package rtbox.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

class HtmlReportTest {
    private static int count(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    @Test
    void oneSeriesPerThreadAndOneDotPerSpikeWithItsCause() {
        String html = HtmlReport.render("FAT", "FAIL", List.of(new ReportCell("fifo x none", Fixtures.report("rtbox run timer"))));
        assertEquals(2, count(html, "<path class=\"series\""));
        assertEquals(4, count(html, "<circle class=\"spike\""));
        assertEquals(2, count(html, "data-cause=\"RT throttling\""));
        assertTrue(html.contains("data-series=\"cpu 1\""));
        assertTrue(html.contains("<td>fifo x none</td><td>FAIL</td><td>51000</td>"), "matrix row");
    }

    @Test
    void textIsEscaped() {
        String html = HtmlReport.render("<x>", "FAIL", List.of(new ReportCell("a&b", Fixtures.report("<script>"))));
        assertFalse(html.contains("<script>"));
        assertTrue(html.contains("&lt;script&gt;"));
        assertTrue(html.contains("a&amp;b"));
    }

    @Test
    void everyCellGetsARowAndASection() {
        List<ReportCell> cells = List.of(new ReportCell("iso@70 x none", Fixtures.report("a")),
                new ReportCell("iso@90 x none", Fixtures.report("b")), new ReportCell("fifo x compile", Fixtures.report("c")));
        String html = HtmlReport.render("seed 004", "FAIL", cells);
        assertEquals(3, count(html, "<section class=\"cell\""));
        assertEquals(4, count(html, "<tr"), "header and three rows");
        assertEquals(6, count(html, "<path class=\"series\""));
    }
}
