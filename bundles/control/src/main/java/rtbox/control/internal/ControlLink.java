package rtbox.control.internal;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * The control room's MQTT link, a component of its own: {@link MqttLink} (and with
 * {@code sharedGroup} its {@link SharedIngest}) delivering to the ingest ({@link ControlIngest})
 * and publishing the commands of {@link ControlOperations}. Configured by PID
 * {@code rtbox.control.serve} ({@code brokers}, {@code clientId}, {@code username},
 * {@code passwordFile}, {@code tlsTrustStore}, {@code sharedGroup}).
 *
 * <p>It references the ingest and the operations, so SCR activates it last of the three: the
 * session (persistent, QoS 1: the broker kept what came meanwhile) is connected only once the
 * ingest and its hook are up, and closed (its writer drained) before they stop. A session that
 * does not connect within 30 s is the start's failure.
 */
@Component(service = ControlLink.class, configurationPid = ControlRoom.PID, immediate = true,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public class ControlLink {
    @Reference
    StartFailure startFailure;
    @Reference
    ControlIngest ingest;
    @Reference
    ControlOperations operations;
    private volatile MqttLink link;

    @Activate
    void activate(Settings s) throws Exception {
        try {
            link = startFailure.attempt(() -> new MqttLink(s.brokers(), s.clientId(), s.username(),
                    MqttLink.readSecret(s.passwordFile()), s.tlsTrustStore(), s.sharedGroup(), ingest.ingest(),
                    new LiveRelay(ingest.events())));
            operations.attach(link);
            startFailure.attempt(() -> {
                link.connect(30_000);
                return null;
            });
        } catch (Exception e) {
            deactivate();
            throw e;
        }
    }

    boolean connected() {
        return link != null && link.connected();
    }

    /** The ingest's lag in nanoseconds (0 when nothing waits or not started): see {@link MqttLink#lagNs}. */
    long ingestLagNs() {
        MqttLink l = link;
        return l == null ? 0 : l.lagNs();
    }

    /** Messages waiting for the ingest's writer. */
    int ingestQueued() {
        MqttLink l = link;
        return l == null ? 0 : l.queued();
    }

    @Deactivate
    void deactivate() {
        operations.attach(null);
        if (link != null) {
            link.close();
            link = null;
        }
    }
}
