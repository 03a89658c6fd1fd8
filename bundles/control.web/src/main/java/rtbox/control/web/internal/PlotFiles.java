package rtbox.control.web.internal;

import java.io.IOException;
import java.io.InputStream;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardContextSelect;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;

import rtbox.report.PlotAssets;

/**
 * {@code /ui/lib/uPlot.iife.min.js}, {@code uPlot.min.css} and {@code plots.js}: the plot
 * code of the HTML report (rtbox.report's {@link PlotAssets}), so that the pages and the
 * report draw the same plots with the same code, from this machine (no CDN).
 */
@Component(service = Servlet.class)
@HttpWhiteboardContextSelect(Web.CONTEXT_SELECT)
@HttpWhiteboardServletPattern("/ui/lib/*")
public class PlotFiles extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String name = req.getPathInfo() == null ? "" : req.getPathInfo().substring(1);
        try (InputStream in = PlotAssets.open(name)) {
            if (in == null) {
                resp.sendError(HttpServletResponse.SC_NOT_FOUND, "no such plot file: " + name + " (there are "
                        + PlotAssets.NAMES + ")");
                return;
            }
            resp.setContentType(PlotAssets.contentType(name));
            resp.setHeader("X-Content-Type-Options", "nosniff");
            resp.setHeader("Cache-Control", "no-cache");
            in.transferTo(resp.getOutputStream());
        }
    }
}
