package io.tailwatch.tools.history;

import io.tailwatch.core.config.DataDir;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * The local history of ladder and bench results and single-request baselines: one embedded SQLite
 * file. Every write is one transaction (all of a run or nothing). A locked or damaged file gives a
 * {@link HistoryException} that names the file and the remedy; callers print it and carry on.
 */
public final class History implements AutoCloseable {
    public static final String FILE_NAME = "history.db";
    static final int SCHEMA_VERSION = 1;

    private final Path file;
    private final Connection conn;

    private History(Path file, Connection conn) {
        this.file = file;
        this.conn = conn;
    }

    /** Where the history lives: {@code history.db} in the data directory ({@link DataDir}). */
    public static Path defaultPath(Map<String, String> env, String osName, String userHome) {
        return DataDir.of(env, osName, userHome).resolve(FILE_NAME);
    }

    public static Path defaultPath() {
        return DataDir.of(System.getenv()).resolve(FILE_NAME);
    }

    /** Opens (creating when absent) the history file; waits up to {@code busyTimeout} for another writer. */
    public static History open(Path file, Duration busyTimeout) throws HistoryException {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
        } catch (java.io.IOException e) {
            throw new HistoryException("history database " + file + ": cannot create its directory: " + e.getMessage(), e);
        }
        Connection c = null;
        try {
            org.sqlite.SQLiteConfig cfg = new org.sqlite.SQLiteConfig();
            cfg.setBusyTimeout((int) Math.min(Integer.MAX_VALUE, busyTimeout.toMillis()));
            cfg.enforceForeignKeys(true);
            c = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath(), cfg.toProperties());
            History h = new History(file, c);
            h.migrate();
            return h;
        } catch (SQLException e) {
            if (c != null) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // already failing
                }
            }
            throw explain(file, "open", e);
        }
    }

    public static History open(Path file) throws HistoryException {
        return open(file, Duration.ofSeconds(3));
    }

    public Path file() {
        return file;
    }

    private void migrate() throws SQLException {
        try (Statement s = conn.createStatement()) {
            // Reading the schema first makes a damaged or foreign file fail here, before any write.
            int version;
            try (ResultSet rs = s.executeQuery("PRAGMA user_version")) {
                version = rs.next() ? rs.getInt(1) : 0;
            }
            if (version > SCHEMA_VERSION) {
                throw new SQLException("history schema version " + version + " is newer than this tailwatch ("
                        + SCHEMA_VERSION + ")");
            }
            if (version == SCHEMA_VERSION) {
                return;
            }
            conn.setAutoCommit(false);
            try {
                s.executeUpdate("""
                        CREATE TABLE IF NOT EXISTS runs (
                          id INTEGER PRIMARY KEY AUTOINCREMENT,
                          kind TEXT NOT NULL CHECK (kind IN ('ladder', 'bench', 'baseline')),
                          started_at TEXT NOT NULL,
                          ended_at TEXT,
                          host TEXT NOT NULL,
                          engine TEXT NOT NULL,
                          model TEXT NOT NULL,
                          headline REAL,
                          unit TEXT,
                          outcome TEXT,
                          summary TEXT NOT NULL
                        )""");
                s.executeUpdate("CREATE INDEX IF NOT EXISTS runs_by_target ON runs (engine, model, host, kind, started_at)");
                s.executeUpdate("PRAGMA user_version = " + SCHEMA_VERSION);
                conn.commit();
            } catch (SQLException e) {
                conn.rollback();
                throw e;
            } finally {
                conn.setAutoCommit(true);
            }
        }
    }

    /** Stores runs in one transaction (e.g. a ladder and the baseline taken from its first step); returns their ids. */
    public List<Long> record(List<RunRecord> runs) throws HistoryException {
        List<Long> ids = new ArrayList<>();
        try {
            conn.setAutoCommit(false);
            try (PreparedStatement ps = conn.prepareStatement("""
                    INSERT INTO runs (kind, started_at, ended_at, host, engine, model, headline, unit, outcome, summary)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""", Statement.RETURN_GENERATED_KEYS)) {
                for (RunRecord r : runs) {
                    ps.setString(1, r.kind());
                    ps.setString(2, r.startedAt().toString());
                    ps.setString(3, r.endedAt() == null ? null : r.endedAt().toString());
                    ps.setString(4, r.host());
                    ps.setString(5, r.engine());
                    ps.setString(6, r.model() == null ? "" : r.model());
                    if (r.headline() == null || r.headline().isNaN()) {
                        ps.setNull(7, Types.REAL);
                    } else {
                        ps.setDouble(7, r.headline());
                    }
                    ps.setString(8, r.unit());
                    ps.setString(9, r.outcome());
                    ps.setString(10, r.summary());
                    ps.executeUpdate();
                    try (ResultSet keys = ps.getGeneratedKeys()) {
                        ids.add(keys.next() ? keys.getLong(1) : -1L);
                    }
                }
                conn.commit();
            } catch (SQLException e) {
                try {
                    conn.rollback();
                } catch (SQLException ignored) {
                    // the original error is the one to report
                }
                throw e;
            } finally {
                conn.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw explain(file, "write", e);
        }
        return ids;
    }

    public long record(RunRecord run) throws HistoryException {
        return record(List.of(run)).get(0);
    }

    /** Past runs, newest first, optionally filtered by engine and model (null = any). */
    public List<RunRecord> list(String engine, String model, String kind, int limit) throws HistoryException {
        StringBuilder sql = new StringBuilder("SELECT id, kind, started_at, ended_at, host, engine, model, headline, unit, "
                + "outcome, summary FROM runs WHERE 1 = 1");
        List<String> args = new ArrayList<>();
        if (engine != null) {
            sql.append(" AND engine = ?");
            args.add(engine);
        }
        if (model != null) {
            sql.append(" AND model = ?");
            args.add(model);
        }
        if (kind != null) {
            sql.append(" AND kind = ?");
            args.add(kind);
        }
        sql.append(" ORDER BY started_at DESC, id DESC LIMIT ?");
        try (PreparedStatement ps = conn.prepareStatement(sql.toString())) {
            int i = 1;
            for (String a : args) {
                ps.setString(i++, a);
            }
            ps.setInt(i, limit);
            List<RunRecord> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    double h = rs.getDouble(8);
                    Double headline = rs.wasNull() ? null : h;
                    String ended = rs.getString(4);
                    out.add(new RunRecord(rs.getLong(1), rs.getString(2), Instant.parse(rs.getString(3)),
                            ended == null ? null : Instant.parse(ended), rs.getString(5), rs.getString(6),
                            rs.getString(7), headline, rs.getString(9), rs.getString(10), rs.getString(11)));
                }
            }
            return out;
        } catch (SQLException e) {
            throw explain(file, "read", e);
        }
    }

    /** Headlines of one kind for an engine/model/host since a time, oldest first (nulls left out). */
    public List<Double> headlinesSince(String kind, String engine, String model, String host, Instant since)
            throws HistoryException {
        try (PreparedStatement ps = conn.prepareStatement("""
                SELECT headline FROM runs WHERE kind = ? AND engine = ? AND model = ? AND host = ?
                AND started_at >= ? AND headline IS NOT NULL ORDER BY started_at""")) {
            ps.setString(1, kind);
            ps.setString(2, engine);
            ps.setString(3, model == null ? "" : model);
            ps.setString(4, host);
            ps.setString(5, since.toString());
            List<Double> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getDouble(1));
                }
            }
            return out;
        } catch (SQLException e) {
            throw explain(file, "read", e);
        }
    }

    static HistoryException explain(Path file, String action, SQLException e) {
        String where = "history database " + file;
        if (e instanceof SQLiteException se) {
            SQLiteErrorCode code = se.getResultCode();
            int primary = code == null ? -1 : code.code & 0xff;
            if (primary == SQLiteErrorCode.SQLITE_BUSY.code || primary == SQLiteErrorCode.SQLITE_LOCKED.code) {
                return new HistoryException(where + " is locked by another process (another tailwatch run?); "
                        + "could not " + action + " it. Try again when that run has finished.", e);
            }
            if (primary == SQLiteErrorCode.SQLITE_CORRUPT.code || primary == SQLiteErrorCode.SQLITE_NOTADB.code) {
                return new HistoryException(where + " is damaged (" + (primary == SQLiteErrorCode.SQLITE_NOTADB.code
                        ? "not a SQLite database" : "malformed") + "); could not " + action
                        + " it. Move the file aside and a new history starts on the next run.", e);
            }
            if (primary == SQLiteErrorCode.SQLITE_READONLY.code || primary == SQLiteErrorCode.SQLITE_CANTOPEN.code
                    || primary == SQLiteErrorCode.SQLITE_PERM.code) {
                return new HistoryException(where + " cannot be " + (action.equals("read") ? "read" : "written")
                        + " (permissions or a read-only disk): " + se.getMessage(), e);
            }
        }
        return new HistoryException(where + ": could not " + action + " it: " + e.getMessage(), e);
    }

    @Override
    public void close() {
        try {
            conn.close();
        } catch (SQLException ignored) {
            // nothing left to save
        }
    }
}
