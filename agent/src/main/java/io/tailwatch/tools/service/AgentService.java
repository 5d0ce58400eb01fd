package io.tailwatch.tools.service;

import io.tailwatch.core.launchd.Launchctl;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * Installs, removes and reports the agent's launchd service. Every step says what it runs; exit
 * codes follow the CLI (0 ok, 1 failure).
 */
public final class AgentService {
    /** Lines of `launchctl print` worth showing in a status. */
    private static final List<String> STATUS_KEYS = List.of("state = ", "pid = ", "last exit code = ", "runs = ",
            "program = ", "path = ");

    private final ServicePaths paths;
    private final Launchctl launchctl;
    private final PrintWriter out;
    private final PrintWriter err;

    public AgentService(ServicePaths paths, Launchctl launchctl, PrintWriter out, PrintWriter err) {
        this.paths = paths;
        this.launchctl = launchctl;
        this.out = out;
        this.err = err;
    }

    public Path plistPath() {
        return paths.plist(AgentPlist.LABEL);
    }

    private String target() {
        return paths.target(AgentPlist.LABEL);
    }

    /**
     * Writes the plist and bootstraps it. An identical plist already loaded is left alone; a
     * different one is replaced only with {@code force} (booted out first).
     */
    public int install(String plistXml, boolean secretsInside, boolean force) throws IOException, Launchctl.NotFound {
        launchctl.executable();
        Path plist = plistPath();
        if (Files.exists(plist)) {
            String existing = Files.readString(plist, StandardCharsets.UTF_8);
            if (existing.equals(plistXml)) {
                Launchctl.Result loaded = launchctl.print(target());
                if (loaded.ok()) {
                    out.println("already installed and loaded: " + plist);
                    return 0;
                }
            } else if (!force) {
                err.println(plist + " exists and differs from the plist this install would write; "
                        + "re-run with --force to replace it (see `tailwatch service plist` for the new one)");
                return 1;
            } else {
                Launchctl.Result r = launchctl.bootout(target());
                out.println("ran: " + r.commandLine() + " (exit " + r.exitCode() + ")");
            }
        }
        Files.createDirectories(paths.plistDir());
        Files.createDirectories(paths.logDir());
        write(plist, plistXml, secretsInside);
        out.println("wrote " + plist);
        Launchctl.Result r = launchctl.bootstrap(paths.domain(), plist);
        if (!r.ok()) {
            err.println(r.commandLine() + " failed (exit " + r.exitCode() + "): " + r.output().strip());
            err.println("the plist stays at " + plist + "; fix the problem and run `tailwatch service install` again");
            return 1;
        }
        out.println("ran: " + r.commandLine());
        out.println("installed " + AgentPlist.LABEL + "; logs in " + paths.logDir()
                + " (`tailwatch service status`, `tailwatch service logs`)");
        return 0;
    }

    /** Boots the service out (if loaded) and removes its plist. */
    public int uninstall() throws IOException, Launchctl.NotFound {
        launchctl.executable();
        Path plist = plistPath();
        Launchctl.Result r = launchctl.bootout(target());
        if (r.ok()) {
            out.println("ran: " + r.commandLine());
        } else {
            out.println("ran: " + r.commandLine() + " (exit " + r.exitCode() + ", not loaded: "
                    + r.output().strip() + ")");
        }
        if (Files.deleteIfExists(plist)) {
            out.println("removed " + plist);
        } else {
            out.println("no plist at " + plist);
        }
        out.println("logs are kept in " + paths.logDir());
        return 0;
    }

    /** Exit 0 when launchd has the service loaded, 1 when not. */
    public int status() throws IOException, Launchctl.NotFound {
        launchctl.executable();
        Path plist = plistPath();
        out.println("plist: " + plist + (Files.exists(plist) ? "" : " (not installed)"));
        Launchctl.Result r = launchctl.print(target());
        if (!r.ok()) {
            out.println("launchd: " + target() + " is not loaded (" + r.commandLine() + ": exit " + r.exitCode() + ")");
            return 1;
        }
        out.println("launchd: " + target() + " is loaded");
        for (String line : r.output().split("\n")) {
            String t = line.strip();
            for (String key : STATUS_KEYS) {
                if (t.startsWith(key)) {
                    out.println("  " + t);
                    break;
                }
            }
        }
        out.println("logs: " + paths.logDir());
        return 0;
    }

    private static void write(Path file, String text, boolean secretsInside) throws IOException {
        Path tmp = Files.createTempFile(file.getParent(), ".tailwatch", ".plist");
        try {
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                // launchd refuses group- or world-writable plists; keep OTEL headers private to the owner.
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString(secretsInside ? "rw-------" : "rw-r--r--"));
            }
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
