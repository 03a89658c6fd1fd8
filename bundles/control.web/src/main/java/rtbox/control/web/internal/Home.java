package rtbox.control.web.internal;

import java.io.IOException;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardContextSelect;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;

/**
 * {@code /} leads to the fleet page. As the context's default servlet ({@code /}) it also
 * answers every path nothing else serves: 404, saying where the pages and the API are.
 * (An exact {@code ""} or {@code /ui} pattern beside it made Felix's whiteboard refuse the
 * whole servlet.)
 */
@Component(service = Servlet.class)
@HttpWhiteboardContextSelect(Web.CONTEXT_SELECT)
@HttpWhiteboardServletPattern("/")
public class Home extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String path = req.getServletPath() + (req.getPathInfo() == null ? "" : req.getPathInfo());
        if (path.isEmpty() || path.equals("/") || path.equals("/ui") || path.equals("/ui/")) {
            resp.sendRedirect(req.getContextPath() + Web.HOME);
            return;
        }
        resp.sendError(HttpServletResponse.SC_NOT_FOUND, "no page " + path + ": the pages are under /ui/ (the fleet: "
                + Web.HOME + "), the API under /api/v1/");
    }
}
