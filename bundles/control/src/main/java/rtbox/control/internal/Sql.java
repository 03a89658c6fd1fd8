package rtbox.control.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/** JDBC helpers: parameters bound by position, and insert-if-absent on either database. */
final class Sql {
    private Sql() {
    }

    static PreparedStatement prepare(Connection c, String sql, Object... params) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        for (int i = 0; i < params.length; i++) {
            Object p = params[i];
            if (p == null) {
                ps.setNull(i + 1, Types.NULL);
            } else if (p instanceof byte[]) {
                ps.setBytes(i + 1, (byte[]) p);
            } else {
                ps.setObject(i + 1, p);
            }
        }
        return ps;
    }

    static int update(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, params)) {
            return ps.executeUpdate();
        }
    }

    /**
     * Inserts a row unless one with its key is there: true when inserted. PostgreSQL
     * does it in the statement (ON CONFLICT DO NOTHING: several control rooms may write at
     * once); H2 reports the duplicate key, which leaves its transaction usable.
     */
    static boolean insertIfAbsent(Connection c, boolean postgres, String insert, Object... params)
            throws SQLException {
        if (postgres) {
            return update(c, insert + " ON CONFLICT DO NOTHING", params) == 1;
        }
        try {
            return update(c, insert, params) == 1;
        } catch (SQLException e) {
            if ("23505".equals(e.getSQLState())) {
                return false;
            }
            throw e;
        }
    }

    interface Row<T> {
        T map(ResultSet rs) throws SQLException;
    }

    static <T> List<T> list(Connection c, String sql, Row<T> row, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, sql, params); ResultSet rs = ps.executeQuery()) {
            List<T> out = new ArrayList<>();
            while (rs.next()) {
                out.add(row.map(rs));
            }
            return out;
        }
    }

    static <T> T one(Connection c, String sql, Row<T> row, Object... params) throws SQLException {
        List<T> l = list(c, sql, row, params);
        return l.isEmpty() ? null : l.get(0);
    }

    static long count(Connection c, String sql, Object... params) throws SQLException {
        Long n = one(c, sql, rs -> rs.getLong(1), params);
        return n == null ? 0 : n;
    }

    static Long longOrNull(ResultSet rs, String col) throws SQLException {
        long v = rs.getLong(col);
        return rs.wasNull() ? null : v;
    }

    static Double doubleOrNull(ResultSet rs, String col) throws SQLException {
        double v = rs.getDouble(col);
        return rs.wasNull() ? null : v;
    }
}
