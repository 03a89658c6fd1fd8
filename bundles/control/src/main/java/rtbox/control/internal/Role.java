package rtbox.control.internal;

import java.util.Locale;

/** Who may do what: each role may do all that the ones before it may. */
enum Role {
    VIEWER, OPERATOR, ADMIN;

    boolean atLeast(Role r) {
        return ordinal() >= r.ordinal();
    }

    String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Role of(String s) {
        for (Role r : values()) {
            if (r.id().equals(s)) {
                return r;
            }
        }
        throw new BadRequest("$.role: '" + (s == null ? "" : Input.shown(s)) + "' is not viewer, operator or admin");
    }
}
