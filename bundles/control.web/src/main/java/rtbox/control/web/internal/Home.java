package rtbox.control.web.internal;

import java.io.IOException;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardContextSelect;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;

/** {@code /} (and {@code /ui}) lead to the fleet page. */
@Component(service = Servlet.class)
@HttpWhiteboardContextSelect(Web.CONTEXT_SELECT)
@HttpWhiteboardServletPattern({"", "/ui", "/ui/"})
public class Home extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.sendRedirect(req.getContextPath() + Web.HOME);
    }
}
