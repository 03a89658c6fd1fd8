package rtbox.control.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.servlet.whiteboard.HttpWhiteboardConstants;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import rtbox.control.ControlWeb;

/**
 * Over 400 lines on purpose: the route table of the whole API in one place, with each
 * route's role and CSRF rule beside it, so that a missing check shows when read; each
 * route's work is a call into the classes named below.
 *
 * <p>The JSON API under /api/v1/ (docs/control-api.md): routes, session and role checks, the
 * CSRF check on every state-changing request, and the event stream. The work is done by
 * {@link Queries}, {@link Operations}, {@link Compare}, {@link Records}, {@link Users}.
 */
@Component(service = Servlet.class, property = {
        HttpWhiteboardConstants.HTTP_WHITEBOARD_SERVLET_PATTERN + "=" + ControlWeb.API + "/*",
        HttpWhiteboardConstants.HTTP_WHITEBOARD_CONTEXT_SELECT + "=" + ControlWeb.CONTEXT_SELECT,
        HttpWhiteboardConstants.HTTP_WHITEBOARD_SERVLET_NAME + "=" + ControlRoom.API_SERVLET})
public final class Api extends HttpServlet {
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control.api");

    private static final long serialVersionUID = 1;
    private static final int MAX_JSON_BYTES = 4 * 1024 * 1024;
    private final transient ControlRoom room;

    /** The API of the running control room: registered by SCR once the room has started, gone before it stops. */
    @Activate
    public Api(@Reference ControlRoom room) {
        this.room = room;
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String path = req.getPathInfo() == null ? "/" : req.getPathInfo();
        String[] p = Arrays.stream(path.split("/")).filter(s -> !s.isEmpty())
                .map(s -> URLDecoder.decode(s, StandardCharsets.UTF_8)).toArray(String[]::new);
        String method = req.getMethod();
        resp.setHeader("Cache-Control", "no-store");
        resp.setHeader("X-Content-Type-Options", "nosniff");
        int status;
        JsonObject answer;
        try {
            route(req, resp, method, p);
            return;
        } catch (PlanLibrary.Problems e) {
            status = e.status;
            answer = error(e.getMessage());
            answer.add("problems", e.problems);
        } catch (BadRequest e) {
            status = e.status;
            answer = error(e.getMessage());
            if ((status == 401 || status == 403) && !(p.length == 1 && p[0].equals("session"))) {
                room.refusals.refused(req.getRemoteAddr(), status, method, path);
            }
        } catch (SQLException e) {
            // The cause to the log only: no SQL, class name or stack trace in an answer.
            LOG.warn("{} {}: {}", method, path, Db.rootMessage(e));
            status = 500;
            answer = error("the control room's database failed on this request (its log says why)");
        } catch (RuntimeException e) {
            LOG.error("{} {}: {}", method, path, e, e);
            status = 500;
            answer = error("the control room failed on this request (its log says why)");
        }
        settleBody(req, resp);
        send(resp, status, answer);
    }

    /**
     * Reads what is left of a refused request's body (up to {@link #MAX_JSON_BYTES}) before
     * the answer. Left unread, Jetty closes the connection after the answer without a
     * "Connection: close", and a client that reuses the connection for its next request reads
     * EOF (13 of 600 refused POSTs here; ControlIT once). A longer body gets "Connection: close".
     */
    private static void settleBody(HttpServletRequest req, HttpServletResponse resp) {
        if (req.getContentLengthLong() > MAX_JSON_BYTES) {
            resp.setHeader("Connection", "close");
            return;
        }
        try {
            InputStream in = req.getInputStream();
            byte[] skipped = new byte[8192];
            long left = MAX_JSON_BYTES;
            int n;
            while (left > 0 && (n = in.read(skipped, 0, (int) Math.min(skipped.length, left))) >= 0) {
                left -= n;
            }
            if (left == 0 && in.read() >= 0) {
                resp.setHeader("Connection", "close");
            }
        } catch (IOException e) {
            // The client went away: the connection is not reused.
            resp.setHeader("Connection", "close");
        }
    }

    private void route(HttpServletRequest req, HttpServletResponse resp, String method, String[] p)
            throws IOException, SQLException {
        if (p.length == 0) {
            throw new NotFound("see docs/control-api.md for the API");
        }
        boolean changes = !method.equals("GET") && !method.equals("HEAD");
        if (changes) {
            checkOrigin(req);
        }
        if (p[0].equals("session") && p.length == 1 && method.equals("POST")) {
            login(req, resp);
            return;
        }
        String bearer = bearer(req);
        Users.Session s;
        if (bearer != null) {
            // An API token: no cookie, so nothing a foreign page could make a browser send; no CSRF token.
            s = room.tokens.use(bearer, method, "/" + String.join("/", p));
        } else {
            s = room.users.session(cookie(req));
            if (s == null) {
                throw new BadRequest(401, "not logged in (POST " + ControlWeb.API + "/session, or an API token in"
                        + " Authorization: Bearer)");
            }
            if (changes && !MessageDigest.isEqual(s.csrf().getBytes(StandardCharsets.UTF_8),
                    String.valueOf(req.getHeader(ControlWeb.CSRF_HEADER)).getBytes(StandardCharsets.UTF_8))) {
                throw new BadRequest(403, "missing or wrong " + ControlWeb.CSRF_HEADER + " header: send the csrf"
                        + " token that GET " + ControlWeb.API + "/session returns");
            }
        }
        if (method.equals("GET")) {
            checkParameters(req, p);
        }
        String user = s.user();
        switch (p[0]) {
            case "session" -> {
                if (s.apiToken() != null && !(p.length == 1 && method.equals("GET"))) {
                    throw new BadRequest(403, "a log-in session's own requests are not for an API token");
                }
                if (p.length == 1 && method.equals("GET")) {
                    send(resp, 200, sessionJson(s));
                } else if (p.length == 1 && method.equals("DELETE")) {
                    room.users.logout(s.token());
                    room.audit.log(user, "logout", null, null);
                    Cookie c = sessionCookie(req, "", 0);
                    resp.addCookie(c);
                    send(resp, 200, new JsonObject());
                } else if (p.length == 2 && p[1].equals("password") && method.equals("PUT")) {
                    rtbox.json.JsonFields f = Input.fields(body(req), List.of("old", "new"));
                    String fresh = Input.password(f.at("new"), Input.text(f, "new", Input.PASSWORD_MAX), true);
                    // The old one is only compared: one longer than any there can be is wrong, without a look-up.
                    String old = Json.string(f.object(), "old");
                    if (old == null || old.length() > Users.MAX_PASSWORD || !room.users.checkOwnPassword(user, old)) {
                        throw new BadRequest(403, "the old password is wrong");
                    }
                    room.users.change(user, user, null, fresh);
                    send(resp, 200, new JsonObject());
                } else {
                    throw notAllowed(method, p);
                }
            }
            case "fleet" -> {
                get(method, p);
                JsonObject fleet = room.queries.fleet(req.getParameter("site"), req.getParameter("line"),
                        req.getParameter("state"), req.getParameter("q"), offset(req), limit(req));
                java.util.Map<String, Integer> queued = room.operations.queue().counts();
                for (JsonElement a : fleet.getAsJsonArray("appliances")) {
                    a.getAsJsonObject().addProperty("queued", queued.getOrDefault(Json.string(a.getAsJsonObject(), "id"),
                            0));
                }
                send(resp, 200, fleet);
            }
            case "queue" -> {
                if (p.length == 1 && method.equals("GET")) {
                    String a = Input.param("appliance", req.getParameter("appliance"), 64);
                    send(resp, 200, room.operations.queue().pending(a == null ? null : Input.id("?appliance", a)));
                } else if (p.length == 2 && method.equals("GET")) {
                    JsonObject one = room.operations.queue().one(number(p[1]));
                    one.addProperty("position", room.operations.queue().position(number(p[1])));
                    send(resp, 200, one);
                } else if (p.length == 2 && method.equals("DELETE")) {
                    need(s, Role.OPERATOR);
                    send(resp, 200, room.operations.queue().cancel(user, s.role() == Role.ADMIN, number(p[1])));
                } else {
                    throw notAllowed(method, p);
                }
            }
            case "appliances" -> appliances(req, resp, s, method, p);
            case "runs" -> runs(req, resp, s, method, p);
            case "events" -> {
                get(method, p);
                events(req, resp, s);
            }
            case "history" -> {
                get(method, p);
                send(resp, 200, room.queries.history(req.getParameter("appliance"), req.getParameter("serial"),
                        req.getParameter("plan"), req.getParameter("cell"), Math.min(100_000, limit(req, 10_000))));
            }
            case "compare" -> {
                get(method, p);
                send(resp, 200, room.compare.compare(req.getParameter("a"), req.getParameter("b"),
                        req.getParameter("reference")));
            }
            case "regression" -> {
                get(method, p);
                if (p.length == 1) {
                    send(resp, 200, room.regression.compare(room.regression.select(req.getParameter("plan"),
                            req.getParameter("key"), req.getParameter("a"), req.getParameter("b"), last(req),
                            req.getParameter("a_name"), req.getParameter("b_name"))));
                } else if (p.length == 2 && p[1].equals("values")) {
                    send(resp, 200, room.regression.values(req.getParameter("plan"), req.getParameter("key")));
                } else if (p.length == 2 && p[1].equals("plans")) {
                    send(resp, 200, room.regression.plans());
                } else {
                    throw notAllowed(method, p);
                }
            }
            case "references" -> {
                if (p.length == 1 && method.equals("GET")) {
                    send(resp, 200, room.compare.references(req.getParameter("model"), req.getParameter("plan")));
                } else if (p.length == 1 && method.equals("POST")) {
                    need(s, Role.ADMIN);
                    JsonObject b = body(req);
                    rtbox.json.JsonFields f = Input.fields(b, List.of("appliance", "run", "cells", "model", "tolerance",
                            "override_reason"));
                    Input.id(f, "appliance", true);
                    Input.id(f, "run", true);
                    Input.text(f, "model", Input.NAME);
                    Input.text(f, "override_reason", 500);
                    try {
                        for (String cell : f.optStrings("cells") == null ? List.<String>of() : f.optStrings("cells")) {
                            Input.check(f.at("cells"), cell, 200);
                        }
                    } catch (rtbox.json.JsonProblem problem) {
                        throw new BadRequest(problem.getMessage());
                    }
                    send(resp, 201, room.compare.setReference(user, b));
                } else if (p.length == 2 && method.equals("PUT")) {
                    need(s, Role.ADMIN);
                    JsonObject t = new JsonObject();
                    t.add("tolerance", room.compare.setTolerance(user, number(p[1]), body(req)));
                    send(resp, 200, t);
                } else if (p.length == 2 && method.equals("DELETE")) {
                    need(s, Role.ADMIN);
                    room.compare.deleteReference(user, number(p[1]));
                    send(resp, 200, new JsonObject());
                } else {
                    throw notAllowed(method, p);
                }
            }
            case "plans" -> plans(req, resp, s, method, p);
            case "starts" -> {
                post(method, p);
                need(s, Role.OPERATOR);
                send(resp, 200, room.operations.start(user, body(req)));
            }
            case "bundles" -> {
                if (p.length == 1 && method.equals("GET")) {
                    send(resp, 200, room.operations.bundles());
                } else if (p.length == 1 && method.equals("POST")) {
                    need(s, Role.ADMIN);
                    send(resp, 201, room.operations.upload(user, bytes(req, Operations.MAX_BUNDLE_BYTES)));
                } else {
                    throw notAllowed(method, p);
                }
            }
            case "swaps" -> {
                post(method, p);
                need(s, Role.ADMIN);
                send(resp, 200, room.operations.swap(user, body(req)));
            }
            case "records" -> records(req, resp, s, method, p);
            case "keys" -> {
                get(method, p);
                send(resp, 200, keys());
            }
            case "users" -> users(req, resp, s, method, p);
            case "tokens" -> tokens(req, resp, s, method, p);
            case "webhooks" -> webhooks(req, resp, s, method, p);
            case "audit" -> {
                get(method, p);
                String who = Input.param("user", req.getParameter("user"), 64);
                String action = Input.param("action", req.getParameter("action"), 32);
                boolean csv = "csv".equals(req.getParameter("format"));
                JsonObject list = room.audit.list(who, action, time(req, "from"), time(req, "to"), offset(req),
                        csv && req.getParameter("limit") == null ? 100_000 : limit(req, csv ? 100_000 : 1000));
                if ("csv".equals(req.getParameter("format"))) {
                    resp.setStatus(200);
                    resp.setContentType("text/csv; charset=utf-8");
                    resp.setHeader("Content-Disposition", "attachment; filename=\"audit.csv\"");
                    resp.getOutputStream().write(Audit.csv(list).getBytes(StandardCharsets.UTF_8));
                } else {
                    send(resp, 200, list);
                }
            }
            case "ingest" -> {
                get(method, p);
                send(resp, 200, room.ingest.health());
            }
            default -> throw new NotFound("no API " + ControlWeb.API + "/" + p[0]);
        }
    }

    // ---- routes ----

    private void appliances(HttpServletRequest req, HttpServletResponse resp, Users.Session s, String method, String[] p)
            throws IOException, SQLException {
        if (p.length == 2 && method.equals("GET")) {
            JsonObject a = room.queries.appliance(p[1]);
            a.add("refused", room.ingest.refused(p[1]));
            send(resp, 200, a);
        } else if (p.length == 2 && method.equals("PUT")) {
            need(s, Role.ADMIN);
            JsonObject b = body(req);
            rtbox.json.JsonFields f = Input.fields(b, List.of("site", "line"));
            Input.text(f, "site", 64);
            Input.text(f, "line", 64);
            send(resp, 200, room.setPlace(s.user(), Input.id("appliance", p[1]), b));
        } else if (p.length == 3 && p[2].equals("accept") && method.equals("POST")) {
            need(s, Role.ADMIN);
            send(resp, 200, room.accept(s.user(), Input.id("appliance", p[1])));
        } else if (p.length == 3 && (p[2].equals("selftest") || p[2].equals("readiness")) && method.equals("POST")) {
            need(s, Role.OPERATOR);
            send(resp, 202, room.operations.check(s.user(), Input.id("appliance", p[1]), p[2]));
        } else if (p.length == 3 && p[2].equals("firmware") && method.equals("POST")) {
            // The next boot's kernel (and a reboot): what only an admin may do to an appliance.
            need(s, Role.ADMIN);
            JsonObject b = body(req);
            rtbox.json.JsonFields f = Input.fields(b, List.of("kernel", "reboot"));
            String kernel = Input.id(f, "kernel", false);
            Boolean reboot = Input.bool(f, "reboot");
            if (Boolean.TRUE.equals(reboot) && kernel == null) {
                throw new BadRequest("$.reboot: needs $.kernel (the entry to boot)");
            }
            JsonObject reply = room.operations.firmware(s.user(), Input.id("appliance", p[1]), kernel, reboot);
            Integer code = Json.integer(reply, "code"); // exactly: an appliance's code of 200.5 is no 200
            send(resp, code != null ? code : 502, reply);
        } else if (p.length == 4 && p[2].equals("bundles") && p[3].equals("refresh") && method.equals("POST")) {
            need(s, Role.OPERATOR);
            send(resp, 202, room.operations.askBundles(Input.id("appliance", p[1])));
        } else {
            throw notAllowed(method, p);
        }
    }

    private void runs(HttpServletRequest req, HttpServletResponse resp, Users.Session s, String method, String[] p)
            throws IOException, SQLException {
        if (p.length == 1) {
            get(method, p);
            send(resp, 200, room.queries.runs(req.getParameter("appliance"), req.getParameter("serial"),
                    req.getParameter("model"), req.getParameter("plan"), req.getParameter("verdict"), offset(req),
                    limit(req)));
        } else if (p.length == 3) {
            get(method, p);
            JsonObject run = room.queries.run(p[1], p[2]);
            run.add("record_check", room.records.check.run(p[1], p[2]));
            send(resp, 200, run);
        } else if (p.length == 4 && p[3].equals("stop") && method.equals("POST")) {
            need(s, Role.OPERATOR);
            send(resp, 202, room.operations.stop(s.user(), Input.id("appliance", p[1]), Input.id("run", p[2])));
        } else if (p.length == 4 && p[3].equals("wait")) {
            get(method, p);
            String t = req.getParameter("timeout");
            long timeout = t == null ? RunWait.DEFAULT_S : number(t);
            if (timeout < 1 || timeout > RunWait.MAX_S) {
                throw new BadRequest("?timeout: seconds, 1 to " + RunWait.MAX_S + ", not " + Input.shown(t));
            }
            try {
                send(resp, 200, room.runWait.await(Input.id("appliance", p[1]), Input.id("run", p[2]), (int) timeout,
                        room::running));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BadRequest(503, "the control room is stopping");
            }
        } else if (p.length == 4) {
            get(method, p);
            Downloads.send(room.queries, p[1], p[2], p[3], resp);
        } else if (p.length == 5 && p[3].equals("messages")) {
            get(method, p);
            byte[] m = room.queries.message(p[1], p[2], (int) number(p[4]));
            if (m == null) {
                throw new NotFound("no message " + p[4] + " of run '" + p[2] + "' of '" + p[1] + "'");
            }
            resp.setStatus(200);
            resp.setContentType("application/json; charset=utf-8");
            resp.getOutputStream().write(m);
        } else {
            throw notAllowed(method, p);
        }
    }

    private void plans(HttpServletRequest req, HttpServletResponse resp, Users.Session s, String method, String[] p)
            throws IOException, SQLException {
        if (p.length == 1 && method.equals("GET")) {
            send(resp, 200, room.library.list());
        } else if (p.length == 2 && p[1].equals("check") && method.equals("POST")) {
            JsonObject b = body(req);
            Input.fields(b, List.of("plan", "text", "name", "version"));
            JsonElement plan = b.get("plan");
            String name = Json.string(b, "name");
            String text = plan != null && plan.isJsonObject() ? Json.GSON.toJson(plan)
                    : Input.isText(b.get("text")) ? b.get("text").getAsString()
                    : name != null ? room.library.get(Input.planName("$.name", name), Json.integer(b, "version")).text()
                    : null;
            if (text == null) {
                throw new BadRequest("give plan (the plan itself), text (its text) or name (a plan in the library)");
            }
            send(resp, 200, room.library.check(text));
        } else if (p.length == 2 && method.equals("GET")) {
            String v = Input.param("version", req.getParameter("version"), 9);
            PlanStore.Version plan = room.library.get(p[1], v == null ? null : (int) number(v));
            resp.setStatus(200);
            resp.setContentType("application/json; charset=utf-8");
            resp.setHeader("X-Plan-Version", Integer.toString(plan.version()));
            resp.setHeader("X-Plan-SHA256", plan.sha256());
            resp.getOutputStream().write(plan.text().getBytes(StandardCharsets.UTF_8));
        } else if (p.length == 3 && p[2].equals("versions") && method.equals("GET")) {
            send(resp, 200, room.library.versions(p[1]));
        } else if (p.length == 3 && p[2].equals("inputs") && method.equals("GET")) {
            String list = Input.param("appliances", req.getParameter("appliances"), 20_000);
            send(resp, 200, room.operations.inputs(p[1], list == null ? List.of() : Arrays.asList(list.split(","))));
        } else if (p.length == 2 && method.equals("PUT")) {
            need(s, Role.ADMIN);
            Input.planName("plan name", p[1]);
            String text = new String(bytes(req, MAX_JSON_BYTES), StandardCharsets.UTF_8);
            int before = room.library.store().versions(p[1]).stream().mapToInt(PlanStore.Version::version).max()
                    .orElse(0);
            PlanStore.Version saved = room.library.save(p[1], text, s.user());
            send(resp, saved.version() > before ? 201 : 200, saved.brief());
        } else {
            throw notAllowed(method, p);
        }
    }

    private void records(HttpServletRequest req, HttpServletResponse resp, Users.Session s, String method, String[] p)
            throws IOException, SQLException {
        if (p.length == 1 && method.equals("GET")) {
            send(resp, 200, room.records.list(req.getParameter("serial"), req.getParameter("model"), offset(req),
                    limit(req)));
        } else if (p.length == 1 && method.equals("POST")) {
            need(s, Role.OPERATOR);
            rtbox.json.JsonFields b = Input.fields(body(req), List.of("appliance", "run", "comment", "override_reason",
                    "regression"));
            String appliance = Input.id(b, "appliance", true), run = Input.id(b, "run", true);
            String comment = Input.text(b, "comment", Input.COMMENT);
            String override = Input.text(b, "override_reason", Input.OVERRIDE);
            RegressionSets.Selection regression = b.has("regression") ? regression(b) : null;
            send(resp, 201, room.records.issue(s.user(), appliance, run, comment, "operator",
                    Records.Override.of(override, s.role()), regression));
        } else if (p.length == 2 && p[1].equals("verify") && method.equals("GET")) {
            send(resp, 200, room.records.verify());
        } else if (p.length == 2 && method.equals("GET") && p[1].endsWith(".zip")) {
            long id = number(p[1].substring(0, p[1].length() - 4));
            byte[] zip = RecordExport.zip(room.db, room.records, id);
            resp.setStatus(200);
            resp.setContentType("application/zip");
            resp.setHeader("Content-Disposition", "attachment; filename=\"record-" + id + ".zip\"");
            resp.getOutputStream().write(zip);
        } else if (p.length == 2 && method.equals("GET") && p[1].endsWith(".html")) {
            String html = room.records.html(number(p[1].substring(0, p[1].length() - 5)));
            resp.setStatus(200);
            resp.setContentType("text/html; charset=utf-8");
            resp.setHeader("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'");
            resp.getOutputStream().write(html.getBytes(StandardCharsets.UTF_8));
        } else if (p.length == 2 && method.equals("GET")) {
            String id = p[1].endsWith(".json") ? p[1].substring(0, p[1].length() - 5) : p[1];
            if (p[1].endsWith(".json")) {
                resp.setHeader("Content-Disposition", "attachment; filename=\"record-" + id + ".json\"");
            }
            send(resp, 200, room.records.get(number(id)));
        } else {
            throw notAllowed(method, p);
        }
    }

    /** The public keys that sign records, the current and the rotated ones. */
    private JsonObject keys() throws IOException {
        com.google.gson.JsonArray a = new com.google.gson.JsonArray();
        String current = room.records.keys.currentId();
        for (var e : room.records.keys.publicKeys().entrySet()) {
            JsonObject k = new JsonObject();
            k.addProperty("key_id", e.getKey());
            k.addProperty("fingerprint", RecordKeys.fingerprint(e.getValue()));
            k.addProperty("current", e.getKey().equals(current));
            k.addProperty("pem", RecordKeys.pem(e.getValue()));
            a.add(k);
        }
        JsonObject o = new JsonObject();
        o.add("keys", a);
        return o;
    }

    private void users(HttpServletRequest req, HttpServletResponse resp, Users.Session s, String method, String[] p)
            throws IOException, SQLException {
        need(s, Role.ADMIN);
        if (p.length == 1 && method.equals("GET")) {
            send(resp, 200, room.users.list());
        } else if (p.length == 1 && method.equals("POST")) {
            rtbox.json.JsonFields f = Input.fields(body(req), List.of("name", "role", "password"));
            String name = Input.requiredText(f, "name", 64);
            Users.checkName(name);
            String role = Input.requiredText(f, "role", 16);
            String password = Input.password(f.at("password"), Input.text(f, "password", Input.PASSWORD_MAX), true);
            room.users.add(s.user(), name, Role.of(role), password);
            send(resp, 201, room.users.list());
        } else if (p.length == 2 && method.equals("PUT")) {
            rtbox.json.JsonFields f = Input.fields(body(req), List.of("role", "password", "disabled"));
            Input.user("user name", p[1]);
            String role = Input.text(f, "role", 16);
            String password = Input.text(f, "password", Input.PASSWORD_MAX);
            room.users.change(s.user(), p[1], role != null ? Role.of(role) : null,
                    password == null ? null : Input.password(f.at("password"), password, true),
                    Input.bool(f, "disabled"));
            send(resp, 200, room.users.list());
        } else if (p.length == 2 && method.equals("DELETE")) {
            room.users.delete(s.user(), Input.user("user name", p[1]));
            send(resp, 200, room.users.list());
        } else {
            throw notAllowed(method, p);
        }
    }

    private void tokens(HttpServletRequest req, HttpServletResponse resp, Users.Session s, String method, String[] p)
            throws IOException, SQLException {
        if (p.length == 1 && method.equals("GET")) {
            String who = req.getParameter("user");
            if (who != null && !who.equals(s.user())) {
                need(s, Role.ADMIN);
            }
            send(resp, 200, room.tokens.list(who == null ? s.user() : "*".equals(who) ? null : who));
        } else if (p.length == 1 && method.equals("POST")) {
            // A token minting tokens could outlive its own expiry or revocation.
            if (s.apiToken() != null) {
                throw new BadRequest(403, "API tokens are made from a logged-in session, not with a token");
            }
            send(resp, 201, room.tokens.create(s, body(req)));
        } else if (p.length == 2 && method.equals("DELETE")) {
            send(resp, 200, room.tokens.revoke(s, number(p[1])));
        } else {
            throw notAllowed(method, p);
        }
    }

    /** Webhooks (docs/control-api.md, "Webhooks"): admins only; the secret is in the answer of its POST alone. */
    private void webhooks(HttpServletRequest req, HttpServletResponse resp, Users.Session s, String method, String[] p)
            throws IOException, SQLException {
        need(s, Role.ADMIN);
        if (p.length == 1 && method.equals("GET")) {
            send(resp, 200, room.webhooks.list());
        } else if (p.length == 1 && method.equals("POST")) {
            send(resp, 201, room.webhooks.create(s.user(), body(req)));
        } else if (p.length == 2 && method.equals("DELETE")) {
            send(resp, 200, room.webhooks.delete(s.user(), number(p[1])));
        } else {
            throw notAllowed(method, p);
        }
    }

    /**
     * The API token of an {@code Authorization: Bearer} header, null without the header; any
     * other kind of Authorization is a 401 (Basic would put a password on every request).
     */
    static String bearer(HttpServletRequest req) {
        String a = req.getHeader("Authorization");
        if (a == null) {
            return null;
        }
        if (a.length() < 7 || !a.substring(0, 7).equalsIgnoreCase("Bearer ")) {
            throw new BadRequest(401, "Authorization: only 'Bearer TOKEN' (an API token) is taken here");
        }
        return a.substring(7).trim();
    }

    /** The longest query parameter (the events stream's list of appliances may be longer). */
    static final int MAX_PARAMETER = 1000;

    /**
     * Every query parameter of a GET at most {@link #MAX_PARAMETER} characters (the events
     * stream's {@code appliance} list 100,000) and without control characters, before any query
     * sees it: a 400 naming it (issue 31: every text with a length before the database).
     */
    private static void checkParameters(HttpServletRequest req, String[] p) {
        for (java.util.Map.Entry<String, String[]> e : req.getParameterMap().entrySet()) {
            int max = p[0].equals("events") && e.getKey().equals("appliance") ? 100_000 : MAX_PARAMETER;
            for (String v : e.getValue()) {
                Input.param(Input.shown(e.getKey()), v, max);
            }
        }
    }

    // ---- log-in and events ----

    private void login(HttpServletRequest req, HttpServletResponse resp) throws IOException, SQLException {
        String ct = req.getContentType();
        if (ct == null || !ct.toLowerCase(java.util.Locale.ROOT).startsWith("application/json")) {
            throw new BadRequest(415, "log in with Content-Type: application/json");
        }
        rtbox.json.JsonFields f = Input.fields(body(req), List.of("user", "password"));
        String user, password;
        try {
            user = f.optStr("user");
            password = f.optStr("password");
        } catch (rtbox.json.JsonProblem problem) {
            throw new BadRequest(problem.getMessage());
        }
        // A name with a control character or bidi override is no user's, and must not reach the audit log as
        // login-failed (it would read backwards there): refused naming the field. The password is only compared
        // (and one set before the character checks may hold anything).
        if (user != null && user.length() <= 64) {
            Input.check(f.at("user"), user, 64);
        }
        if (user == null || password == null) {
            throw new BadRequest("give user and password");
        }
        // A name or password longer than any there can be is wrong without a look at the database.
        Users.Session s = user.length() > 64 || password.length() > Users.MAX_PASSWORD ? null
                : room.users.login(user, password);
        if (s == null) {
            room.audit.log(user.length() > 64 ? user.substring(0, 64) : user, "login-failed", null, null);
            throw new BadRequest(401, "wrong user name or password");
        }
        room.audit.log(user, "login", null, null);
        resp.addCookie(sessionCookie(req, s.token(), -1));
        send(resp, 200, sessionJson(s));
    }

    private static Cookie sessionCookie(HttpServletRequest req, String value, int maxAge) {
        Cookie c = new Cookie(ControlWeb.SESSION_COOKIE, value);
        c.setHttpOnly(true);
        c.setPath("/");
        c.setSecure(req.isSecure());
        c.setMaxAge(maxAge);
        c.setAttribute("SameSite", "Strict");
        return c;
    }

    private static JsonObject sessionJson(Users.Session s) {
        JsonObject o = new JsonObject();
        o.addProperty("user", s.user());
        o.addProperty("role", s.role().id());
        o.addProperty("csrf", s.csrf());
        if (s.apiToken() != null) {
            o.addProperty("token", s.apiToken());
        }
        return o;
    }

    private static String cookie(HttpServletRequest req) {
        Cookie[] cs = req.getCookies();
        if (cs != null) {
            for (Cookie c : cs) {
                if (ControlWeb.SESSION_COOKIE.equals(c.getName())) {
                    return c.getValue();
                }
            }
        }
        return null;
    }

    /** A browser says where a request comes from: one from another origin is refused. */
    private static void checkOrigin(HttpServletRequest req) {
        String origin = req.getHeader("Origin");
        if (origin == null) {
            return;
        }
        try {
            URI o = URI.create(origin);
            String host = req.getHeader("Host");
            if (host == null || !host.equalsIgnoreCase(o.getRawAuthority())) {
                throw new BadRequest(403, "request from another origin (" + origin + ") refused");
            }
        } catch (IllegalArgumentException e) {
            throw new BadRequest(403, "request with an unreadable Origin (" + origin + ") refused");
        }
    }

    private void events(HttpServletRequest req, HttpServletResponse resp, Users.Session s) throws IOException {
        String a = req.getParameter("appliance");
        Set<String> appliances = a == null || a.isEmpty() ? null : new HashSet<>(Arrays.asList(a.split(",")));
        Events.Subscriber sub = room.events.subscribe(appliances, req.getParameter("run"), s.role() == Role.ADMIN);
        try {
            resp.setStatus(200);
            resp.setContentType("text/event-stream; charset=utf-8");
            resp.setHeader("X-Accel-Buffering", "no");
            PrintWriter w = resp.getWriter();
            w.write(": rtbox control room events\nretry: 3000\n\n");
            w.flush();
            while (!w.checkError() && room.running()) {
                Events.Event e = sub.queue.poll(15, TimeUnit.SECONDS);
                if (sub.overflowed) {
                    sub.overflowed = false;
                    w.write("event: overflow\ndata: {}\n\n");
                }
                if (e == null) {
                    w.write(": keep-alive\n\n");
                } else {
                    w.write("event: " + e.name() + "\ndata: " + e.data() + "\n\n");
                }
                w.flush();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            room.events.unsubscribe(sub);
        }
    }

    // ---- helpers ----

    private static void need(Users.Session s, Role r) {
        if (!s.role().atLeast(r)) {
            throw new BadRequest(403, "needs role " + r.id() + "; you are " + s.role().id());
        }
    }

    private static void get(String method, String[] p) {
        if (!method.equals("GET")) {
            throw notAllowed(method, p);
        }
    }

    private static void post(String method, String[] p) {
        if (!method.equals("POST") || p.length != 1) {
            throw notAllowed(method, p);
        }
    }

    private static BadRequest notAllowed(String method, String[] p) {
        return new BadRequest(405, method + " " + ControlWeb.API + "/" + String.join("/", p) + " is not in the API"
                + " (docs/control-api.md)");
    }

    private static long number(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new BadRequest("'" + s + "' is not a number");
        }
    }

    private static int offset(HttpServletRequest req) {
        String o = req.getParameter("offset");
        int v = o == null ? 0 : (int) number(o);
        if (v < 0) {
            throw new BadRequest("offset must be >= 0");
        }
        return v;
    }

    /** {@code last}: the runs per set chosen by a key (RegressionSets checks its range); null when absent. */
    private static Integer last(HttpServletRequest req) {
        String l = req.getParameter("last");
        return l == null || l.isEmpty() ? null : (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, number(l)));
    }

    /** A record's {@code regression}: the two sets, as GET /regression names them (docs/control-api.md). */
    private RegressionSets.Selection regression(rtbox.json.JsonFields record) throws SQLException {
        rtbox.json.JsonFields r = Input.fields(record.object().get("regression"), "$.regression", List.of("plan",
                "key", "a", "b", "last", "a_name", "b_name"));
        Integer last;
        try {
            last = r.optInt("last");
        } catch (rtbox.json.JsonProblem e) {
            throw new BadRequest(e.getMessage());
        }
        return room.regression.select(Input.text(r, "plan", Input.PLAN_NAME * 2), Input.text(r, "key", 20),
                Input.text(r, "a", Input.COMMENT), Input.text(r, "b", Input.COMMENT), last,
                Input.text(r, "a_name", Input.NAME), Input.text(r, "b_name", Input.NAME));
    }

    private static int limit(HttpServletRequest req) {
        return limit(req, 1000);
    }

    private static int limit(HttpServletRequest req, int max) {
        String l = req.getParameter("limit");
        int v = l == null ? 100 : (int) number(l);
        if (v < 1 || v > max) {
            throw new BadRequest("limit must be 1 to " + max);
        }
        return v;
    }

    private static byte[] bytes(HttpServletRequest req, int max) throws IOException {
        if (req.getContentLengthLong() > max) {
            throw new BadRequest(413, "the body has " + req.getContentLengthLong() + " bytes, more than " + max);
        }
        try (InputStream in = req.getInputStream()) {
            byte[] b = in.readNBytes(max + 1);
            if (b.length > max) {
                throw new BadRequest(413, "the body is larger than " + max + " bytes");
            }
            return b;
        }
    }

    private static JsonObject body(HttpServletRequest req) throws IOException {
        return Json.body(bytes(req, MAX_JSON_BYTES));
    }

    /** A time query parameter (ISO 8601 instant, e.g. 2026-12-06T08:00:00Z), null when absent. */
    private static Long time(HttpServletRequest req, String name) {
        String v = req.getParameter(name);
        if (v == null || v.isEmpty()) {
            return null;
        }
        try {
            return java.time.Instant.parse(v).toEpochMilli();
        } catch (java.time.format.DateTimeParseException e) {
            throw new BadRequest("?" + name + ": '" + Input.shown(v) + "' is not a time such as 2026-12-06T08:00:00Z");
        }
    }

    private static JsonObject error(String message) {
        JsonObject o = new JsonObject();
        o.addProperty("error", message);
        return o;
    }

    static void send(HttpServletResponse resp, int status, JsonElement body) throws IOException {
        resp.setStatus(status);
        resp.setContentType("application/json; charset=utf-8");
        byte[] b = Json.GSON.toJson(body).getBytes(StandardCharsets.UTF_8);
        resp.setContentLength(b.length);
        resp.getOutputStream().write(b);
    }
}
