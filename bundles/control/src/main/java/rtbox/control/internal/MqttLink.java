package rtbox.control.internal;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.eclipse.paho.client.mqttv3.IMqttDeliveryToken;
import org.eclipse.paho.client.mqttv3.MqttCallbackExtended;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;
import org.eclipse.paho.client.mqttv3.MqttMessage;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;

/**
 * The control room's MQTT session (Eclipse Paho, MQTT 3.1.1): subscribes to
 * {@code rtbox/v1/up/#} at QoS 1 with a persistent session (clean session off, a fixed
 * client id), so the broker keeps what comes while the control room is away; Paho
 * acknowledges a message only after {@link Ingest#accept} returned, that is after the
 * database committed it. Reconnects by itself.
 */
final class MqttLink implements Commander.Publisher, AutoCloseable {
    private static final String LOG = "rtbox control: mqtt: ";
    private final MqttClient client;
    private final MqttConnectOptions options;
    private final Ingest ingest;

    MqttLink(String broker, String clientId, String user, String password, String trustStore, Ingest ingest)
            throws MqttException, IOException, GeneralSecurityException {
        this.ingest = ingest;
        client = new MqttClient(broker, clientId, new MemoryPersistence());
        options = new MqttConnectOptions();
        options.setCleanSession(false);
        options.setAutomaticReconnect(true);
        options.setMaxInflight(1000);
        options.setKeepAliveInterval(30);
        options.setConnectionTimeout(10);
        options.setMqttVersion(MqttConnectOptions.MQTT_VERSION_3_1_1);
        if (user != null && !user.isEmpty()) {
            options.setUserName(user);
        }
        if (password != null) {
            options.setPassword(password.toCharArray());
        }
        if (trustStore != null && !trustStore.isEmpty()) {
            options.setSocketFactory(ssl(Path.of(trustStore)).getSocketFactory());
            options.setHttpsHostnameVerificationEnabled(true);
        }
        client.setCallback(new MqttCallbackExtended() {
            @Override
            public void connectComplete(boolean reconnect, String serverURI) {
                try {
                    client.subscribe(Decoder.UP + "#", 1);
                    System.err.println(LOG + (reconnect ? "reconnected to " : "connected to ") + serverURI);
                } catch (MqttException e) {
                    System.err.println(LOG + "cannot subscribe to " + Decoder.UP + "#: " + e);
                }
            }

            @Override
            public void connectionLost(Throwable cause) {
                System.err.println(LOG + "connection lost (" + cause + "); reconnecting");
            }

            @Override
            public void messageArrived(String topic, MqttMessage message) throws Exception {
                try {
                    ingest.accept(topic, message.getPayload());
                } catch (Exception e) {
                    // Not acknowledged: the broker sends it again after the reconnect that follows.
                    System.err.println(LOG + "could not store a message on " + topic + " (" + Db.rootMessage(e)
                            + "): it will come again");
                    throw e;
                }
            }

            @Override
            public void deliveryComplete(IMqttDeliveryToken token) {
            }
        });
    }

    /** Connects (the first time; later reconnects are Paho's), trying until it works or {@code timeoutMs}. */
    void connect(long timeoutMs) throws MqttException, InterruptedException {
        long end = System.currentTimeMillis() + timeoutMs;
        while (true) {
            try {
                client.connect(options);
                return;
            } catch (MqttException e) {
                if (System.currentTimeMillis() > end || e.getReasonCode() == MqttException.REASON_CODE_FAILED_AUTHENTICATION
                        || e.getReasonCode() == MqttException.REASON_CODE_NOT_AUTHORIZED) {
                    throw e;
                }
                Thread.sleep(500);
            }
        }
    }

    boolean connected() {
        return client.isConnected();
    }

    @Override
    public void publish(String topic, byte[] payload) throws MqttException {
        client.publish(topic, payload, 1, false);
    }

    @Override
    public void close() {
        try {
            if (client.isConnected()) {
                client.disconnect(5000);
            }
        } catch (MqttException e) {
            try {
                client.disconnectForcibly(1000, 1000);
            } catch (MqttException ignored) {
                // closing anyway
            }
        }
        try {
            client.close(true);
        } catch (MqttException e) {
            System.err.println(LOG + "close: " + e);
        }
    }

    /** A PEM CA file (mosquitto's cafile) or a PKCS12/JKS trust store without password. */
    static SSLContext ssl(Path trust) throws IOException, GeneralSecurityException {
        KeyStore ks;
        String name = trust.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
        if (name.endsWith(".pem") || name.endsWith(".crt") || name.endsWith(".cer")) {
            ks = KeyStore.getInstance(KeyStore.getDefaultType());
            ks.load(null, null);
            try (FileInputStream in = new FileInputStream(trust.toFile())) {
                Collection<? extends Certificate> certs = CertificateFactory.getInstance("X.509").generateCertificates(in);
                int i = 0;
                for (Certificate c : certs) {
                    ks.setCertificateEntry("ca" + i++, c);
                }
            }
        } else {
            ks = KeyStore.getInstance(name.endsWith(".jks") ? "JKS" : "PKCS12");
            try (FileInputStream in = new FileInputStream(trust.toFile())) {
                ks.load(in, null);
            }
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    static String readSecret(String file) throws IOException {
        return file == null || file.isEmpty() ? null : Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
    }
}
