package rtbox.mqtt.internal;

import java.io.IOException;
import java.security.GeneralSecurityException;

import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;

import rtbox.mqtt.client.ClientOptions;
import rtbox.mqtt.client.Clients;
import rtbox.mqtt.client.OversizedPublish;
import rtbox.mqtt.protocol.Tls;

/**
 * The appliance's Paho connect options from its configuration, through the shared client layer
 * (rtbox.mqtt.client): a persistent session, the last will, TLS or the oversized-publish guard.
 */
final class Connection {

    private Connection() {
    }

    static MqttConnectOptions options(MqttConfig config, String willTopic, byte[] will)
            throws IOException, GeneralSecurityException {
        boolean user = config.username() != null && !config.username().isBlank();
        // TLS sockets send at once; a plain one also shrinks a command over the limit before Paho
        // reads it whole (OversizedPublish).
        javax.net.SocketFactory sockets = ClientOptions.overTls(config.brokers())
                ? ClientOptions.tls(Tls.context(config.tlsTrustStore(), config.tlsTrustStorePassword(),
                        config.tlsKeyStore(), config.tlsKeyStorePassword()))
                : OversizedPublish.factory(config.maxCommandBytes());
        MqttConnectOptions o = new ClientOptions(config.brokers(), user ? config.username() : null,
                user ? password(config) : null, sockets, config.keepAliveSeconds(),
                config.connectTimeoutSeconds()).v3();
        // The session (subscription, messages in flight) survives a reconnect and a restart.
        o.setCleanSession(false);
        // Paho's own reconnect uses a static timer and lock shared by every client: rtbox reconnects itself.
        o.setAutomaticReconnect(false);
        o.setMaxInflight(10);
        o.setWill(willTopic, will, 1, true);
        return o;
    }

    /** The password, or the first line of passwordFile when that is given. */
    static String password(MqttConfig config) throws IOException {
        String fromFile = Clients.passwordFile("passwordFile", config.passwordFile());
        if (fromFile != null) {
            return fromFile;
        }
        return config.password() == null ? "" : config.password();
    }

    /** Paho's reason code with its text, and the underlying cause, if any. */
    static String describe(MqttException e) {
        return Clients.describe(e);
    }

}
