package rtbox.control.web.internal;

import java.io.IOException;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardContextSelect;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletErrorPage;

/**
 * The context's error page for 404: a file under {@code /ui/} that is not there (the
 * resource whiteboard's own 404) gets the control room's page, not the container's.
 */
@Component(service = Servlet.class)
@HttpWhiteboardContextSelect(Web.CONTEXT_SELECT)
@HttpWhiteboardServletErrorPage(errorPage = "404")
public class ErrorPages extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Object uri = req.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        NotFound.answer(uri instanceof String s ? s : req.getRequestURI(), resp);
    }
}
