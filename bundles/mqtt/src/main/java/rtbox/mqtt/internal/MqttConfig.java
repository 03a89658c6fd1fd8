package rtbox.mqtt.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.AttributeType;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Configuration of the appliance's MQTT side (PID {@code rtbox.mqtt}, file etc/rtbox.mqtt.cfg). */
@ObjectClassDefinition(name = "rtbox MQTT", description = "Connects the appliance to the site's MQTT broker.")
public @interface MqttConfig {
    @AttributeDefinition(description = "Broker URIs, comma-separated, tried in order: tcp://host:1883, ssl://host:8883.")
    String brokers();

    @AttributeDefinition(description = "This appliance's id: its topic trees are rtbox/v1/up/ID and rtbox/v1/down/ID."
            + " Letters, digits, '-', '_' and '.' only.")
    String appliance();

    @AttributeDefinition(required = false, description = "User name at the broker (the ACL grants by user name).")
    String username() default "";

    @AttributeDefinition(required = false, type = AttributeType.PASSWORD, description = "Password at the broker.")
    String password() default "";

    @AttributeDefinition(required = false, description = "File holding the password (first line), instead of"
            + " password: the embedded broker's (rtbox broker, rtbox job) is broker/password in the data folder.")
    String passwordFile() default "";

    @AttributeDefinition(description = "Keep-alive in seconds: the broker publishes the last will after 1.5 times this"
            + " without a packet.")
    int keepAliveSeconds() default 30;

    @AttributeDefinition(description = "Seconds between repeats of the retained status while connected (0: only"
            + " when it changes). The control room learns the fleet from them on a clustered broker, which may keep a"
            + " retained message on one node only, and takes an appliance not heard from for a while as offline.")
    int statusHeartbeatSeconds() default 30;

    @AttributeDefinition(description = "Milliseconds between live figures of the run under way (per thread min, act,"
            + " avg, max, samples, and the progress within the cell), sent at QoS 0 outside the outbox to"
            + " rtbox/v1/up/ID/live; 0: none. At least 100.")
    int liveIntervalMillis() default 500;

    @AttributeDefinition(description = "Seconds to wait for a connection before trying again.")
    int connectTimeoutSeconds() default 10;

    @AttributeDefinition(required = false, description = "Folder for the outbox and the client's persistence;"
            + " default: mqtt/ beside the framework storage.")
    String dataDir() default "";

    @AttributeDefinition(description = "Disk the outbox may use, in bytes. Past it, new runs are refused (409); "
            + "nothing queued is ever dropped.")
    long outboxMaxBytes() default 16L * 1024 * 1024;

    @AttributeDefinition(description = "Memory for messages that a full disk keeps from the outbox, in bytes. While"
            + " any wait, new runs and plans are refused; past it, a run under way is stopped (what it measured is kept)"
            + " and replies are not kept (ask again).")
    long pendingMaxBytes() default 4L * 1024 * 1024;

    @AttributeDefinition(required = false, description = "TLS: trust store (PKCS12 or JKS) with the broker's CA;"
            + " empty: the JVM's default CAs. The server's host name is always verified.")
    String tlsTrustStore() default "";

    @AttributeDefinition(required = false, type = AttributeType.PASSWORD, description = "TLS trust store password.")
    String tlsTrustStorePassword() default "";

    @AttributeDefinition(required = false, description = "TLS: key store (PKCS12 or JKS) with this appliance's client"
            + " certificate and key; empty: no client certificate.")
    String tlsKeyStore() default "";

    @AttributeDefinition(required = false, type = AttributeType.PASSWORD, description = "TLS key store password.")
    String tlsKeyStorePassword() default "";

    @AttributeDefinition(required = false, description = "Folder of the plans that the plan command runs by name"
            + " (NAME.json); default: plans/ in rtbox's home folder.")
    String plansDir() default "";

    @AttributeDefinition(description = "Largest command accepted, in bytes. A larger one is acknowledged and"
            + " answered 413 without being read (the heap is 48 MB); send a large bundle by url instead of data.")
    int maxCommandBytes() default 2 * 1024 * 1024;

    @AttributeDefinition(description = "Request ids remembered, so that a repeated command is answered again"
            + " without running twice.")
    int rememberedRequests() default 1000;

    @AttributeDefinition(description = "Bytes of replies remembered for repeated commands, at most: the oldest are"
            + " forgotten first when either limit is reached (requests.log stays below about twice this).")
    long rememberedRequestBytes() default 2L * 1024 * 1024;

    @AttributeDefinition(description = "Seconds that new settings of rtbox.mqtt set remotely (set-config) have to"
            + " connect; if they do not, the previous settings are put back and the command is answered so.")
    int configTrialSeconds() default 30;

    @AttributeDefinition(description = "Seconds an install or update by url may take to download the bundle, in"
            + " all; the appliance answers other commands meanwhile.")
    int downloadSeconds() default 120;

    @AttributeDefinition(description = "The CPU the selftest command injects its stall on and measures (the"
            + " measuring chain's self-test); -1: the last CPU. A command's own cpu wins.")
    int selftestCpu() default -1;
}
