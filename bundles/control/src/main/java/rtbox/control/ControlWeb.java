package rtbox.control;

/**
 * The control room's servlet context on the OSGi Servlet Whiteboard. A page bundle
 * registers its resources and servlets with
 * {@code osgi.http.whiteboard.context.select = }{@link #CONTEXT_SELECT}, at any pattern
 * outside {@link #API}{@code /*}.
 */
public final class ControlWeb {
    /** {@code osgi.http.whiteboard.context.name} of the control room's ServletContextHelper. */
    public static final String CONTEXT_NAME = "rtbox.control";
    /** Its {@code osgi.http.whiteboard.context.path}. */
    public static final String CONTEXT_PATH = "/";
    /** The filter that selects it. */
    public static final String CONTEXT_SELECT = "(osgi.http.whiteboard.context.name=" + CONTEXT_NAME + ")";
    /** Where the JSON API lives (docs/control-api.md). */
    public static final String API = "/api/v1";
    /** The header that carries the session's CSRF token on every state-changing request. */
    public static final String CSRF_HEADER = "X-CSRF-Token";
    /** The session cookie. */
    public static final String SESSION_COOKIE = "RTBOX_SESSION";

    private ControlWeb() {
    }
}
