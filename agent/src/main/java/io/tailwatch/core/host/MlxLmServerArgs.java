package io.tailwatch.core.host;

import io.tailwatch.core.config.EngineConfig;
import java.io.IOException;
import java.util.List;

/**
 * The model an mlx_lm.server serves, read from its own command line. Its answers do not tell it: a request that
 * names no model is served by the model given with {@code --model} at start, and the answer echoes the placeholder
 * it was given ({@code default_model}). As mlx-lm's {@code server.py} parses its arguments (argparse: {@code --model
 * PATH_OR_REPO} or {@code --model=...}, any unique prefix such as {@code --mod}, the last one given wins):
 * <ul>
 * <li>the value is a local directory or a Hugging Face repository id; the name recorded is the repository id as
 * given, or a directory's last path segment (as the MODELS column of {@code detect} shows names, not paths);</li>
 * <li>{@code --adapter-path} and {@code --draft-model} change how the model answers, not its name, and are not part
 * of it;</li>
 * <li>without {@code --model} the server serves nothing until a request names a model, and then whichever was named
 * last: unknown.</li>
 * </ul>
 * The server is recognised as {@code mlx_lm.server} (the console script, {@code python -m mlx_lm.server}) or
 * {@code mlx_lm server} ({@code python -m mlx_lm server}); any other command line tells nothing. A value that may
 * have been cut by the process table's byte bound ({@link ProcessTable#MAX_ARG_BYTES}) is unknown, not a shortened
 * name; flags past the table's {@link ProcessTable#MAX_ARGS} arguments are not seen (a second {@code --model} there
 * would go unnoticed).
 */
public final class MlxLmServerArgs {
    /** Bounds a recorded name as the probes bound the model names engines answer with. */
    static final int MAX_NAME = 256;

    private MlxLmServerArgs() {
    }

    /**
     * The name of the model the server started with {@code args} serves, or null when they do not tell it (not an
     * mlx_lm.server command line, no {@code --model}, or its value possibly cut).
     */
    public static String servedModel(List<String> args) {
        if (args == null || args.isEmpty()) {
            return null;
        }
        int start = -1;
        for (int i = 0; i < args.size() && start < 0; i++) {
            String last = lastSegment(args.get(i));
            if (last.equals("mlx_lm.server")) {
                start = i + 1;
            } else if (last.equals("mlx_lm") && i + 1 < args.size() && args.get(i + 1).equals("server")) {
                start = i + 2;
            }
        }
        if (start < 0) {
            return null;
        }
        String value = null;
        int at = -1;
        for (int i = start; i < args.size(); i++) {
            String a = args.get(i);
            int eq = a.indexOf('=');
            String flag = eq < 0 ? a : a.substring(0, eq);
            if (flag.length() < 4 || !"--model".startsWith(flag)) {
                continue; // --mo, --mod, --mode and --model all name --model; "--m" is ambiguous to argparse
            }
            if (eq >= 0) {
                value = a.substring(eq + 1);
                at = i;
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
                at = i;
            } else {
                value = null; // the value is past the end: cut
                at = -1;
            }
        }
        if (value == null || value.isBlank() || value.startsWith("-")) {
            return null;
        }
        if (at == args.size() - 1 && ProcessTable.lastArgumentMayBeCut(args)) {
            return null; // the last argument of a command line read up to the byte bound may end early
        }
        String name = name(value);
        return name.isEmpty() || name.length() > MAX_NAME ? null : name;
    }

    /**
     * The served model of an mlx_lm.server on this host: the command line of the one process listening on the
     * engine's loopback port ({@link EngineRunners#serverArguments}). Null when it cannot be told.
     */
    public static String servedModel(ProcessTable table, EngineConfig engine, long self) throws IOException {
        return servedModel(EngineRunners.serverArguments(table, engine, self));
    }

    /** A repository id as it is; a directory by its last path segment. */
    static String name(String value) {
        String v = value.strip();
        while (v.length() > 1 && (v.endsWith("/") || v.endsWith("\\"))) {
            v = v.substring(0, v.length() - 1);
        }
        boolean repoId = !io.tailwatch.core.probe.ModelNames.isPath(v) && v.indexOf('\\') < 0
                && v.indexOf('/') == v.lastIndexOf('/');
        return repoId ? v : lastSegment(v);
    }

    private static String lastSegment(String s) {
        int cut = Math.max(s.lastIndexOf('/'), s.lastIndexOf('\\'));
        return s.substring(cut + 1);
    }
}
