package rtbox.runtime.launch;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;

/**
 * Over 400 lines on purpose: a small DS runtime (read the XML descriptions, resolve
 * references, inject, activate with configuration) is one algorithm whose parts only make
 * sense together; its records (Description, Reference, Tag) are nested since nothing else
 * uses them.
 *
 * <p>The bundles' Declarative Services components without a framework, for the commands that
 * need none: each component as its DS description (OSGI-INF/*.xml, what bnd made from its
 * annotations, the one place its wiring is said) constructed, given its references and
 * activated with its properties and etc/'s configuration, in the order the framework would
 * register them. Only what a command reaches is made: a single service of an interface
 * type when it is first called, as DS makes a delayed component, so help and version make
 * neither the runner nor the plan service. What activation does is what the framework's
 * start does (the scheduling tuner puts back what a crashed run left, as at every start).
 *
 * <p>Only what rtbox's descriptions use is understood (a no-argument constructor,
 * references by field or by a bind method taking the service and maybe its properties,
 * targets such as {@code (key=*)} or {@code (key=value)}); anything else throws
 * {@link Unsupported}, and the launcher starts the framework instead.
 */
final class Components {
    /** A description this class cannot follow as the framework would. */
    static final class Unsupported extends Exception {
        private static final long serialVersionUID = 1L;

        Unsupported(String message) {
            super(message);
        }
    }

    record Reference(String name, String service, boolean multiple, boolean optional, String target, String bind,
            String field, boolean fieldUpdate) {
    }

    record Description(String name, String implementation, List<String> services, Map<String, Object> properties,
            List<Reference> references, String activate, String configurationPid, boolean configured) {
    }

    private final ClassLoader loader;
    private final Configurations configurations;
    private final List<Description> descriptions = new ArrayList<>();
    private final Map<Description, Object> instances = new IdentityHashMap<>();
    private final Set<Description> wiring = new HashSet<>();

    Components(ClassLoader loader, Configurations configurations) {
        this.loader = loader;
        this.configurations = configurations;
    }

    /** Adds a bundle's components (its Service-Component header), after those of bundles added before. */
    void add(JarFile bundle) throws IOException, Unsupported {
        String header = bundle.getManifest() == null ? null
                : bundle.getManifest().getMainAttributes().getValue("Service-Component");
        if (header == null) {
            return;
        }
        for (String path : header.split("\\s*,\\s*")) {
            ZipEntry e = bundle.getEntry(path.trim());
            if (e == null) {
                throw new Unsupported(bundle.getName() + ": Service-Component " + path + " is not in the jar");
            }
            try (InputStream in = bundle.getInputStream(e)) {
                Description d = parse(in, bundle.getName() + "!" + path);
                if (d != null) {
                    descriptions.add(d);
                }
            }
        }
    }

    private static Description parse(InputStream in, String where) throws IOException, Unsupported {
        Tag c = Tag.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), where);
        if (!c.name().equals("component") || c.has("factory") || c.has("init")) {
            throw new Unsupported(where + ": not a plain component");
        }
        // Without configuration such a component is not there, nor is a disabled one.
        if (c.get("configuration-policy").equals("require") || c.get("enabled").equals("false")) {
            return null;
        }
        Map<String, Object> properties = new LinkedHashMap<>();
        for (Tag p : c.children("property")) {
            if (!p.has("value")) {
                throw new Unsupported(where + ": property " + p.get("name") + " has no single value");
            }
            properties.put(p.get("name"), value(p.get("type"), p.get("value"), where));
        }
        if (!c.children("properties").isEmpty()) {
            throw new Unsupported(where + ": properties from a file");
        }
        List<String> services = new ArrayList<>();
        for (Tag s : c.children("service")) {
            for (Tag p : s.children("provide")) {
                services.add(p.get("interface"));
            }
        }
        List<Reference> references = new ArrayList<>();
        for (Tag r : c.children("reference")) {
            String cardinality = r.has("cardinality") ? r.get("cardinality") : "1..1";
            if (r.has("field-collection-type") && !r.get("field-collection-type").equals("service")) {
                throw new Unsupported(where + ": reference " + r.get("name") + " collects "
                        + r.get("field-collection-type"));
            }
            references.add(new Reference(r.get("name"), r.get("interface"), cardinality.endsWith("n"),
                    cardinality.startsWith("0"), r.get("target"), r.get("bind"), r.get("field"),
                    r.get("field-option").equals("update")));
        }
        List<Tag> impl = c.children("implementation");
        if (impl.size() != 1) {
            throw new Unsupported(where + ": not one implementation");
        }
        String pid = c.has("configuration-pid") ? c.get("configuration-pid") : c.get("name");
        if (pid.contains(" ")) {
            throw new Unsupported(where + ": several configuration PIDs");
        }
        return new Description(c.get("name"), impl.get(0).get("class"), services, properties, references,
                c.has("activate") ? c.get("activate") : "activate", pid,
                !c.get("configuration-policy").equals("ignore"));
    }

    /**
     * An element of a DS description, as bnd writes them: elements and attributes only. A
     * few lines instead of the JDK's XML parser, which loads 170 classes: reading the
     * descriptions took 250 ms with it, 70 ms without (on a loaded 2-core VM).
     */
    record Tag(String name, Map<String, String> attributes, List<Tag> children) {
        private static final Pattern TAG = Pattern.compile("<(/?)(?:[\\w.-]+:)?([\\w.-]+)((?:\\s+[\\w:.-]+\\s*=\\s*\"[^\"]*\")*)\\s*(/?)>"
                + "|<\\?.*?\\?>|<!--.*?-->", Pattern.DOTALL);
        private static final Pattern ATTRIBUTE = Pattern.compile("([\\w:.-]+)\\s*=\\s*\"([^\"]*)\"");

        static Tag parse(String xml, String where) throws Unsupported {
            Deque<Tag> open = new ArrayDeque<>();
            Tag root = null;
            Matcher m = TAG.matcher(xml);
            int at = 0;
            while (m.find()) {
                if (!xml.substring(at, m.start()).isBlank()) {
                    throw new Unsupported(where + ": text or markup this launcher does not read at " + m.start());
                }
                at = m.end();
                if (m.group(2) == null) {
                    continue; // <?xml ...?> or a comment
                }
                if (!m.group(1).isEmpty()) {
                    if (open.isEmpty() || !open.pop().name().equals(m.group(2))) {
                        throw new Unsupported(where + ": </" + m.group(2) + "> closes nothing");
                    }
                    continue;
                }
                Map<String, String> attributes = new LinkedHashMap<>();
                Matcher a = ATTRIBUTE.matcher(m.group(3));
                while (a.find()) {
                    attributes.put(a.group(1), a.group(2).replace("&lt;", "<").replace("&gt;", ">")
                            .replace("&quot;", "\"").replace("&apos;", "'").replace("&amp;", "&"));
                }
                Tag t = new Tag(m.group(2), attributes, new ArrayList<>());
                if (open.isEmpty()) {
                    if (root != null) {
                        throw new Unsupported(where + ": two root elements");
                    }
                    root = t;
                } else {
                    open.peek().children().add(t);
                }
                if (m.group(4).isEmpty()) {
                    open.push(t);
                }
            }
            if (root == null || !open.isEmpty() || !xml.substring(at).isBlank()) {
                throw new Unsupported(where + ": not a whole DS description");
            }
            return root;
        }

        boolean has(String attribute) {
            return attributes.containsKey(attribute);
        }

        /** The attribute's value, or "" when absent. */
        String get(String attribute) {
            return attributes.getOrDefault(attribute, "");
        }

        List<Tag> children(String tag) {
            List<Tag> out = new ArrayList<>();
            for (Tag c : children) {
                if (c.name().equals(tag)) {
                    out.add(c);
                }
            }
            return out;
        }
    }

    private static Object value(String type, String v, String where) throws Unsupported {
        switch (type.isEmpty() ? "String" : type) {
            case "String":
                return v;
            case "Integer":
                return Integer.valueOf(v.trim());
            case "Long":
                return Long.valueOf(v.trim());
            case "Boolean":
                return Boolean.valueOf(v.trim());
            default:
                throw new Unsupported(where + ": property type " + type);
        }
    }

    /** The first satisfied component that provides {@code service} with {@code key=value}, wired; null if none. */
    Object service(String service, String key, String value) throws ReflectiveOperationException, Unsupported {
        List<Description> found = providers(service, "(" + key + "=" + value + ")", false);
        return found.isEmpty() ? null : instance(found.get(0));
    }

    /** The satisfied providers of a service, in registration order (the first only, unless {@code all}). */
    private List<Description> providers(String service, String target, boolean all) throws Unsupported {
        List<Description> out = new ArrayList<>();
        for (Description d : descriptions) {
            if (d.services().contains(service) && matches(target, d.properties()) && satisfied(d)) {
                out.add(d);
                if (!all) {
                    break;
                }
            }
        }
        return out;
    }

    /** Every mandatory reference has a satisfied provider, as the framework requires before it registers a component. */
    private boolean satisfied(Description d) throws Unsupported {
        if (!wiring.add(d)) {
            throw new Unsupported(d.name() + ": a circle of references");
        }
        try {
            for (Reference r : d.references()) {
                if (!r.optional() && providers(r.service(), r.target(), false).isEmpty()) {
                    return false;
                }
            }
            return true;
        } finally {
            wiring.remove(d);
        }
    }

    private Object instance(Description d) throws ReflectiveOperationException, Unsupported {
        Object o = instances.get(d);
        if (o != null) {
            return o;
        }
        Class<?> type = loader.loadClass(d.implementation());
        Constructor<?> constructor = type.getDeclaredConstructor();
        constructor.setAccessible(true);
        o = constructor.newInstance();
        instances.put(d, o);
        for (Reference r : d.references()) {
            inject(o, r, providers(r.service(), r.target(), r.multiple()), d);
        }
        activate(o, d);
        return o;
    }

    /**
     * Gives {@code o} the reference's services. A single service of an interface type is
     * made only when first called, as DS makes a delayed component only when it is used:
     * help and version never touch the runner or the plan service, and making them (Gson,
     * every probe, workload and policy) took 0.1-0.2 s on a loaded 2-core VM.
     */
    private void inject(Object o, Reference r, List<Description> providers, Description d)
            throws ReflectiveOperationException, Unsupported {
        Class<?> serviceType = loader.loadClass(r.service());
        if (!r.field().isEmpty()) {
            Field f = field(o.getClass(), r.field());
            f.setAccessible(true);
            if (!r.multiple()) {
                if (!providers.isEmpty()) {
                    f.set(o, serviceType.isInterface() ? delayed(serviceType, providers.get(0)) : instance(providers.get(0)));
                }
            } else if (r.fieldUpdate()) {
                @SuppressWarnings("unchecked")
                Collection<Object> c = (Collection<Object>) f.get(o);
                c.addAll(instances(providers));
            } else {
                f.set(o, instances(providers));
            }
        } else if (!r.bind().isEmpty()) {
            Method bind = bind(o.getClass(), r.bind(), serviceType, d);
            bind.setAccessible(true);
            for (Description p : providers) {
                Object s = !r.multiple() && serviceType.isInterface() ? delayed(serviceType, p) : instance(p);
                if (bind.getParameterCount() == 1) {
                    bind.invoke(o, s);
                } else {
                    bind.invoke(o, s, p.properties());
                }
            }
        } else {
            throw new Unsupported(d.name() + ": reference " + r.name() + " has neither a field nor a bind method");
        }
    }

    private List<Object> instances(List<Description> providers) throws ReflectiveOperationException, Unsupported {
        List<Object> out = new ArrayList<>();
        for (Description p : providers) {
            out.add(instance(p));
        }
        return out;
    }

    private Object delayed(Class<?> service, Description provider) {
        Object[] made = new Object[1];
        return Proxy.newProxyInstance(loader, new Class<?>[] {service}, (proxy, method, args) -> {
            synchronized (made) {
                if (made[0] == null) {
                    made[0] = instance(provider);
                }
            }
            try {
                return method.invoke(made[0], args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    /**
     * Calls the activate method as DS would, with the component's properties (its
     * description's, then its configuration's in etc/) as a Map or as component property
     * types; a BundleContext is null here (a component that uses it at activation fails,
     * and the launcher starts the framework).
     */
    private void activate(Object o, Description d) throws ReflectiveOperationException, Unsupported {
        Method m = null;
        for (Class<?> c = o.getClass(); c != null && m == null; c = c.getSuperclass()) {
            for (Method candidate : c.getDeclaredMethods()) {
                if (candidate.getName().equals(d.activate())) {
                    if (m != null) {
                        throw new Unsupported(d.name() + ": overloaded " + d.activate());
                    }
                    m = candidate;
                }
            }
        }
        if (m == null) {
            return;
        }
        Map<String, Object> properties = new LinkedHashMap<>(d.properties());
        if (d.configured()) {
            properties.putAll(configurations.of(d.configurationPid()));
        }
        Object[] args = new Object[m.getParameterCount()];
        Class<?>[] types = m.getParameterTypes();
        for (int i = 0; i < args.length; i++) {
            if (types[i] == Map.class) {
                args[i] = properties;
            } else if (types[i].isAnnotation()) {
                args[i] = PropertyTypes.of(types[i], properties);
            } else if (types[i].getName().equals("org.osgi.framework.BundleContext")) {
                args[i] = null;
            } else {
                throw new Unsupported(d.name() + ": activate takes " + types[i].getName());
            }
        }
        m.setAccessible(true);
        try {
            m.invoke(o, args);
        } catch (InvocationTargetException e) {
            throw new Unsupported(d.name() + ": activation failed here: " + e.getCause());
        }
    }

    private static Field field(Class<?> type, String name) throws NoSuchFieldException {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                return c.getDeclaredField(name);
            } catch (NoSuchFieldException e) {
                // the superclass may declare it
            }
        }
        throw new NoSuchFieldException(type.getName() + "." + name);
    }

    private static Method bind(Class<?> type, String name, Class<?> service, Description d) throws Unsupported {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                Class<?>[] p = m.getParameterTypes();
                if (m.getName().equals(name) && p.length >= 1 && p.length <= 2 && p[0].isAssignableFrom(service)
                        && (p.length == 1 || p[1] == Map.class)) {
                    return m;
                }
            }
        }
        throw new Unsupported(d.name() + ": bind method " + name + " takes what this launcher does not give");
    }

    /** LDAP filters as rtbox's targets use them: {@code (key=*)} and {@code (key=value)}. */
    static boolean matches(String filter, Map<String, Object> properties) throws Unsupported {
        if (filter == null || filter.isEmpty()) {
            return true;
        }
        if (!filter.matches("\\([\\w.\\-]+=[^()*\\\\]*\\*?\\)") || filter.indexOf('*') >= 0 && !filter.endsWith("=*)")) {
            throw new Unsupported("target " + filter);
        }
        int eq = filter.indexOf('=');
        Object v = properties.get(filter.substring(1, eq));
        String want = filter.substring(eq + 1, filter.length() - 1);
        return v != null && (want.equals("*") || want.equals(String.valueOf(v)));
    }
}
