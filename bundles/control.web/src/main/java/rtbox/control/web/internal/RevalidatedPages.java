package rtbox.control.web.internal;

import java.io.IOException;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardContextSelect;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardFilterPattern;

/**
 * The pages and their scripts are revalidated on every load ({@code Cache-Control: no-cache}; an
 * unchanged file still costs only a 304): without the header a browser cached them by its own
 * rule, and after an upgrade of the control room kept the old JavaScript against the new API
 * until its cache was cleared.
 */
@Component(service = Filter.class)
@HttpWhiteboardContextSelect(Web.CONTEXT_SELECT)
@HttpWhiteboardFilterPattern("/ui/*")
public class RevalidatedPages implements Filter {
    @Override
    public void doFilter(ServletRequest req, ServletResponse resp, FilterChain chain)
            throws IOException, ServletException {
        if (resp instanceof HttpServletResponse http) {
            http.setHeader("Cache-Control", "no-cache");
        }
        chain.doFilter(req, resp);
    }
}
