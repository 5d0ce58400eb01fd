package io.tailwatch.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tailwatch.core.json.Json;
import io.tailwatch.core.text.Columns;
import io.tailwatch.daemon.engine.EngineDiscovery;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** tailwatch detect: which LLM engines run on this host's loopback ports, and a ready engines: block. */
@Command(name = "detect", mixinStandardHelpOptions = true, versionProvider = TailwatchCommand.Version.class, description = {
        "Find the LLM engines on this host and print a ready engines: block.",
        "Checks the well-known loopback ports (Ollama 11434, mlx_lm.server and llama.cpp 8080, LM Studio 1234,",
        "vLLM 8000) and any given with --ports, and identifies each engine by what its API answers (each request",
        "has a 2 s deadline). Prints a table and an engines: block for config/tailwatch.yaml.",
        "Exit: 0 some engine found, 1 none, 2 usage."})
public final class DetectCommand extends PrintingCommand {

    @Option(names = "--ports", paramLabel = "P,P,...", split = ",", description = "More ports to check (besides the well-known ones).")
    List<Integer> ports = new ArrayList<>();

    @Option(names = "--only", description = "Check only the --ports given, not the well-known ones.")
    boolean only;

    @Option(names = "--host", paramLabel = "ADDR", defaultValue = "127.0.0.1", description = "Loopback address to check (default: ${DEFAULT-VALUE}).")
    String host;

    @Option(names = "--json", description = "Print JSON: found[] {port, url, kind, api, name, status, version, models, "
            + "served_model}.")
    boolean json;

    @Override
    protected int run(PrintWriter out, PrintWriter err) {
        if (!isLoopback(host)) {
            err.println("--host: " + host + " is not a loopback address; tailwatch checks only this host's engines");
            return TailwatchCommand.EXIT_CONFIG;
        }
        List<Integer> all = new ArrayList<>(only ? List.of() : EngineDiscovery.WELL_KNOWN_PORTS);
        for (int p : ports) {
            if (p < 1 || p > 65535) {
                err.println("--ports: " + p + " is not a TCP port (1..65535)");
                return TailwatchCommand.EXIT_CONFIG;
            }
            all.add(p);
        }
        if (all.isEmpty()) {
            err.println("--only needs --ports");
            return TailwatchCommand.EXIT_CONFIG;
        }
        List<EngineDiscovery.Found> found;
        try {
            found = EngineDiscovery.scan(host, all).stream().map(EngineDiscovery::withMlxVersion).toList();
        } catch (IllegalArgumentException e) {
            err.println("--ports: " + e.getMessage());
            return TailwatchCommand.EXIT_CONFIG;
        }
        List<String> names = EngineDiscovery.names(found);
        List<String> served = found.stream().map(DetectCommand::servedModel).toList();
        boolean any = found.stream().anyMatch(EngineDiscovery.Found::engine);
        if (json) {
            ObjectNode root = Json.MAPPER.createObjectNode();
            ArrayNode arr = root.putArray("found");
            for (int i = 0; i < found.size(); i++) {
                EngineDiscovery.Found f = found.get(i);
                ObjectNode o = arr.addObject();
                o.put("port", f.port());
                o.put("url", f.url().toString());
                o.put("kind", f.kind());
                o.put("api", f.api());
                o.put("name", names.get(i));
                o.put("status", f.status());
                o.put("version", f.version());
                o.put("needs_api_key", f.needsKey());
                ArrayNode m = o.putArray("models");
                f.models().forEach(m::add);
                o.put("served_model", served.get(i));
            }
            root.put("engines_block", EngineDiscovery.configBlock(found));
            out.println(Json.write(root));
            return any ? TailwatchCommand.EXIT_OK : TailwatchCommand.EXIT_FAILURE;
        }
        out.print(table(found, names, served));
        out.println();
        if (any) {
            out.println("# for config/tailwatch.yaml (or keep `engines: auto`, which watches what is found):");
        }
        out.print(EngineDiscovery.configBlock(found));
        return any ? TailwatchCommand.EXIT_OK : TailwatchCommand.EXIT_FAILURE;
    }

    /**
     * The model an mlx_lm server serves, from the {@code --model} of the process listening on its port (its
     * answers do not tell it); null for other engines and where the command line does not tell it.
     */
    static String servedModel(EngineDiscovery.Found f) {
        if (f.flavor() != io.tailwatch.core.probe.EngineFlavor.MLX_LM) {
            return null;
        }
        return CapacitySupport.reportedModel(new EngineTarget(f.url().getHost(), f.api(), f.url(), null, null, false,
                io.tailwatch.core.config.EngineConfig.DEFAULT_CONNECT_TIMEOUT), io.tailwatch.core.probe.EngineClient.UNNAMED_MODEL);
    }

    static String table(List<EngineDiscovery.Found> found, List<String> names) {
        return table(found, names, java.util.Collections.nCopies(found.size(), null));
    }

    static String table(List<EngineDiscovery.Found> found, List<String> names, List<String> served) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"PORT", "ENGINE", "API", "NAME", "MODELS", "FOUND BY"});
        for (int i = 0; i < found.size(); i++) {
            EngineDiscovery.Found f = found.get(i);
            String models = f.models().isEmpty() ? "-"
                    : String.join(", ", f.models().stream().map(io.tailwatch.core.probe.ModelNames::display).toList());
            if (served.get(i) != null) {
                // its command line's --model (its list is its Hugging Face cache, in the JSON)
                models = served.get(i) + " (served)";
            } else if (f.flavor() == io.tailwatch.core.probe.EngineFlavor.MLX_LM && f.models().size() > 1) {
                // mlx_lm lists its Hugging Face cache first and the model it serves last
                models = io.tailwatch.core.probe.ModelNames.display(f.models().get(f.models().size() - 1)) + " (+"
                        + (f.models().size() - 1) + " cached)";
            }
            models = Columns.fit(models, 48, "...");
            rows.add(new String[] {String.valueOf(f.port()), f.engine() ? f.kind() : "-", f.engine() ? f.api() : "-",
                    f.engine() ? names.get(i) : "-", f.engine() ? models : "-",
                    f.status() + (f.version() == null ? "" : ", version " + f.version())});
        }
        int[] w = new int[6];
        for (String[] r : rows) {
            for (int c = 0; c < 5; c++) {
                w[c] = Math.max(w[c], Columns.width(r[c]));
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] r : rows) {
            for (int c = 0; c < 5; c++) {
                sb.append(Columns.padRight(r[c], w[c])).append("  ");
            }
            sb.append(r[5]).append('\n');
        }
        return sb.toString();
    }

    static boolean isLoopback(String host) {
        try {
            return java.net.InetAddress.getByName(host).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }
}
