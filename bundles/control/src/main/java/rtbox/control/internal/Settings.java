package rtbox.control.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The control room's configuration (PID {@code rtbox.control}, file etc/rtbox.control.cfg).
 * {@code rtbox control} copies it, with what its options and the embedded broker add, to
 * PID {@code rtbox.control.serve}, which starts the control room proper.
 */
@ObjectClassDefinition(name = "rtbox control room", description = "Database, broker and web settings of the"
        + " control room (rtbox control).")
public @interface Settings {
    @AttributeDefinition(required = false, description = "JDBC URL: empty for the embedded H2 file database in the"
            + " data folder (control/db); jdbc:postgresql://host/db for a site's PostgreSQL (same schema, Flyway).")
    String jdbcUrl() default "";

    @AttributeDefinition(required = false, description = "Database user (PostgreSQL).")
    String jdbcUser() default "";

    @AttributeDefinition(required = false, description = "File holding the database password (never the password"
            + " itself in a configuration file or on a command line).")
    String jdbcPasswordFile() default "";

    @AttributeDefinition(required = false, description = "Site broker, e.g. ssl://broker.plant:8883, or the nodes"
            + " of a clustered one, comma-separated, tried in order at each (re)connection. Empty: rtbox control starts"
            + " the embedded broker (127.0.0.1:brokerPort), as rtbox job does.")
    String brokers() default "";

    @AttributeDefinition(required = false, description = "MQTT user name (the site ACL's control user).")
    String username() default "control";

    @AttributeDefinition(required = false, description = "File holding the MQTT password (default with the embedded"
            + " broker: broker/password in the data folder).")
    String passwordFile() default "";

    @AttributeDefinition(required = false, description = "CA of the site broker: PEM file or PKCS12/JKS trust store.")
    String tlsTrustStore() default "";

    @AttributeDefinition(description = "Port of the embedded broker (appliances connect to it).")
    int brokerPort() default 1883;

    @AttributeDefinition(description = "MQTT client id of this control room (its persistent session at the broker).")
    String clientId() default "rtbox-control";

    @AttributeDefinition(required = false, description = "Shared-subscription group of the control-room instances"
            + " that share a fleet's results (MQTT 5 $share/GROUP/...: each cell and result goes to one of them, all"
            + " writing one PostgreSQL; each needs its own clientId). Empty: this instance takes every message.")
    String sharedGroup() default "";

    @AttributeDefinition(description = "An appliance not heard from for this many seconds is shown offline (0:"
            + " never), although no offline status came: on a clustered broker its last will dies with the node it was"
            + " on. Appliances repeat their status every statusHeartbeatSeconds (rtbox.mqtt, 30 by default): keep this"
            + " above three of those.")
    long silentAfterSeconds() default 120;

    @AttributeDefinition(description = "Seconds a start waits for an appliance's answers (the readiness check and the"
            + " plan's start together, one deadline; 10 s more when a self-test runs) before it is answered 504"
            + " (docs/control-api.md). Tests that wait for that 504 shorten it.")
    long replySeconds() default 20;

    @AttributeDefinition(description = "Messages a second an appliance may send on average (bursts of 20 seconds'"
            + " worth allowed; a plan of many cells published again comes as one burst). Past it the appliance is named"
            + " as flooding (log, /api/v1/ingest) and its status and progress are refused (rate-limited); its cells and"
            + " results are still stored. 0: no budget.")
    double floodMessagesPerSecond() default 10;

    @AttributeDefinition(description = "Largest message stored, in bytes; larger ones are counted and logged as"
            + " oversize.")
    int maxMessageBytes() default 20 * 1024 * 1024;

    @AttributeDefinition(description = "HTTP port (rtbox control --port).")
    int port() default 8480;

    @AttributeDefinition(description = "Address the web server binds (rtbox control --bind). Anything but a loopback"
            + " address needs tlsKeyStore: the control room then serves HTTPS only.")
    String bind() default "127.0.0.1";

    @AttributeDefinition(required = false, description = "PKCS12 key store with the web server's key and certificate.")
    String tlsKeyStore() default "";

    @AttributeDefinition(required = false, description = "File holding the key store's password.")
    String tlsKeyStorePasswordFile() default "";

    @AttributeDefinition(description = "A PASS record is refused when the appliance's readiness check (disk, outbox,"
            + " probes) before the run is older than this many seconds at the run's start (the key keeps its old"
            + " name; the measuring chain's self-test is run by the start itself, seconds before).")
    long selftestMaxAge() default 3600;

    @AttributeDefinition(description = "Who signs a run off: operator (a person, on the Run page) or verdict (the"
            + " record is issued when the plan's result arrives).")
    String signOff() default "operator";

    @AttributeDefinition(required = false, description = "The plan library folder (default: plans/ in rtbox's home).")
    String plansDir() default "";

    @AttributeDefinition(required = false, description = "The appliances this control room knows (site broker): one"
            + " id a line, or ID:... as in mosquitto's password file (the appliance listener's, or a copy), read again"
            + " when it changes. They are registered when first heard of; any other appliance lands unregistered (shown,"
            + " stored, its runs counting for nothing) until an admin accepts it. With the embedded broker every"
            + " appliance is registered on sight.")
    String appliancesFile() default "";

    @AttributeDefinition(required = false, description = "Set by rtbox control: the embedded broker serves (every"
            + " appliance is registered on sight).")
    boolean embeddedBroker() default false;

    @AttributeDefinition(description = "Seconds before a webhook delivery that failed is tried again the first"
            + " time; each further failure doubles the wait, up to webhookRetryMaxSeconds.")
    long webhookRetrySeconds() default 10;

    @AttributeDefinition(description = "The longest wait between two attempts of a webhook delivery, in seconds.")
    long webhookRetryMaxSeconds() default 900;

    @AttributeDefinition(description = "A webhook delivery not acknowledged (2xx) this many hours after its event is"
            + " given up (shown failed on the webhooks page).")
    long webhookGiveUpHours() default 48;

    @AttributeDefinition(required = false, description = "Data folder (set by rtbox control).")
    String dataDir() default "";

    @AttributeDefinition(required = false, description = "The URL people open (printed, and used in run links).")
    String publicUrl() default "";
}
