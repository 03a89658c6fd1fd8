package rtbox.control.internal;

import java.util.Collection;
import java.util.regex.Pattern;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import rtbox.json.JsonFields;
import rtbox.json.JsonProblem;
import rtbox.mqtt.protocol.Topics;

/**
 * What the API accepts in a request's fields, checked before anything is stored or sent:
 * each text field has a length, no control characters (U+0000-U+001F, U+007F-U+009F) and
 * no bidirectional overrides or isolates (U+202A-U+202E, U+2066-U+2069: they make a serial
 * read backwards in the audit log); ids follow the MQTT protocol's grammar
 * ({@link Topics#ID}). A problem is a 400 naming the field. The typed reading is rtbox.json's
 * {@link JsonFields}; this class adds only what a text may hold.
 */
final class Input {
    /** serial, model (the record's columns are 100 wide). */
    static final int NAME = 100;
    static final int COMMENT = 2000;
    /** An admin's override reason (a golden reference, a record without a passed self-test). */
    static final int OVERRIDE = 500;
    /** A password's length: at least 12 (a new one), at most 1,024 (PBKDF2 hashes all of it). */
    static final int PASSWORD_MIN = 12, PASSWORD_MAX = 1024;
    /** A plan's name in the library (its file name without .json). */
    static final int PLAN_NAME = 100;
    private static final Pattern PLAN = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}");
    private static final Pattern USER = Pattern.compile("[A-Za-z0-9._@-]{1,64}");

    private Input() {
    }

    static JsonFields fields(JsonObject body, Collection<String> known) {
        return fields(body, "$", known);
    }

    /** A member object's fields (e.g. a record's {@code $.regression}), problems named with {@code path}. */
    static JsonFields fields(JsonElement body, String path, Collection<String> known) {
        try {
            JsonFields f = JsonFields.of(body, path);
            f.onlyKnown(known);
            return f;
        } catch (JsonProblem p) {
            throw new BadRequest(p.getMessage());
        }
    }

    /** An optional text member, checked; null when absent. */
    static String text(JsonFields f, String key, int max) {
        try {
            return check(f.at(key), f.optStr(key), max);
        } catch (JsonProblem p) {
            throw new BadRequest(p.getMessage());
        }
    }

    /** An optional true/false member; null when absent. */
    static Boolean bool(JsonFields f, String key) {
        try {
            return f.optBool(key);
        } catch (JsonProblem p) {
            throw new BadRequest(p.getMessage());
        }
    }

    /** A required text member, checked. */
    static String requiredText(JsonFields f, String key, int max) {
        String s = text(f, key, max);
        if (s == null || s.isEmpty()) {
            throw new BadRequest(f.at(key) + ": required");
        }
        return s;
    }

    /** An id member (appliance, run): the protocol's grammar. */
    static String id(JsonFields f, String key, boolean required) {
        String s = required ? requiredText(f, key, 64) : text(f, key, 64);
        return s == null ? null : id(f.at(key), s);
    }

    static String id(String where, String s) {
        if (!Topics.ID.matcher(s).matches()) {
            throw new BadRequest(where + ": '" + shown(s) + "' is not an id (1 to 64 of A-Z a-z 0-9 . _ -, not dots"
                    + " alone)");
        }
        return s;
    }

    static String user(String where, String s) {
        check(where, s, 64);
        if (s == null || !USER.matcher(s).matches()) {
            throw new BadRequest(where + ": a user name is 1 to 64 of A-Z a-z 0-9 . _ @ -");
        }
        return s;
    }

    /** A password at {@code where}: the text checks, at most 1,024 characters, and at least 12 when {@code isNew}. */
    static String password(String where, String s, boolean isNew) {
        check(where, s, PASSWORD_MAX);
        if (isNew && (s == null || s.length() < PASSWORD_MIN)) {
            throw new BadRequest(where + ": a password needs at least " + PASSWORD_MIN + " characters");
        }
        return s;
    }

    /** A plan's name in the library: the text checks, then 1 to 100 of A-Z a-z 0-9 . _ -, not starting with '.'. */
    static String planName(String where, String s) {
        check(where, s, PLAN_NAME);
        if (s == null || !PLAN.matcher(s).matches()) {
            throw new BadRequest(where + ": '" + (s == null ? "" : shown(s)) + "' is not a plan name (1 to 100 of"
                    + " A-Z a-z 0-9 . _ -, not starting with '.')");
        }
        return s;
    }

    /** A text at {@code where}: at most {@code max} characters, no control characters, no bidi overrides. */
    static String check(String where, String s, int max) {
        if (s == null) {
            return null;
        }
        if (s.length() > max) {
            throw new BadRequest(where + ": at most " + max + " characters, not " + s.length());
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
                throw new BadRequest(where + ": a control character (U+" + String.format("%04X", (int) c) + ") at "
                        + i + " is not allowed");
            }
            if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) {
                throw new BadRequest(where + ": a bidirectional override (U+" + String.format("%04X", (int) c)
                        + ") at " + i + " is not allowed: it makes text read in another order than it is stored");
            }
        }
        return s;
    }

    /** A query parameter, checked as a text. */
    static String param(String name, String value, int max) {
        return check("?" + name, value, max);
    }

    /** For an error message: a value cut short, its control characters shown as '?'. */
    static String shown(String s) {
        String t = s.length() > 40 ? s.substring(0, 40) + "..." : s;
        return t.replaceAll("[\\p{Cntrl}\\u202a-\\u202e\\u2066-\\u2069]", "?");
    }

    static boolean isText(JsonElement e) {
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isString();
    }
}
