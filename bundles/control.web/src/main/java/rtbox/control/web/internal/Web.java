package rtbox.control.web.internal;

/** Where the pages live: the control room's servlet context (rtbox.control's ControlWeb says the same). */
final class Web {
    /** Selects the ServletContextHelper that rtbox.control registers as {@code rtbox.control}. */
    static final String CONTEXT_SELECT = "(osgi.http.whiteboard.context.name=rtbox.control)";
    /** The page a bare {@code /} goes to; it sends a visitor without a session to the log-in page. */
    static final String HOME = "/ui/fleet.html";

    private Web() {
    }
}
