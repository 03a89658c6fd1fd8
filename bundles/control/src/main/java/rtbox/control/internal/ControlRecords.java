package rtbox.control.internal;

import java.nio.file.Path;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;

/**
 * The control room's acceptance records, a component of its own: {@link Records} over the
 * store's database with the signing keys of {@code DATA/control/keys} ({@link RecordKeys},
 * made on first use), configured by PID {@code rtbox.control.serve} ({@code selftestMaxAge},
 * {@code dataDir}). Keys that cannot be opened (a folder others can read) are the start's
 * failure.
 */
@Component(service = ControlRecords.class, configurationPid = ControlRoom.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public class ControlRecords {
    @Reference
    StartFailure startFailure;
    @Reference
    ControlStore store;
    private Records records;

    @Activate
    void activate(Settings s) throws Exception {
        RecordKeys keys = startFailure.attempt(() -> RecordKeys.open(ControlCommand.keysDir(Path.of(s.dataDir()))));
        records = new Records(store.db(), s.selftestMaxAge() * 1000, keys);
    }

    /** Issue, list, verify and export records. */
    Records records() {
        return records;
    }
}
