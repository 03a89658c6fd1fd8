package rtbox.mqtt.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;

import javax.net.ssl.SSLContext;

import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;

import rtbox.mqtt.protocol.Tls;

/** Paho connect options from the configuration: a persistent session, the last will, TLS. */
final class Connection {

    private Connection() {
    }

    static MqttConnectOptions options(MqttConfig config, String willTopic, byte[] will)
            throws IOException, GeneralSecurityException {
        MqttConnectOptions o = new MqttConnectOptions();
        String[] uris = config.brokers().trim().split("\\s*,\\s*");
        o.setServerURIs(uris);
        // The session (subscription, messages in flight) survives a reconnect and a restart.
        o.setCleanSession(false);
        // Paho's own reconnect uses a static timer and lock shared by every client: rtbox reconnects itself.
        o.setAutomaticReconnect(false);
        o.setKeepAliveInterval(config.keepAliveSeconds());
        o.setConnectionTimeout(config.connectTimeoutSeconds());
        o.setMaxInflight(10);
        o.setWill(willTopic, will, 1, true);
        if (config.username() != null && !config.username().isBlank()) {
            o.setUserName(config.username());
            o.setPassword(password(config).toCharArray());
        }
        boolean tls = false;
        for (String u : uris) {
            tls |= u.startsWith("ssl://");
        }
        if (tls) {
            o.setSocketFactory(new NoDelaySslSocketFactory(tls(config).getSocketFactory()));
            o.setHttpsHostnameVerificationEnabled(true);
        } else {
            // A command over the limit is shrunk before Paho reads it whole (OversizedPublish).
            o.setSocketFactory(OversizedPublish.factory(config.maxCommandBytes()));
        }
        return o;
    }

    /** The password, or the first line of passwordFile when that is given. */
    static String password(MqttConfig config) throws IOException {
        String file = config.passwordFile();
        if (file == null || file.isBlank()) {
            return config.password() == null ? "" : config.password();
        }
        Path p = Path.of(file.trim());
        if (!Files.isReadable(p)) {
            throw new IOException("passwordFile " + p + " is not a readable file");
        }
        String text = Files.readString(p).strip();
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl).strip();
    }

    private static SSLContext tls(MqttConfig config) throws IOException, GeneralSecurityException {
        return Tls.context(config.tlsTrustStore(), config.tlsTrustStorePassword(), config.tlsKeyStore(),
                config.tlsKeyStorePassword());
    }

    /** Paho's reason code with its text, and the underlying cause, if any. */
    static String describe(MqttException e) {
        String s = e.getMessage() + " (code " + e.getReasonCode() + ")";
        String tls = Tls.problem(e);
        if (tls != null) {
            return s + ": " + tls;
        }
        return e.getCause() != null ? s + ": " + e.getCause() : s;
    }

}
