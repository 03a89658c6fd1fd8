package rtbox.control.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The webhooks' signature as a receiver checks it: Debian's {@code openssl dgst -sha256 -hmac}
 * over the same {@code TIMESTAMP.BODY} bytes gives the same hex (docs/control-api.md's shell
 * receiver), for a body with non-ASCII text and an escaped newline; a changed byte of the body,
 * another timestamp or another secret gives another.
 */
class WebhookSignatureTest {
    private static final String SECRET = "whsec_test-secret-of-the-receiver";
    private static final byte[] BODY = ("{\"delivery\":\"d1\",\"event\":\"run.verdict\",\"appliance\":\"a1\","
            + "\"reason\":\"Zelle \u00b5s \u00fcber 20\\nzweite Zeile\",\"verdict\":\"FAIL\"}").getBytes(StandardCharsets.UTF_8);

    @Test
    void opensslComputesTheSameSignature() throws Exception {
        long ts = 1_796_000_000L;
        String ours = WebhookSignature.sign(SECRET, ts, BODY);
        assertTrue(ours.matches("sha256=[0-9a-f]{64}"), ours);
        assertEquals(ours, "sha256=" + openssl(SECRET, ts, BODY));
    }

    @Test
    void anotherByteTimestampOrSecretSignsOtherwise() throws Exception {
        long ts = 1_796_000_000L;
        String ours = WebhookSignature.sign(SECRET, ts, BODY);
        byte[] changed = BODY.clone();
        changed[changed.length - 3] = 'A'; // FAIL -> FAIA: a byte of the verdict
        assertNotEquals(ours, WebhookSignature.sign(SECRET, ts, changed));
        assertNotEquals(ours, WebhookSignature.sign(SECRET, ts + 1, BODY));
        assertNotEquals(ours, WebhookSignature.sign(SECRET + "x", ts, BODY));
        // and openssl agrees on the changed body too: the check is over the exact bytes
        assertEquals(WebhookSignature.sign(SECRET, ts, changed), "sha256=" + openssl(SECRET, ts, changed));
    }

    /** What the shell receiver of docs/control-api.md runs: {@code { printf '%s.' "$ts"; cat body; } | openssl dgst ...}. */
    static String openssl(String secret, long ts, byte[] body) throws Exception {
        // A test secret: on a shared machine openssl's -hmac puts the key in the process list (the docs say so).
        Process p = new ProcessBuilder("openssl", "dgst", "-sha256", "-hmac", secret, "-r").start();
        ByteArrayOutputStream in = new ByteArrayOutputStream();
        in.write((ts + ".").getBytes(StandardCharsets.US_ASCII));
        in.write(body);
        p.getOutputStream().write(in.toByteArray());
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "openssl did not end");
        assertEquals(0, p.exitValue(), new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        return out.split(" ")[0];
    }
}
