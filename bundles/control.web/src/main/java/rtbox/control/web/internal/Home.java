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
 * answers every path nothing else serves, whatever the method: the control room's own 404
 * ({@link NotFound}: a page, or JSON under {@code /api/}). (An exact {@code ""} or
 * {@code /ui} pattern beside it made Felix's whiteboard refuse the whole servlet.)
 */
@Component(service = Servlet.class)
@HttpWhiteboardContextSelect(Web.CONTEXT_SELECT)
@HttpWhiteboardServletPattern("/")
public class Home extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String path = req.getServletPath() + (req.getPathInfo() == null ? "" : req.getPathInfo());
        boolean read = req.getMethod().equals("GET") || req.getMethod().equals("HEAD");
        if (read && (path.isEmpty() || path.equals("/") || path.equals("/ui") || path.equals("/ui/"))) {
            resp.sendRedirect(req.getContextPath() + Web.HOME);
            return;
        }
        NotFound.answer(path, resp);
    }
}
