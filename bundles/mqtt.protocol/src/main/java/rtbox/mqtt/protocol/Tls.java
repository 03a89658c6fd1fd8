package rtbox.mqtt.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS as both ends of rtbox's MQTT set it up from files: the CAs a broker's certificate must
 * be signed by (PEM as mosquitto's cafile, or a trust store) and a client key store. The
 * appliance's configuration and {@code rtbox ctl}'s options both end here, and so do the
 * words that tell a person which setting to fix when the broker is refused.
 */
public final class Tls {
    private static final java.util.regex.Pattern PEM = java.util.regex.Pattern.compile(".*\\.(pem|crt|cer)$");

    private Tls() {
    }

    /**
     * TLS that trusts the CAs in {@code trustStore} (PEM certificates, PKCS12 or JKS; the
     * JVM's CAs when empty) and presents the key in {@code keyStore} (PKCS12 or JKS; none
     * when empty). The appliance's configuration and {@code rtbox ctl}'s options both end here.
     */
    public static SSLContext context(String trustStore, String trustStorePassword, String keyStore, String keyStorePassword)
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

    /**
     * What a person must fix when TLS refused the broker, or null: Java's own messages
     * ("PKIX path building failed") do not say which setting is at fault.
     */
    public static String problem(Throwable e) {
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
