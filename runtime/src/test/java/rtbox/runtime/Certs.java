package rtbox.runtime;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Certificates made at test time with openssl in the test's own folder: a CA, a server
 * certificate for localhost and 127.0.0.1 signed by it, client certificates (CN = the
 * user name the broker's ACL sees) as PEM and as a PKCS12 key store.
 */
final class Certs {
    static final String PASSWORD = "test-keystore";
    final Path dir;

    Certs(Path dir) {
        this.dir = dir;
    }

    /** A self-signed CA: NAME.crt and NAME.key. */
    Path ca(String name) throws IOException, InterruptedException {
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "2", "-subj", "/CN=" + name,
                "-keyout", dir.resolve(name + ".key").toString(), "-out", dir.resolve(name + ".crt").toString(),
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
        return dir.resolve(name + ".crt");
    }

    /** A server certificate for localhost and 127.0.0.1 signed by {@code ca}: NAME.crt and NAME.key. */
    Path server(String name, String ca) throws IOException, InterruptedException {
        return signed(name, "localhost", ca, "serverAuth", "subjectAltName=DNS:localhost,IP:127.0.0.1");
    }

    /** A client certificate with CN {@code user}, signed by {@code ca}; also as NAME.p12 (password {@link #PASSWORD}). */
    Path client(String user, String ca) throws IOException, InterruptedException {
        signed(user, user, ca, "clientAuth", null);
        openssl("pkcs12", "-export", "-in", dir.resolve(user + ".crt").toString(), "-inkey",
                dir.resolve(user + ".key").toString(), "-name", user, "-out", dir.resolve(user + ".p12").toString(),
                "-passout", "pass:" + PASSWORD);
        return dir.resolve(user + ".p12");
    }

    private Path signed(String name, String cn, String ca, String usage, String san)
            throws IOException, InterruptedException {
        Path ext = dir.resolve(name + ".ext");
        Files.writeString(ext, "basicConstraints=CA:FALSE\nextendedKeyUsage=" + usage + "\n"
                + (san == null ? "" : san + "\n"));
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-sha256", "-subj", "/CN=" + cn,
                "-keyout", dir.resolve(name + ".key").toString(), "-out", dir.resolve(name + ".csr").toString());
        openssl("x509", "-req", "-in", dir.resolve(name + ".csr").toString(), "-CA", dir.resolve(ca + ".crt").toString(),
                "-CAkey", dir.resolve(ca + ".key").toString(), "-CAcreateserial", "-days", "2", "-sha256",
                "-extfile", ext.toString(), "-out", dir.resolve(name + ".crt").toString());
        return dir.resolve(name + ".crt");
    }

    private void openssl(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("openssl"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
    }
}
