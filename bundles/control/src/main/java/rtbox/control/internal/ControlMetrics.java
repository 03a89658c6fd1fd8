package rtbox.control.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.servlet.whiteboard.HttpWhiteboardConstants;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.instrumentation.jvm.JvmBufferPoolMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmClassLoadingMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmCompilationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmNativeMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmRuntimeInfoMetric;
import io.prometheus.metrics.instrumentation.jvm.JvmThreadsMetrics;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import rtbox.control.ControlWeb;

/**
 * {@code GET /metrics} for Prometheus (issue 34, docs/grafana.md): the control room's metrics
 * ({@link FleetMetrics}) and the JVM's, written by the Prometheus Java client in the format the
 * scraper asks for (OpenMetrics or Prometheus text). Only with an API token
 * ({@code Authorization: Bearer}, any role: a viewer's is enough), looked up and audited as on
 * the API; anything else is a 401 in the audit's refusals. {@code name[]=} parameters keep only
 * the families named, as the client's own exporters do.
 *
 * <p>The JVM's metrics are the client's set less {@code JvmMemoryPoolAllocationMetrics}: it
 * adds a listener to each garbage collector's MXBean that nothing removes, which would outlive
 * this bundle and keep its class loader.
 */
@Component(service = Servlet.class, property = {
        HttpWhiteboardConstants.HTTP_WHITEBOARD_SERVLET_PATTERN + "=" + ControlMetrics.PATH,
        HttpWhiteboardConstants.HTTP_WHITEBOARD_CONTEXT_SELECT + "=" + ControlWeb.CONTEXT_SELECT,
        HttpWhiteboardConstants.HTTP_WHITEBOARD_SERVLET_NAME + "=rtbox.control.metrics"})
public final class ControlMetrics extends HttpServlet {
    static final String PATH = "/metrics";
    private static final long serialVersionUID = 1;
    private static final Logger LOG = LoggerFactory.getLogger("rtbox.control.metrics");
    private final transient ControlRoom room;
    private final transient PrometheusRegistry registry = new PrometheusRegistry();
    private final transient ExpositionFormats formats = ExpositionFormats.init();
    /** The webhook component, when there is one (issue 34 item 3). */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile WebhookFigures webhooks;

    /** Registered by SCR once the control room has started, gone before it stops. */
    @Activate
    public ControlMetrics(@Reference ControlRoom room) {
        this.room = room;
        JvmThreadsMetrics.builder().register(registry);
        JvmBufferPoolMetrics.builder().register(registry);
        JvmClassLoadingMetrics.builder().register(registry);
        JvmCompilationMetrics.builder().register(registry);
        JvmGarbageCollectorMetrics.builder().register(registry);
        JvmMemoryMetrics.builder().register(registry);
        JvmNativeMemoryMetrics.builder().register(registry);
        JvmRuntimeInfoMetric.builder().register(registry);
        ProcessMetrics.builder().register(registry);
        registry.register(new FleetMetrics(FleetMetrics.of(room, () -> {
            WebhookFigures w = webhooks;
            return w == null ? Map.of() : w.failedDeliveriesBySite();
        })));
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setHeader("Cache-Control", "no-store");
        resp.setHeader("X-Content-Type-Options", "nosniff");
        try {
            String bearer = Api.bearer(req);
            if (bearer == null) {
                throw new BadRequest(401, PATH + " needs an API token: Authorization: Bearer TOKEN (a viewer's is"
                        + " enough; docs/grafana.md)");
            }
            room.tokens.use(bearer, "GET", PATH);
        } catch (BadRequest e) {
            room.refusals.refused(req.getRemoteAddr(), e.status, "GET", PATH);
            resp.setHeader("WWW-Authenticate", "Bearer realm=\"rtbox\"");
            plain(resp, e.status, e.getMessage());
            return;
        } catch (SQLException e) {
            LOG.warn("GET {}: {}", PATH, Db.rootMessage(e));
            plain(resp, 503, "the control room's database failed on this request (its log says why)");
            return;
        }
        MetricSnapshots snapshots;
        try {
            String[] names = req.getParameterValues("name[]");
            Set<String> only = names == null ? null : new HashSet<>(Arrays.asList(names));
            snapshots = only == null ? registry.scrape() : registry.scrape(only::contains);
        } catch (RuntimeException e) {
            LOG.warn("GET {}: {}", PATH, String.valueOf(e.getMessage()));
            plain(resp, 503, "the control room could not collect its metrics (its log says why)");
            return;
        }
        ExpositionFormatWriter writer = formats.findWriter(req.getHeader("Accept"));
        ByteArrayOutputStream body = new ByteArrayOutputStream(64 * 1024);
        writer.write(body, snapshots);
        resp.setStatus(200);
        resp.setContentType(writer.getContentType());
        resp.setContentLength(body.size());
        body.writeTo(resp.getOutputStream());
    }

    private static void plain(HttpServletResponse resp, int status, String message) throws IOException {
        byte[] b = (message + "\n").getBytes(StandardCharsets.UTF_8);
        resp.setStatus(status);
        resp.setContentType("text/plain; charset=utf-8");
        resp.setContentLength(b.length);
        resp.getOutputStream().write(b);
    }
}
