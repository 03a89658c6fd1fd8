package rtbox.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
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
    void oneHistogramAndOneSpikePlotPerCellAndTheSpikesGroupedByCause() {
        String html = HtmlReport.render("FAT", "FAIL", List.of(new ReportCell("fifo x none", Fixtures.report("rtbox run timer"))));
        assertEquals(1, count(html, "data-plot=\"histogram\" data-cell=\"0\""));
        assertEquals(1, count(html, "data-plot=\"spikes\" data-cell=\"0\""));
        assertEquals(0, count(html, "data-plot=\"overlay\""), "one cell: nothing to overlay");
        // the list is collapsed and grouped: one <details> per cause, one row per spike
        assertTrue(html.contains("<details class=\"spike-list\"><summary>4 spikes</summary>"), html);
        assertEquals(3, count(html, "<details class=\"cause\""));
        assertEquals(4, count(html, "<tr class=\"spike\">"));
        assertTrue(html.contains("RT throttling: 2, worst 51000 us"));
        assertFalse(html.contains("#   spike at"), "the spikes are not repeated in the text summary");
        assertTrue(html.contains("kernel or hardware; on the CPU: kworker/1:2 (pid 77, nice 0) 300 us"),
                "a spike's culprits from the kernel trace are in its evidence");
        assertTrue(html.contains("<td>fifo x none</td><td>FAIL</td><td>51000</td><td>110</td><td>119</td>"), "matrix row");
    }

    @Test
    void theModelCarriesEveryCpuTheThresholdAndEverySpike() {
        String model = HtmlReport.model(List.of(new ReportCell("a", Fixtures.report("x"))));
        assertEquals(2, count(model, "\"cpu\":\\d+,\"bucketUs\":1,"));
        assertTrue(model.contains("\"thresholds\":{\"max\":1000,\"p99\":null,\"p999\":null,\"pwcet\":null},\"pwcet\":null,"), model);
        assertEquals(4, count(model, "\\{\"t\":"));
        assertTrue(model.contains("{\"t\":2.5,\"us\":3000,\"cpu\":0,\"cause\":\"JVM pause\""), model);
    }

    @Test
    void everythingIsInlinedNothingIsFetched() {
        String html = HtmlReport.render("r", "FAIL", List.of(new ReportCell("a", Fixtures.report("x"))));
        assertTrue(html.contains("<script data-lib=\"uPlot 1.6.30\">/*! https://github.com/leeoniya/uPlot (v1.6.30) */"));
        assertTrue(html.contains("export function histogramPlot("), "plots.js inlined");
        assertFalse(Pattern.compile("(src|href)=\"(https?:)?//").matcher(html).find(), "an external reference");
    }

    @Test
    void textIsEscaped() {
        String html = HtmlReport.render("<x>", "FAIL", List.of(new ReportCell("a&b</script>", Fixtures.report("<script>"))));
        assertFalse(html.contains("<script>"));
        assertTrue(html.contains("&lt;script&gt;"));
        assertTrue(html.contains("a&amp;b"));
        assertEquals(3, count(html, "</script>"), "a name cannot close the model's script element");
    }

    @Test
    void everyCellGetsARowASectionAndTheOverlay() {
        List<ReportCell> cells = List.of(new ReportCell("iso@70 x none", Fixtures.report("a")),
                new ReportCell("iso@90 x none", Fixtures.report("b")), new ReportCell("fifo x compile", Fixtures.report("c")));
        String html = HtmlReport.render("seed 004", "FAIL", cells);
        assertEquals(3, count(html, "<section class=\"cell\""));
        assertEquals(4, count(html, "<tr class=\"(PASS|FAIL)\"|<tr><th>cell"), "header and three rows");
        assertEquals(1, count(html, "data-plot=\"overlay\""));
    }

    @Test
    void theUsersPlanFileIsShownNotTheAppliancesCopy() {
        String html = HtmlReport.render("rtbox plan quick", "plans/quick.json", "PASS",
                List.of(new ReportCell("a", Fixtures.report("rtbox plan run /var/tmp/rtbox-plan-123.json # cell 1 (a)"))));
        assertTrue(html.contains("plan file: <b>plans/quick.json</b>"));
        assertTrue(html.contains("rtbox plan run plans/quick.json # cell 1 (a)"));
        assertFalse(html.contains("rtbox-plan-123"));
    }

    /** plots.js draws, HtmlReport's tests and lists use the same colours: one must not drift from the other. */
    @Test
    void plotsJsUsesTheSameColours() {
        String js = PlotAssets.text(PlotAssets.PLOTS_JS);
        assertEquals(Arrays.asList(HtmlReport.THREAD_COLOURS), list(js, "CPU_COLOURS = \\[([^\\]]*)\\]"));
        assertEquals(Arrays.asList(HtmlReport.CELL_COLOURS), list(js, "CELL_COLOURS = \\[([^\\]]*)\\]"));
        HtmlReport.CAUSE_COLOURS.forEach((cause, colour) ->
                assertTrue(js.contains("\"" + cause + "\": \"" + colour + "\""), cause));
        assertTrue(js.contains("THRESHOLD_COLOUR = \"" + HtmlReport.THRESHOLD_COLOUR + "\""));
        assertTrue(js.contains("GRID_COLOUR = \"" + HtmlReport.GRID_COLOUR + "\""));
    }

    private static List<String> list(String js, String regex) {
        Matcher m = Pattern.compile(regex).matcher(js);
        assertTrue(m.find(), regex);
        List<String> out = new ArrayList<>();
        for (String s : m.group(1).split(",")) {
            out.add(s.trim().replace("\"", ""));
        }
        return out;
    }
}
