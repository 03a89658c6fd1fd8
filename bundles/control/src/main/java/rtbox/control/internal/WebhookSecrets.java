package rtbox.control.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * How a webhook's secret is kept: the control room must sign with it, so a hash will not do.
 * It is sealed with AES-256-GCM under a key of 256 random bits in {@code DATA/control/webhook-key}
 * (0600 in the 0700 folder, made at the first start as the database password is), with the
 * webhook's URL as associated data. So the database alone (a PostgreSQL account, a copy of the
 * H2 file, a backup) gives no secret back, and a sealed secret moved onto another URL does not
 * open: the deliveries fail rather than sign for a URL the admin did not give. Who reads the key
 * file and the database reads the secrets (root on the machine; out of scope, as for the record
 * keys). Several control rooms on one PostgreSQL need the same key file (docs/fleet.md).
 */
final class WebhookSecrets {
    static final String FILE = "webhook-key";
    private static final String VERSION = "v1:";
    private static final SecureRandom RANDOM = new SecureRandom();
    private final SecretKeySpec key;
    private final Path file;

    private WebhookSecrets(Path file, byte[] key) {
        this.file = file;
        this.key = new SecretKeySpec(key, "AES");
    }

    /** The key kept in {@code controlDir}, made (0600) if there is none yet. */
    static WebhookSecrets open(Path controlDir) throws IOException {
        OwnerOnlyFolder.ensure(controlDir);
        Path file = controlDir.resolve(FILE);
        if (!Files.exists(file)) {
            // Written whole under another name, then linked in (as H2Login): the first link wins.
            Path tmp = Files.createTempFile(controlDir, FILE, ".new",
                    PosixFilePermissions.asFileAttribute(OwnerOnlyFolder.FILE));
            try {
                byte[] k = new byte[32];
                RANDOM.nextBytes(k);
                Files.writeString(tmp, Base64.getEncoder().encodeToString(k) + "\n", StandardCharsets.US_ASCII);
                Files.createLink(file, tmp);
            } catch (FileAlreadyExistsException other) {
                // another opener made it first: its key is the one
            } finally {
                Files.delete(tmp);
            }
        }
        byte[] k;
        try {
            k = Base64.getDecoder().decode(Files.readString(file, StandardCharsets.US_ASCII).strip());
        } catch (IllegalArgumentException e) {
            k = new byte[0];
        }
        if (k.length != 32) {
            throw new IOException(file + " does not hold a key of 256 bits in base64: it seals the webhooks' secrets"
                    + " (replace it only with the one it was, or delete the webhooks and it together)");
        }
        return new WebhookSecrets(file, k);
    }

    /** {@code secret} sealed for {@code url}: "v1:" and base64 of a 12-byte nonce and the ciphertext with its tag. */
    String seal(String secret, String url) {
        byte[] nonce = new byte[12];
        RANDOM.nextBytes(nonce);
        try {
            Cipher c = cipher(Cipher.ENCRYPT_MODE, nonce, url);
            byte[] sealed = c.doFinal(secret.getBytes(StandardCharsets.UTF_8));
            return VERSION + Base64.getEncoder().encodeToString(ByteBuffer.allocate(12 + sealed.length).put(nonce)
                    .put(sealed).array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is part of every JDK", e);
        }
    }

    /** The secret of a sealed text for {@code url}; an IOException naming the key file when it does not open. */
    String open(String sealed, String url) throws IOException {
        try {
            if (!sealed.startsWith(VERSION)) {
                throw new GeneralSecurityException("not sealed by this control room");
            }
            byte[] all = Base64.getDecoder().decode(sealed.substring(VERSION.length()));
            if (all.length < 12 + 16) {
                throw new GeneralSecurityException("too short");
            }
            byte[] nonce = java.util.Arrays.copyOf(all, 12);
            Cipher c = cipher(Cipher.DECRYPT_MODE, nonce, url);
            return new String(c.doFinal(all, 12, all.length - 12), StandardCharsets.UTF_8);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IOException("the webhook's secret does not open with " + file + " (another control room's key,"
                    + " or its row was changed): add the webhook again");
        }
    }

    private Cipher cipher(int mode, byte[] nonce, String url) throws GeneralSecurityException {
        Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
        c.init(mode, key, new GCMParameterSpec(128, nonce));
        c.updateAAD(("rtbox-webhook:" + url).getBytes(StandardCharsets.UTF_8));
        return c;
    }
}
