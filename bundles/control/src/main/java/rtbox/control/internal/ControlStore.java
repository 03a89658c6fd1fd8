package rtbox.control.internal;

import java.nio.file.Path;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The control room's store, a component of its own: the database (H2 file or PostgreSQL,
 * migrated by Flyway, {@link Db}) opened when {@code rtbox control} configures the control
 * room (PID {@code rtbox.control.serve}: {@code jdbcUrl}, {@code jdbcUser},
 * {@code jdbcPasswordFile}, {@code dataDir}) and closed when that configuration goes, after
 * every component that uses it has stopped (they reference this one).
 */
@Component(service = ControlStore.class, configurationPid = ControlRoom.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = Settings.class)
public class ControlStore {
    /** Why the last start failed, for rtbox control to print: a database that does not open is the first reason. */
    @Reference
    StartFailure startFailure;
    private Db db;

    @Activate
    void activate(Settings s) throws Exception {
        startFailure.set(null); // the first of the control room's components to start
        db = startFailure.attempt(() -> ControlCommand.openDb(s, Path.of(s.dataDir())));
    }

    /** The open database. */
    Db db() {
        return db;
    }

    @Deactivate
    void deactivate() {
        if (db != null) {
            db.close();
            db = null;
        }
    }
}
