package rtbox.control.internal;

import java.nio.file.Path;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * The control room's webhooks, a component of their own: the admin's list ({@link Webhooks})
 * and the delivery loop ({@link WebhookDelivery}) over the store's database, the secrets sealed
 * with {@code DATA/control/webhook-key} ({@link WebhookSecrets}, a key that cannot be read is the
 * start's failure). Configured by PID {@code rtbox.control.serve} ({@code dataDir},
 * {@code webhookRetrySeconds}, {@code webhookRetryMaxSeconds}, {@code webhookGiveUpHours},
 * {@code sharedGroup}). The outbox rows are written by the ingest and the records through
 * {@link WebhookOutbox}, on their own connections: they need nothing of this component, which
 * only sends; it provides {@link WebhookFigures} (failed attempts by site) to /metrics. Stopping it
 * leaves no thread of its own.
 */
@Component(service = {ControlWebhooks.class, WebhookFigures.class}, configurationPid = ControlRoom.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public class ControlWebhooks implements WebhookFigures {
    @Reference
    StartFailure startFailure;
    @Reference
    ControlStore store;
    private Webhooks webhooks;
    private volatile WebhookDelivery delivery;

    @Activate
    void activate(Settings s) throws Exception {
        WebhookSecrets secrets = startFailure.attempt(() -> WebhookSecrets.open(Path.of(s.dataDir()).resolve("control")));
        Db db = store.db();
        webhooks = new Webhooks(db, secrets);
        delivery = new WebhookDelivery(db, secrets, new Compare(db, new Queries(db)), s.webhookRetrySeconds() * 1000,
                s.webhookRetryMaxSeconds() * 1000, s.webhookGiveUpHours() * 3_600_000);
        delivery.start(s.sharedGroup() == null || s.sharedGroup().isEmpty());
    }

    /** Add, list, delete (the API's /webhooks). */
    Webhooks webhooks() {
        return webhooks;
    }

    /** Failed delivery attempts since the start (any answer but 2xx, or none): for the metrics. */
    public long failures() {
        WebhookDelivery d = delivery;
        return d == null ? 0 : d.failures();
    }

    /** Failed attempts since the start by the webhook's site ('*': a webhook of every site): /metrics. */
    @Override
    public java.util.Map<String, Long> failedDeliveriesBySite() {
        WebhookDelivery d = delivery;
        return d == null ? java.util.Map.of() : d.failuresBySite();
    }

    /** Deliveries acknowledged (2xx) since the start. */
    public long delivered() {
        WebhookDelivery d = delivery;
        return d == null ? 0 : d.delivered();
    }

    @Deactivate
    void deactivate() {
        if (delivery != null) {
            delivery.stop();
            delivery = null;
        }
    }
}
