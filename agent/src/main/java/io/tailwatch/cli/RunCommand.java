package io.tailwatch.cli;

import io.tailwatch.config.Config;
import io.tailwatch.config.HostPort;
import io.tailwatch.daemon.Daemon;
import io.tailwatch.http.ApiServer;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Runs the daemon in the foreground until SIGTERM or SIGINT. */
@Command(name = "run", description = "Run the agent in the foreground.")
public final class RunCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions options;

    @Option(names = "--listen", paramLabel = "HOST:PORT", description = "Override server.listen.")
    String listen;

    @Option(names = "--web-config-file", paramLabel = "FILE",
            description = "Web config file as Prometheus exporters read it (TLS, basic auth, headers); overrides server.web_config_file.")
    java.nio.file.Path webConfigFile;

    @Override
    public Integer call() {
        Config config = options.loadOrReport();
        if (config == null) {
            return TailwatchCommand.EXIT_CONFIG;
        }
        if (listen != null) {
            try {
                HostPort hp = HostPort.parse(listen);
                config = config.withListen(hp.host(), hp.port());
            } catch (IllegalArgumentException e) {
                System.err.println("--listen: " + e.getMessage());
                return TailwatchCommand.EXIT_CONFIG;
            }
        }
        if (webConfigFile != null) {
            String problem = io.tailwatch.config.ServerConfig.checkWebConfig(webConfigFile);
            if (problem != null) {
                System.err.println("--web-config-file: " + problem.replace("; ", "\n--web-config-file: "));
                return TailwatchCommand.EXIT_CONFIG;
            }
            config = config.withWebConfigFile(webConfigFile);
        }
        Daemon daemon;
        try {
            daemon = new Daemon(config, System.getenv()).start();
        } catch (ApiServer.BindFailure e) {
            System.err.println(e.getMessage());
            return TailwatchCommand.EXIT_FAILURE;
        } catch (Daemon.WebConfigFailure e) {
            System.err.println(e.getMessage());
            return TailwatchCommand.EXIT_CONFIG;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            daemon.close();
            stopped.countDown();
        }, "tailwatch-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return TailwatchCommand.EXIT_OK;
    }
}
