package rtbox.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The files the plots are drawn with, from this bundle: uPlot (embedded from its webjar,
 * {@code org.webjars.npm:uplot}) and rtbox's own {@code plots.js}. The HTML report inlines
 * them; the control room serves them under their {@link #NAMES}, so both draw the same
 * plots with the same code and neither needs a network.
 */
public final class PlotAssets {
    /** The uPlot release embedded (the webjar's version). */
    public static final String UPLOT_VERSION = "1.6.30";
    /** uPlot as one classic script that defines the global {@code uPlot}. */
    public static final String UPLOT_JS = "uPlot.iife.min.js";
    public static final String UPLOT_CSS = "uPlot.min.css";
    /** rtbox's plots, an ES module that uses the global {@code uPlot}. */
    public static final String PLOTS_JS = "plots.js";
    public static final List<String> NAMES = List.of(UPLOT_JS, UPLOT_CSS, PLOTS_JS);

    private PlotAssets() {
    }

    /** Opens one of {@link #NAMES}; null for any other name. The caller closes it. */
    public static InputStream open(String name) {
        if (!NAMES.contains(name)) {
            return null;
        }
        // bnd copies uPlot's files into this bundle at the webjar's own paths (see bnd.bnd); on a
        // plain class path (the unit tests) they come from the webjar itself.
        String path = name.equals(PLOTS_JS) ? "rtbox/report/plots.js"
                : "META-INF/resources/webjars/uplot/" + UPLOT_VERSION + "/dist/" + name;
        InputStream in = PlotAssets.class.getClassLoader().getResourceAsStream(path);
        return in;
    }

    /** One of {@link #NAMES} as text. */
    public static String text(String name) {
        try (InputStream in = open(name)) {
            if (in == null) {
                throw new IllegalArgumentException("no plot asset '" + name + "' in rtbox.report (it has " + NAMES + ")");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the plot asset " + name + " from rtbox.report", e);
        }
    }

    /** The MIME type to serve one of {@link #NAMES} with. */
    public static String contentType(String name) {
        return name.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8";
    }
}
