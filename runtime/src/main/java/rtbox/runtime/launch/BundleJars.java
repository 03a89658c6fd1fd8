package rtbox.runtime.launch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Path;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

/**
 * A plain class loader over the bundles' jars, in order, as one class path. Unlike
 * URLClassLoader it does not check jar signatures, as Felix does not (without a security
 * manager): checking Paho's signed jar took 0.28 s of certificate parsing (measured).
 */
final class BundleJars extends ClassLoader {
    static {
        registerAsParallelCapable();
    }

    private final List<JarFile> jars = new ArrayList<>();
    private final List<String> roots = new ArrayList<>();
    private final List<ProtectionDomain> domains = new ArrayList<>();

    BundleJars(List<Path> files, ClassLoader parent) throws IOException {
        super("rtbox-bundles", parent);
        for (Path f : files) {
            jars.add(new JarFile(f.toFile(), false));
            URL url = f.toUri().toURL();
            roots.add("jar:" + url + "!/");
            domains.add(new ProtectionDomain(new CodeSource(url, (Certificate[]) null), null, this, null));
        }
    }

    /** The jar at {@code index} in the class path, open. */
    JarFile jar(int index) {
        return jars.get(index);
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
        String path = name.replace('.', '/').concat(".class");
        for (int i = 0; i < jars.size(); i++) {
            ZipEntry e = jars.get(i).getEntry(path);
            if (e != null) {
                byte[] bytes;
                try (InputStream in = jars.get(i).getInputStream(e)) {
                    bytes = in.readAllBytes();
                } catch (IOException x) {
                    throw new ClassNotFoundException(name, x);
                }
                int dot = name.lastIndexOf('.');
                if (dot > 0 && getDefinedPackage(name.substring(0, dot)) == null) {
                    try {
                        definePackage(name.substring(0, dot), null, null, null, null, null, null, null);
                    } catch (IllegalArgumentException raced) {
                        // defined by another thread meanwhile
                    }
                }
                return defineClass(name, bytes, 0, bytes.length, domains.get(i));
            }
        }
        throw new ClassNotFoundException(name);
    }

    @Override
    protected URL findResource(String name) {
        for (int i = 0; i < jars.size(); i++) {
            if (jars.get(i).getEntry(name) != null) {
                return url(i, name);
            }
        }
        return null;
    }

    @Override
    protected Enumeration<URL> findResources(String name) {
        List<URL> out = new ArrayList<>();
        for (int i = 0; i < jars.size(); i++) {
            if (jars.get(i).getEntry(name) != null) {
                out.add(url(i, name));
            }
        }
        return Collections.enumeration(out);
    }

    private URL url(int jar, String name) {
        try {
            return new URL(roots.get(jar) + name);
        } catch (MalformedURLException e) {
            throw new UncheckedIOException(e);
        }
    }
}
