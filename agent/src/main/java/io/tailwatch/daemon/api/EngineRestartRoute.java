package io.tailwatch.daemon.api;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.tailwatch.core.config.Config;
import io.tailwatch.core.launchd.EngineRestart;
import io.tailwatch.core.launchd.Launchctl;
import io.tailwatch.core.launchd.UserId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POST /api/v1/engines/{name}/restart: `launchctl kickstart -k` on the engine's launchd label.
 * Offered only when server.auth_token is set (ApiServer then demands the token on /api/*);
 * without a token it answers 403 with the reason. One restart at a time.
 */
public final class EngineRestartRoute implements Consumer<RoutesConfig> {
    public static final String PATH = "/api/v1/engines/{name}/restart";
    private static final Logger LOG = LoggerFactory.getLogger(EngineRestartRoute.class);

    private final boolean tokenConfigured;
    private final EngineRestart restart;

    public EngineRestartRoute(boolean tokenConfigured, EngineRestart restart) {
        this.tokenConfigured = tokenConfigured;
        this.restart = restart;
    }

    /** The route for a running daemon: gui/UID domain of this process, launchctl from its PATH. */
    public static EngineRestartRoute of(Config config, Map<String, String> env) {
        return new EngineRestartRoute(config.server().authToken() != null,
                new EngineRestart(config, new Launchctl(env), "gui/" + UserId.current()));
    }

    /** The route served by whichever route {@code current} gives at each request (a reload replaces it). */
    public static Consumer<RoutesConfig> live(java.util.function.Supplier<EngineRestartRoute> current) {
        return app -> app.post(PATH, ctx -> current.get().handle(ctx));
    }

    @Override
    public void accept(RoutesConfig app) {
        app.post(PATH, this::handle);
    }

    private synchronized void handle(Context ctx) {
        String name = ctx.pathParam("name");
        if (!tokenConfigured) {
            ApiServer.json(ctx.status(403), Map.of("error", "engine restart over HTTP is off: it needs "
                    + "server.auth_token (or auth_token_file) in the config, and that bearer token on the request"));
            return;
        }
        if (!restart.known(name)) {
            ApiServer.json(ctx.status(404), Map.of("error", restart.problem(name)));
            return;
        }
        String problem = restart.problem(name);
        if (problem != null) {
            ApiServer.json(ctx.status(409), Map.of("error", problem));
            return;
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("engine", name);
        body.put("command", restart.describe(name));
        try {
            LOG.info("restarting engine {} over the API: {}", name, restart.describe(name));
            Launchctl.Result r = restart.restart(name);
            body.put("exit_code", r.exitCode());
            body.put("output", r.output());
            if (r.ok()) {
                ApiServer.json(ctx.status(200), body);
            } else {
                body.put("error", "launchctl failed (exit " + r.exitCode() + ")");
                ApiServer.json(ctx.status(502), body);
            }
        } catch (Launchctl.NotFound e) {
            // Not e.getMessage(): it lists the daemon's PATH, which is not for HTTP clients.
            body.put("error", "launchctl not found on the agent's PATH; launchd services exist on macOS only");
            LOG.warn("engine restart over the API: {}", e.getMessage());
            ApiServer.json(ctx.status(501), body);
        } catch (java.io.IOException e) {
            body.put("error", "cannot run launchctl: " + e.getClass().getSimpleName());
            LOG.warn("engine restart over the API: cannot run launchctl: {}", e.toString());
            ApiServer.json(ctx.status(500), body);
        }
    }
}
