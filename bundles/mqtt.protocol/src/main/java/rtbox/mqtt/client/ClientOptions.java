package rtbox.mqtt.client;

import java.util.function.Consumer;
import java.util.function.IntConsumer;

import javax.net.SocketFactory;
import javax.net.ssl.SSLSocketFactory;

import org.eclipse.paho.client.mqttv3.MqttConnectOptions;

/**
 * What every rtbox MQTT client sets the same way, whichever Paho client it is (the appliance,
 * {@code rtbox ctl} and the control room on 3.1.1, {@link #v3()}; the control room's shared ingest
 * on 5, {@link #applyTo}): the
 * brokers tried in order, the credentials, the sockets (TLS with host-name verification, or the
 * plain factory given) and the timers. What differs between them (session, reconnect, last will,
 * messages in flight) each sets on the options this returns.
 *
 * @param brokers one broker URI or several, comma-separated (a cluster's nodes, tried in order)
 * @param user the user name, none when blank
 * @param password the password (set when not null)
 * @param sockets the socket factory, or null for plain sockets that send at once (TCP_NODELAY;
 *     Paho's default has Nagle's algorithm on: about 40 ms on every command); an {@link SSLSocketFactory}
 *     ({@link #tls(javax.net.ssl.SSLContext)}) turns on host-name verification
 * @param keepAliveSeconds the keep-alive interval
 * @param connectTimeoutSeconds how long a connection may take
 */
public record ClientOptions(String brokers, String user, String password, SocketFactory sockets,
        int keepAliveSeconds, int connectTimeoutSeconds) {

    /** {@code brokers}: one URI or several, comma-separated. */
    public static String[] uris(String brokers) {
        return brokers.trim().split("\\s*,\\s*");
    }

    /** True when any of the brokers is reached over TLS ({@code ssl://}). */
    public static boolean overTls(String brokers) {
        for (String u : uris(brokers)) {
            if (u.startsWith("ssl://")) {
                return true;
            }
        }
        return false;
    }

    /**
     * TLS sockets from {@code context} that send at once (TCP_NODELAY, {@link NoDelaySslSocketFactory}).
     */
    public static SSLSocketFactory tls(javax.net.ssl.SSLContext context) {
        return new NoDelaySslSocketFactory(context.getSocketFactory());
    }

    /** The first broker: the URI Paho's client is made with. */
    public String firstUri() {
        return uris(brokers)[0];
    }

    /**
     * Sets what is common through the setters of a Paho options object: the control room's
     * MQTT 5 client is embedded in its bundle (bnd.bnd says why), so this layer cannot name its
     * classes and hands the values to its setters instead.
     */
    public void applyTo(Consumer<String[]> serverUris, IntConsumer keepAlive, IntConsumer connectTimeout,
            Consumer<String> userName, Consumer<String> passwordText, Consumer<SocketFactory> socketFactory,
            Consumer<Boolean> hostnameVerification) {
        serverUris.accept(uris(brokers));
        keepAlive.accept(keepAliveSeconds);
        connectTimeout.accept(connectTimeoutSeconds);
        if (user != null && !user.isBlank()) {
            userName.accept(user);
        }
        if (password != null) {
            passwordText.accept(password);
        }
        SocketFactory chosen = sockets != null ? sockets : defaultSockets();
        if (chosen != null) {
            socketFactory.accept(chosen);
        }
        if (chosen instanceof SSLSocketFactory) {
            hostnameVerification.accept(true);
        }
    }

    /**
     * Without a factory given: plain sockets for tcp:// brokers, the JVM's default TLS for ssl://
     * ones, both sending at once; for a list that mixes both, Paho's own per broker (null).
     */
    private SocketFactory defaultSockets() {
        if (!overTls(brokers)) {
            return NoDelaySockets.INSTANCE;
        }
        for (String u : uris(brokers)) {
            if (!u.startsWith("ssl://")) {
                return null;
            }
        }
        try {
            return tls(javax.net.ssl.SSLContext.getDefault());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no default TLS context", e);
        }
    }

    /** Paho 3.1.1's options with what is common set. */
    public MqttConnectOptions v3() {
        MqttConnectOptions o = new MqttConnectOptions();
        applyTo(o::setServerURIs, o::setKeepAliveInterval, o::setConnectionTimeout, o::setUserName,
                p -> o.setPassword(p.toCharArray()), o::setSocketFactory, o::setHttpsHostnameVerificationEnabled);
        return o;
    }
}
