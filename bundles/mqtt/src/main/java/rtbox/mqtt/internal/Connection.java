package rtbox.mqtt.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.MqttException;

/** Paho connect options from the configuration: a persistent session, the last will, TLS. */
final class Connection {
    private static final java.util.regex.Pattern PEM = java.util.regex.Pattern.compile(".*\\.(pem|crt|cer)$");

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
            o.setSocketFactory(tls(config).getSocketFactory());
            o.setHttpsHostnameVerificationEnabled(true);
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
        return tls(config.tlsTrustStore(), config.tlsTrustStorePassword(), config.tlsKeyStore(),
                config.tlsKeyStorePassword());
    }

    /**
     * TLS that trusts the CAs in {@code trustStore} (PEM certificates, PKCS12 or JKS; the
     * JVM's CAs when empty) and presents the key in {@code keyStore} (PKCS12 or JKS; none
     * when empty). The appliance's configuration and {@code rtbox ctl}'s options both end here.
     */
    static SSLContext tls(String trustStore, String trustStorePassword, String keyStore, String keyStorePassword)
            throws IOException, GeneralSecurityException {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(load(trustStore, trustStorePassword, "tlsTrustStore"));
        KeyManagerFactory kmf = null;
        if (keyStore != null && !keyStore.isBlank()) {
            String pw = keyStorePassword == null ? "" : keyStorePassword;
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(load(keyStore, pw, "tlsKeyStore"), pw.toCharArray());
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return ctx;
    }

    /** Null (the JVM's default CAs) for an empty path. */
    private static KeyStore load(String path, String password, String what) throws IOException,
            GeneralSecurityException {
        if (path == null || path.isBlank()) {
            return null;
        }
        Path p = Path.of(path);
        if (!Files.isReadable(p)) {
            throw new IOException(what + " " + p + " is not a readable file");
        }
        if (what.equals("tlsTrustStore") && PEM.matcher(p.getFileName().toString()).matches()) {
            // The CA as mosquitto's own configuration has it (cafile): PEM certificates, one or more.
            KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
            ks.load(null, null);
            int i = 0;
            try (InputStream in = Files.newInputStream(p)) {
                for (java.security.cert.Certificate c : java.security.cert.CertificateFactory.getInstance("X.509")
                        .generateCertificates(in)) {
                    ks.setCertificateEntry("ca" + i++, c);
                }
            } catch (java.security.cert.CertificateException e) {
                throw new IOException(what + " " + p + " holds no readable PEM certificate: " + e.getMessage(), e);
            }
            if (i == 0) {
                throw new IOException(what + " " + p + " holds no PEM certificate");
            }
            return ks;
        }
        KeyStore ks = KeyStore.getInstance(path.endsWith(".jks") ? "JKS" : "PKCS12");
        try (InputStream in = Files.newInputStream(p)) {
            ks.load(in, password == null ? new char[0] : password.toCharArray());
        }
        return ks;
    }

    /** Paho's reason code with its text, and the underlying cause, if any. */
    static String describe(MqttException e) {
        String s = e.getMessage() + " (code " + e.getReasonCode() + ")";
        String tls = tlsProblem(e);
        if (tls != null) {
            return s + ": " + tls;
        }
        return e.getCause() != null ? s + ": " + e.getCause() : s;
    }

    /**
     * What a person must fix when TLS refused the broker, or null: Java's own messages
     * ("PKIX path building failed") do not say which setting is at fault.
     */
    static String tlsProblem(Throwable e) {
        boolean handshake = false;
        for (Throwable t = e; t != null; t = t.getCause()) {
            handshake |= t instanceof javax.net.ssl.SSLHandshakeException;
            if (t instanceof java.security.cert.CertPathValidatorException
                    || t.getClass().getName().endsWith("SunCertPathBuilderException")) {
                return "TLS: the broker's certificate is not signed by a CA in tlsTrustStore (or, without it, the JVM's"
                        + " CAs): refused (" + t.getMessage() + ")";
            }
            if (t instanceof java.security.cert.CertificateException && String.valueOf(t.getMessage())
                    .contains("match")) {
                return "TLS: the broker's certificate is not for the host in brokers: refused (" + t.getMessage()
                        + ")";
            }
        }
        return handshake ? "TLS handshake failed: " + rootCause(e) : null;
    }

    private static String rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.toString();
    }
}
