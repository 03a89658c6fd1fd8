package rtbox.control.internal;

/**
 * What /metrics reads of the webhooks' deliveries (issue 34 item 3): the webhook component
 * registers itself as this service (DS, in this bundle), and {@link ControlMetrics} takes it
 * when it is there (optional, dynamic). Without one, {@code rtbox_control_webhook_failures_total}
 * is 0.
 */
public interface WebhookFigures {
    /**
     * Delivery attempts that failed since this control room started (an error status, a timeout,
     * a refused connection; each retry counts), by site: the site a webhook belongs to
     * ({@code ""} for none). Monotonic while the control room runs.
     */
    java.util.Map<String, Long> failedDeliveriesBySite();
}
