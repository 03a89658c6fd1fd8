package rtbox.mqtt.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;

import org.osgi.service.component.annotations.Component;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import rtbox.api.RtboxException;
import rtbox.os.BootConfig;
import rtbox.os.BootPartition;
import rtbox.os.Preemption;

/**
 * {@code firmware}: which kernel the next boot of the rtbox image starts, what {@code rtbox
 * firmware kernel} does on the appliance's console. Body: {@code kernel} (an entry of the
 * image's SYSLINUX configuration: {@code stock}, {@code rt}; without it the reply only tells)
 * and {@code reboot} (default false). The choice is written at once ({@link BootPartition});
 * the reboot, when asked, starts after the reply is queued, and init's shutdown (rcK) stops the
 * appliance with SIGTERM, which delivers the outbox, the reply with it, before it goes. An
 * administrator's command, as install, update and set-config are: docs/mqtt.md.
 */
@Component(service = Verbs.class)
public class FirmwareVerb implements Verbs {

    @Override
    public Set<String> verbs() {
        return Set.of("firmware");
    }

    @Override
    public Reply execute(String verb, JsonObject c, String requestId, Station station) throws RtboxException {
        String kernel = RunJson.string(c, "kernel", null);
        boolean reboot = flag(c, "reboot");
        if (reboot && kernel == null) {
            throw new RtboxException("kernel", "kernel is missing: a reboot is asked for with the kernel to start");
        }
        Path config = BootPartition.config();
        BootConfig now;
        try {
            now = BootPartition.read(config);
        } catch (BootPartition.NotTheImage e) {
            return Reply.notFound(e.getMessage());
        } catch (IOException e) {
            return Reply.failed("cannot read " + config + ": " + e.getMessage());
        }
        if (kernel != null && !now.labels().contains(kernel)) {
            throw new RtboxException("kernel", "kernel '" + Dispatcher.cut(kernel, 40) + "' is not an entry of "
                    + config + ": it has " + String.join(", ", now.labels()));
        }
        RunSession s = station.activity().current();
        if (reboot && s != null) {
            return Reply.conflict("no reboot now: " + Activity.busy(s) + "; nothing was changed");
        }
        JsonObject body = new JsonObject();
        body.addProperty("booted", BootPartition.booted());
        body.addProperty("preemption", Preemption.model());
        body.add("entries", Payloads.GSON.toJsonTree(now.labels()));
        body.addProperty("was", now.defaultLabel());
        if (kernel == null) {
            body.addProperty("next", now.defaultLabel());
            return Reply.ok("the next boot starts '" + now.defaultLabel() + "' (running: '" + BootPartition.booted()
                    + "', " + Preemption.model() + ")", body);
        }
        try {
            BootPartition.choose(config, kernel);
        } catch (IOException | rtbox.os.OsException e) {
            return Reply.failed("cannot choose kernel '" + kernel + "' in " + config + ": " + e.getMessage()
                    + "; the boot configuration is as it was");
        }
        body.addProperty("next", kernel);
        body.addProperty("reboot", reboot);
        if (reboot) {
            station.afterReply(() -> {
                try {
                    BootPartition.reboot();
                } catch (IOException e) {
                    Appliance.LOG.warn("firmware: the reboot could not be started: {}", e.getMessage());
                }
            });
            return Reply.ok("the next boot starts '" + kernel + "'; rebooting now", body);
        }
        return Reply.ok("the next boot starts '" + kernel + "' (was '" + now.defaultLabel() + "'); not rebooting:"
                + " send reboot true, or reboot the appliance, to start it", body);
    }

    private static boolean flag(JsonObject c, String key) throws RtboxException {
        JsonElement e = c == null ? null : c.get(key);
        if (e == null || e.isJsonNull()) {
            return false;
        }
        if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isBoolean()) {
            throw new RtboxException(key, key + " must be true or false, not " + Dispatcher.cut(e.toString(), 60));
        }
        return e.getAsBoolean();
    }
}
