package rtbox.control.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Base64;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * A record as one file for its customer, checkable offline with stock OpenSSL 3 and
 * nothing of rtbox: a zip of {@code record-N.json} (the body exactly as signed: its RFC 8785
 * canonical JSON), {@code record-N.sig} (the raw 64-byte Ed25519 signature),
 * {@code key-KEYID.pem} (the public key, from the key folder, not the database),
 * {@code record-N.html} (the printable record) and {@code VERIFY.txt} (the command).
 */
final class RecordExport {
    private RecordExport() {
    }

    static byte[] zip(Db db, Records records, long id) throws SQLException, IOException {
        Object[] r;
        try (Connection c = db.connection()) {
            r = Records.stored(c, id);
        }
        if (r[2] == null || r[3] == null) {
            throw new BadRequest(409, "record " + id + " is not signed (issued before records were signed): it has no"
                    + " signature to export");
        }
        PublicKey key = records.keys.publicKeys().get((String) r[3]);
        if (key == null) {
            throw new BadRequest(409, "record " + id + " was signed with key " + r[3] + ", which is not among this control"
                    + " room's published keys");
        }
        String n = "record-" + id, pem = "key-" + r[3] + ".pem";
        String verify = "Acceptance record " + id + ", signed by the rtbox control room with Ed25519 key " + r[3] + ".\n\n"
                + "Check the signature with OpenSSL 3 (it prints \"Signature Verified Successfully\"):\n\n"
                + "    openssl pkeyutl -verify -pubin -inkey " + pem + " -rawin -in " + n + ".json -sigfile " + n
                + ".sig\n\n"
                + "Check that the key is the control room's: its fingerprint, printed by\n\n"
                + "    openssl pkey -pubin -in " + pem + " -outform DER | sha256sum\n\n"
                + "must be " + RecordKeys.fingerprint(key) + ",\n"
                + "as the control room publishes it (rtbox control keys; the records page).\n\n"
                + n + ".json is the record exactly as signed (RFC 8785 canonical JSON, UTF-8); its SHA-256\n"
                + "(sha256sum " + n + ".json) is " + r[1] + ",\n"
                + "which the next record in the control room's chain holds as previous_sha256.\n"
                + n + ".html is the same record to print; the signature covers the JSON only.\n";
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(bytes)) {
            entry(z, n + ".json", ((String) r[0]).getBytes(StandardCharsets.UTF_8));
            entry(z, n + ".sig", Base64.getDecoder().decode((String) r[2]));
            entry(z, pem, RecordKeys.pem(key).getBytes(StandardCharsets.US_ASCII));
            entry(z, n + ".html", records.html(id).getBytes(StandardCharsets.UTF_8));
            entry(z, "VERIFY.txt", verify.getBytes(StandardCharsets.UTF_8));
        }
        return bytes.toByteArray();
    }

    private static void entry(ZipOutputStream z, String name, byte[] data) throws IOException {
        z.putNextEntry(new ZipEntry(name));
        z.write(data);
        z.closeEntry();
    }
}
