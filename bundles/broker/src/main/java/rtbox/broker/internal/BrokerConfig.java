package rtbox.broker.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Configuration of the control room's embedded broker (PID {@code rtbox.broker}, file etc/rtbox.broker.cfg). */
@ObjectClassDefinition(name = "rtbox embedded broker",
        description = "The control room's MQTT broker for the all-in-one default (rtbox broker, rtbox job):"
                + " Moquette on 127.0.0.1 only, with a generated password.")
public @interface BrokerConfig {
    @AttributeDefinition(description = "TCP port of rtbox broker on 127.0.0.1 (rtbox job always takes a free port"
            + " of its own, so that it never meets a broker already on this one).")
    int port() default 1883;

    @AttributeDefinition(description = "Largest MQTT message accepted, in bytes. Moquette's own default (8092)"
            + " drops every run result with a histogram.")
    int maxMessageBytes() default 64 * 1024 * 1024;

    @AttributeDefinition(required = false, description = "File with the broker's password (generated on first"
            + " start, mode 0600); default: broker/password in the data folder.")
    String passwordFile() default "";
}
