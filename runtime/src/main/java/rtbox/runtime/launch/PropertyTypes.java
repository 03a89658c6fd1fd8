package rtbox.runtime.launch;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;

/**
 * Component property types (DS 1.3, 112.8.2) over a component's properties: an annotation
 * whose method {@code state_file()} reads the property {@code state.file} ({@code _} is a
 * dot, {@code __} an underscore, {@code $} dropped, {@code $$} a dollar), converted to the
 * method's return type, or the method's default when the property is absent.
 */
final class PropertyTypes {
    private PropertyTypes() {
    }

    static Object of(Class<?> type, Map<String, Object> properties) {
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            switch (method.getName()) {
                case "annotationType":
                    return type;
                case "toString":
                    return "@" + type.getName() + properties;
                case "hashCode":
                    return properties.hashCode();
                case "equals":
                    return proxy == args[0];
                default:
                    Object v = properties.get(key(method.getName()));
                    return v == null ? method.getDefaultValue() : convert(v, method);
            }
        });
    }

    static String key(String method) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < method.length(); i++) {
            char c = method.charAt(i);
            boolean twice = i + 1 < method.length() && method.charAt(i + 1) == c;
            if (c == '_') {
                b.append(twice ? '_' : '.');
                i += twice ? 1 : 0;
            } else if (c == '$') {
                if (twice) {
                    b.append('$');
                    i++;
                }
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static Object convert(Object v, Method method) {
        Class<?> t = method.getReturnType();
        if (t.isArray()) {
            Object one = convertOne(v, t.getComponentType());
            Object a = Array.newInstance(t.getComponentType(), 1);
            Array.set(a, 0, one);
            return a;
        }
        return convertOne(v, t);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object convertOne(Object v, Class<?> t) {
        String s = String.valueOf(v).trim();
        if (t == String.class) {
            return String.valueOf(v);
        } else if (t == int.class) {
            return v instanceof Number n ? n.intValue() : Integer.parseInt(s);
        } else if (t == long.class) {
            return v instanceof Number n ? n.longValue() : Long.parseLong(s);
        } else if (t == boolean.class) {
            return v instanceof Boolean b ? b : Boolean.parseBoolean(s);
        } else if (t == double.class) {
            return v instanceof Number n ? n.doubleValue() : Double.parseDouble(s);
        } else if (t == float.class) {
            return v instanceof Number n ? n.floatValue() : Float.parseFloat(s);
        } else if (t == short.class) {
            return v instanceof Number n ? n.shortValue() : Short.parseShort(s);
        } else if (t == byte.class) {
            return v instanceof Number n ? n.byteValue() : Byte.parseByte(s);
        } else if (t == char.class) {
            return s.isEmpty() ? (char) 0 : s.charAt(0);
        } else if (t.isEnum()) {
            return Enum.valueOf((Class<? extends Enum>) t, s);
        } else if (t == Class.class) {
            throw new IllegalArgumentException("a Class-typed property: not read without a framework");
        }
        throw new IllegalArgumentException("a property of type " + t.getName());
    }
}
