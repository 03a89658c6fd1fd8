package rtbox.control.web.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.http.HttpServletResponse;

/**
 * The control room's own 404, never the servlet container's raw error page: under
 * {@code /api/} a JSON error as the API answers (docs/control-api.md, "Conventions"), else
 * the page {@code ui/404.html} (the navigation back, the path shown by the page itself as
 * text, so nothing of the request is ever written into HTML here).
 */
final class NotFound {
    /** Longest part of a path repeated in a JSON answer. */
    private static final int SHOWN = 200;

    private NotFound() {
    }

    static void answer(String path, HttpServletResponse resp) throws IOException {
        if (resp.isCommitted()) {
            return;
        }
        resp.resetBuffer();
        resp.setStatus(HttpServletResponse.SC_NOT_FOUND);
        resp.setHeader("Cache-Control", "no-store");
        resp.setHeader("X-Content-Type-Options", "nosniff");
        if (path.equals("/api") || path.startsWith("/api/")) {
            resp.setContentType("application/json; charset=utf-8");
            resp.getOutputStream().write(("{\"error\":\"no such API path: " + jsonText(path)
                    + " (the API is under /api/v1/: docs/control-api.md)\"}").getBytes(StandardCharsets.UTF_8));
            return;
        }
        resp.setContentType("text/html; charset=utf-8");
        try (InputStream in = NotFound.class.getResourceAsStream("/ui/404.html")) {
            if (in == null) {
                resp.getOutputStream().write("no such page: the pages are under /ui/".getBytes(StandardCharsets.UTF_8));
                return;
            }
            in.transferTo(resp.getOutputStream());
        }
    }

    /** {@code s} (cut at {@link #SHOWN} characters) as the inside of a JSON string. */
    static String jsonText(String s) {
        String cut = s.length() > SHOWN ? s.substring(0, SHOWN) + "..." : s;
        StringBuilder b = new StringBuilder(cut.length() + 8);
        for (char c : cut.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f || c >= 0x80 && c < 0xa0 || c == '<' || c == '>' || c == '&'
                    || c >= 0x2028 && c <= 0x202e || c >= 0x2066 && c <= 0x2069) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
