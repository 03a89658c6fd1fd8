package rtbox.mqtt.client;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import org.eclipse.paho.client.mqttv3.MqttException;

import rtbox.mqtt.protocol.Tls;

/** What every rtbox MQTT client does alike around Paho: a password from a file, an error said, a close. */
public final class Clients {

    private Clients() {
    }

    /** One step of Paho's, which throws its own exception type. */
    @FunctionalInterface
    public interface Step {
        void run() throws Exception;
    }

    /**
     * The first line of {@code file}, stripped (a password file such as rtbox broker's
     * {@code data/broker/password}); null when no file is given. {@code setting} names it in the error.
     */
    public static String passwordFile(String setting, String file) throws IOException {
        if (file == null || file.isBlank()) {
            return null;
        }
        Path p = Path.of(file.trim());
        if (!Files.isReadable(p)) {
            throw new IOException(setting + " " + p + " is not a readable file");
        }
        String text = Files.readString(p).strip();
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl).strip();
    }

    /** Paho's reason code with its text, and what to fix when TLS refused the broker, else the cause. */
    public static String describe(MqttException e) {
        String s = e.getMessage() + " (code " + e.getReasonCode() + ")";
        String tls = Tls.problem(e);
        if (tls != null) {
            return s + ": " + tls;
        }
        return e.getCause() != null ? s + ": " + e.getCause() : s;
    }

    /**
     * Closes a Paho client: disconnects when connected (forcibly when that fails), then frees it;
     * {@code problem} hears why the last step failed, if it did.
     */
    public static void close(BooleanSupplier connected, Step disconnect, Step disconnectForcibly, Step free,
            Consumer<String> problem) {
        try {
            if (connected.getAsBoolean()) {
                disconnect.run();
            }
        } catch (Exception e) {
            try {
                disconnectForcibly.run();
            } catch (Exception ignored) {
                // closing anyway
            }
        }
        try {
            free.run();
        } catch (Exception e) {
            problem.accept(String.valueOf(e));
        }
    }
}
