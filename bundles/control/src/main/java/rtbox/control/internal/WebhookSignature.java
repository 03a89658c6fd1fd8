package rtbox.control.internal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signature a webhook's receiver checks (docs/control-api.md, "Webhooks"): HMAC-SHA256,
 * keyed with the webhook's secret as UTF-8 text, over {@code TIMESTAMP.BODY}, the timestamp
 * (Unix seconds of the attempt) in decimal, a full stop, then the body's exact bytes. Sent as
 * {@code X-Rtbox-Signature: sha256=HEX} beside {@code X-Rtbox-Timestamp}; the timestamp is
 * signed so that a receiver refusing old ones (5 minutes) refuses a replayed request. The
 * same bytes as {@code { printf '%s.' "$ts"; cat body; } | openssl dgst -sha256 -hmac "$secret"}
 * (WebhookSignatureTest runs that).
 */
final class WebhookSignature {
    static final String SIGNATURE = "X-Rtbox-Signature";
    static final String TIMESTAMP = "X-Rtbox-Timestamp";
    static final String DELIVERY = "X-Rtbox-Delivery";
    static final String EVENT = "X-Rtbox-Event";

    private WebhookSignature() {
    }

    /** {@code sha256=} and the lower-case hex of HMAC-SHA256(secret, timestamp "." body). */
    static String sign(String secret, long timestampSeconds, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update((timestampSeconds + ".").getBytes(StandardCharsets.US_ASCII));
            byte[] d = mac.doFinal(body);
            StringBuilder hex = new StringBuilder("sha256=");
            for (byte b : d) {
                hex.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
            }
            return hex.toString();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
