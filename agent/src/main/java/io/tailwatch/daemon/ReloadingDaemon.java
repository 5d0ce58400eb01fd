package io.tailwatch.daemon;

import io.tailwatch.core.config.Config;
import io.tailwatch.core.config.ConfigException;
import io.tailwatch.metrics.OtlpExporter;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running daemon and the config it runs, replaced on a reload the way Prometheus does it: the next
 * config is read and validated first; on any problem the running config stays and the log says why; a
 * valid config is applied to the running daemon in place ({@link Daemon#reconfigure}: only what changed
 * restarts, the rest keeps its state), and if it cannot be applied the previous config is started again
 * on a fresh daemon (and if that fails too, {@code giveUp} runs: the process cannot serve).
 */
public final class ReloadingDaemon implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReloadingDaemon.class);
    private static final String KEEPING = "config reload failed, keeping the running config: ";

    /** Reads the next config: from its file or the defaults, with the command line's overrides applied. */
    @FunctionalInterface
    public interface ConfigSource {
        Config load() throws ConfigException, IOException, Refused;
    }

    /** A reason, from the config source, to keep the running config (said in the log as it is). */
    public static final class Refused extends Exception {
        public Refused(String reason) {
            super(reason);
        }
    }

    private final ConfigSource source;
    private final String sourceName;
    private final Map<String, String> env;
    private final Function<Config, Daemon> factory;
    private final Runnable giveUp;
    private final Object lock = new Object();
    private Daemon daemon;
    private Config running;
    private boolean stopping;

    private ReloadingDaemon(ConfigSource source, String sourceName, Map<String, String> env,
                            Function<Config, Daemon> factory, Runnable giveUp) {
        this.source = source;
        this.sourceName = sourceName;
        this.env = env;
        this.factory = factory;
        this.giveUp = giveUp;
    }

    /**
     * Starts the daemon on {@code first}; the start's own failures (a port in use, bad OTLP settings, a bad
     * web config) are thrown as they are.
     *
     * @param sourceName what the log calls the config's origin (its file, or the built-in defaults)
     */
    public static ReloadingDaemon start(Config first, ConfigSource source, String sourceName, Map<String, String> env,
                                        Runnable giveUp) {
        return start(first, source, sourceName, env, c -> new Daemon(c, env), giveUp);
    }

    /** With the daemons made by {@code factory} (not yet started), e.g. without host samplers in tests. */
    static ReloadingDaemon start(Config first, ConfigSource source, String sourceName, Map<String, String> env,
                                 Function<Config, Daemon> factory, Runnable giveUp) {
        ReloadingDaemon r = new ReloadingDaemon(source, sourceName, env, factory, giveUp);
        r.daemon = factory.apply(first).start();
        r.running = first;
        return r;
    }

    /** The config the daemon runs now. */
    public Config running() {
        synchronized (lock) {
            return running;
        }
    }

    /** The running daemon (tests). */
    Daemon daemon() {
        synchronized (lock) {
            return daemon;
        }
    }

    /** The port the running daemon's API listens on. */
    public int port() {
        synchronized (lock) {
            return daemon.port();
        }
    }

    /** Reads, validates and applies the next config (see the class comment); nothing after {@link #close}. */
    public void reload() {
        synchronized (lock) {
            if (stopping) {
                return;
            }
            LOG.info("SIGHUP: reloading the config from {}", sourceName);
            Config next;
            try {
                next = source.load();
            } catch (Refused e) {
                LOG.warn(KEEPING + "{}", e.getMessage());
                return;
            } catch (ConfigException e) {
                for (String line : e.problems().render().split("\n")) {
                    LOG.warn(KEEPING + "{}", line);
                }
                return;
            } catch (IOException | RuntimeException e) {
                LOG.warn(KEEPING + "cannot read {}: {}", sourceName, e.toString());
                return;
            }
            String otlp = OtlpExporter.check(next.otlp().settings(), env);
            if (otlp != null) {
                LOG.warn(KEEPING + "otlp: {}", otlp);
                return;
            }
            String memory = MemoryBudget.refusal(next, MemoryBudget.runningHeap(next));
            if (memory != null) {
                LOG.warn(KEEPING + "{}", memory);
                return;
            }
            Config previous = running;
            try {
                List<String> restarted = daemon.reconfigure(next);
                running = next;
                LOG.info("config reloaded from {}: {}", sourceName, restarted.isEmpty()
                        ? "no setting changed, everything kept" : "restarted " + String.join(", ", restarted) + "; everything else kept");
            } catch (Daemon.Kept e) {
                LOG.warn(KEEPING + "{}", e.getMessage());
            } catch (RuntimeException e) {
                LOG.error("the reloaded config cannot start ({}); starting the previous config again", e.getMessage());
                daemon.close();
                try {
                    daemon = factory.apply(previous).start();
                } catch (RuntimeException again) {
                    LOG.error("the previous config cannot start either ({}); exiting", again.getMessage());
                    stopping = true;
                    giveUp.run();
                }
            }
        }
    }

    /** Stops the daemon; a reload after this does nothing. */
    @Override
    public void close() {
        synchronized (lock) {
            stopping = true;
            daemon.close();
        }
    }
}
