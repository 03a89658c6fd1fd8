package rtbox.control.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;

/**
 * The control room's record-signing keys: Ed25519 from the JDK, kept in files beside the
 * database and never in it, so that whoever can write the database still cannot sign.
 * {@code DATA/control/keys/} (0700) holds {@code KEYID.private.pem} (PKCS#8, 0600),
 * {@code KEYID.public.pem} (X.509 SubjectPublicKeyInfo, as OpenSSL reads it) and
 * {@code current}, the id of the key that signs new records. Rotation writes a new pair
 * and moves {@code current}; old public keys stay, so old records still verify.
 *
 * <p>A key's fingerprint is the SHA-256 of its public key's DER bytes (what
 * {@code openssl pkey -pubin -in KEY.pem -outform DER | sha256sum} prints); its id is the
 * fingerprint's first 16 hex digits.
 */
final class RecordKeys {
    private static final String CURRENT = "current";
    private final Path dir;

    private RecordKeys(Path dir) {
        this.dir = dir;
    }

    /** The keys under {@code dir}, a first key made when there is none (the control room's first start). */
    static RecordKeys open(Path dir) throws IOException {
        RecordKeys k = new RecordKeys(dir);
        if (!Files.exists(dir.resolve(CURRENT))) {
            k.rotate();
        }
        return k;
    }

    /** The keys under {@code dir} as they are, for verifying: nothing is made. */
    static RecordKeys read(Path dir) {
        return new RecordKeys(dir);
    }

    Path dir() {
        return dir;
    }

    /** Makes a new key pair and makes it the one that signs; returns its id. */
    synchronized String rotate() throws IOException {
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir.getParent());
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException e) {
                // another process made it first
            }
        }
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        KeyPair pair;
        try {
            pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IOException("this Java has no Ed25519: " + e.getMessage(), e);
        }
        String id = id(pair.getPublic());
        Path priv = dir.resolve(id + ".private.pem");
        Files.deleteIfExists(priv);
        Files.createFile(priv, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(priv, pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
        Files.writeString(dir.resolve(id + ".public.pem"), pem("PUBLIC KEY", pair.getPublic().getEncoded()));
        Path tmp = dir.resolve(CURRENT + ".tmp");
        Files.writeString(tmp, id + "\n");
        Files.move(tmp, dir.resolve(CURRENT), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return id;
    }

    /** The id of the key that signs new records, read at each use: a rotation by {@code rtbox control keys} applies at once. */
    String currentId() throws IOException {
        Path p = dir.resolve(CURRENT);
        if (!Files.exists(p)) {
            throw new IOException("no signing key in " + dir + " (the control room makes one at its first start)");
        }
        return Files.readString(p).trim();
    }

    /** Signs {@code data} with the key {@code id} (the current one, read before: the signed data names it). */
    byte[] sign(String id, byte[] data) throws IOException {
        try {
            PrivateKey k = KeyFactory.getInstance("Ed25519").generatePrivate(new PKCS8EncodedKeySpec(
                    unpem(Files.readString(dir.resolve(id + ".private.pem")))));
            Signature s = Signature.getInstance("Ed25519");
            s.initSign(k);
            s.update(data);
            return s.sign();
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IOException("the signing key " + id + " in " + dir + " cannot sign: " + e.getMessage(), e);
        }
    }

    /** Every public key kept, by id (the current and the rotated ones). */
    Map<String, PublicKey> publicKeys() throws IOException {
        Map<String, PublicKey> keys = new TreeMap<>();
        if (!Files.isDirectory(dir)) {
            return keys;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.public.pem")) {
            for (Path p : ds) {
                try {
                    PublicKey k = KeyFactory.getInstance("Ed25519").generatePublic(new X509EncodedKeySpec(
                            unpem(Files.readString(p))));
                    keys.put(id(k), k);
                } catch (GeneralSecurityException | IllegalArgumentException e) {
                    throw new IOException(p + " is not an Ed25519 public key: " + e.getMessage(), e);
                }
            }
        }
        return keys;
    }

    static boolean verify(PublicKey key, byte[] data, byte[] signature) {
        try {
            Signature s = Signature.getInstance("Ed25519");
            s.initVerify(key);
            s.update(data);
            return s.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    static String fingerprint(PublicKey k) {
        return Passwords.sha256(k.getEncoded());
    }

    static String id(PublicKey k) {
        return fingerprint(k).substring(0, 16);
    }

    static String pem(PublicKey k) {
        return pem("PUBLIC KEY", k.getEncoded());
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static byte[] unpem(String text) {
        String b64 = text.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return Base64.getDecoder().decode(b64.getBytes(StandardCharsets.US_ASCII));
    }
}
