package io.tailwatch.core.host;

import static io.tailwatch.core.host.Engines.engine;
import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.host.ProcessTable.ProcessInfo;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Ollama's runners found in its process tree, their ports and slots read from their command lines. */
class EngineRunnersTest {
    private static ProcessInfo p(int pid, int ppid, String name, String exe, String... args) {
        return new ProcessInfo(pid, ppid, name, exe, List.of(args));
    }

    /** A process table with fixed processes and listeners; {@code arguments} answers for the ones the budget left out. */
    private record Table(List<ProcessInfo> procs, Map<Integer, Set<Integer>> listeners, Map<Integer, List<String>> late)
            implements ProcessTable {
        @Override
        public List<ProcessInfo> processes() {
            return procs;
        }

        @Override
        public Map<Integer, Set<Integer>> listening(Set<Integer> ports) {
            return listeners;
        }

        @Override
        public ProcessMemory memory(int pid) {
            return null;
        }

        @Override
        public List<String> arguments(int pid) {
            return late.get(pid);
        }
    }

    @Test
    void theChildrenWithAPortAreTheRunnersAndTheServerIsNot() throws Exception {
        Table t = new Table(List.of(
                p(100, 1, "ollama", "/usr/local/bin/ollama", "ollama", "serve", "--port", "11434"),
                // Ollama's llama-server command line (llm/llama_server.go)
                p(200, 100, "llama-server", "/Applications/Ollama.app/Contents/Resources/llama-server",
                        "/Applications/Ollama.app/Contents/Resources/llama-server", "--model", "/Users/me/.ollama/models/blobs/sha256-aa",
                        "--port", "51234", "--host", "127.0.0.1", "--no-webui", "--offline", "-c", "16384", "-np", "4"),
                // the MLX runner on a Mac: no -np
                p(201, 100, "ollama", "/usr/local/bin/ollama", "ollama", "runner", "--mlx-engine", "--model", "qwen3", "--port=51235"),
                // a child without a port (a helper), and a grandchild of a runner with a malformed port
                p(202, 100, "helper", "/usr/bin/helper", "helper"),
                p(203, 200, "x", "/usr/bin/x", "x", "--port", "99999999999"),
                // another user's process with a port, not in the tree
                p(300, 1, "llama-server", "/opt/llama-server", "llama-server", "--port", "8080", "-np", "2"),
                // the budget left this runner's arguments out: they are read alone
                p(204, 100, "llama-server", "/opt/llama-server")),
                Map.of(11434, Set.of(100)), Map.of(204, List.of("/opt/llama-server", "--model", "m", "--port", "51236", "--parallel", "2")));
        List<EngineRunners.Runner> runners = EngineRunners.find(t, ollama(), 999);
        assertThat(runners).containsExactly(new EngineRunners.Runner(200, 51234, 4), new EngineRunners.Runner(201, 51235, null),
                new EngineRunners.Runner(204, 51236, 2));
    }

    @Test
    void noServerProcessOrNoChildMeansNoRunners() throws Exception {
        Table none = new Table(List.of(p(300, 1, "llama-server", "/opt/llama-server", "llama-server", "--port", "8080")),
                Map.of(), Map.of());
        assertThat(EngineRunners.find(none, ollama(), 999)).isEmpty();
        Table idle = new Table(List.of(p(100, 1, "ollama", "/usr/local/bin/ollama", "ollama", "serve")),
                Map.of(11434, Set.of(100)), Map.of());
        assertThat(EngineRunners.find(idle, ollama(), 999)).isEmpty();
    }

    @Test
    void theAgentItselfAndItsChildrenAreNeverRunners() throws Exception {
        // The agent runs the engine as its child (a test harness): its own process is skipped with its children.
        Table t = new Table(List.of(
                p(100, 1, "ollama", "/usr/local/bin/ollama", "ollama", "serve"),
                p(500, 100, "java", "/usr/bin/java", "java", "-jar", "tailwatch.jar", "--port", "9464"),
                p(501, 500, "child", "/usr/bin/child", "child", "--port", "9465")),
                Map.of(11434, Set.of(100)), Map.of());
        assertThat(EngineRunners.find(t, ollama(), 500)).isEmpty();
    }

    @Test
    void flagsAreReadOnlyAsWholeNumbers() {
        assertThat(EngineRunners.flag(List.of("x", "--port", "80"), "--port")).isEqualTo(80);
        assertThat(EngineRunners.flag(List.of("x", "--port=81"), "--port")).isEqualTo(81);
        assertThat(EngineRunners.flag(List.of("x", "--port", "eighty"), "--port")).isNull();
        assertThat(EngineRunners.flag(List.of("x", "--port"), "--port")).isNull();
        assertThat(EngineRunners.flag(List.of("x", "--portal", "80"), "--port")).isNull();
        assertThat(EngineRunners.flag(List.of("x", "--port", "-1"), "--port")).isNull();
    }

    private static io.tailwatch.core.config.EngineConfig ollama() {
        return engine("ollama", "http://127.0.0.1:11434", "ollama");
    }
}
