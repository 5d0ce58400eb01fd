package io.tailwatch.core.host;

import static io.tailwatch.core.host.Engines.engine;
import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.host.ProcessTable.ProcessInfo;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EngineProcessesTest {
    private static ProcessInfo p(int pid, int ppid, String name, String exe, String... args) {
        return new ProcessInfo(pid, ppid, name, exe, List.of(args));
    }

    @Test
    void executablesAndPythonModulesMatchByName() {
        assertThat(EngineProcesses.matches(p(1, 0, "ollama", "/usr/local/bin/ollama", "ollama", "serve"), List.of("ollama"))).isTrue();
        assertThat(EngineProcesses.matches(p(1, 0, "Python", "/opt/homebrew/Cellar/python@3.12/bin/python3.12",
                "python3", "-m", "mlx_lm.server", "--model", "x"), List.of("mlx_lm"))).isTrue();
        assertThat(EngineProcesses.matches(p(1, 0, "Python", "/usr/bin/python3",
                "python3", "-m", "mlx_vlm.server"), List.of("mlx_lm"))).isFalse();
        assertThat(EngineProcesses.matches(p(1, 0, "python3", "/usr/bin/python3.11",
                "/usr/bin/python3", "/Users/me/.venv/bin/mlx_lm.server", "--port", "8080"), List.of("mlx_lm.server"))).isTrue();
        assertThat(EngineProcesses.matches(p(1, 0, "LM Studio", "/Applications/LM Studio.app/Contents/MacOS/LM Studio"),
                List.of("LM Studio"))).isTrue();
        assertThat(EngineProcesses.matches(p(1, 0, "llama-server", "/opt/llama.cpp/build/bin/llama-server", "llama-server", "-m",
                "/models/qwen.gguf"), List.of("llama-server"))).isTrue();
        assertThat(EngineProcesses.matches(p(1, 0, "vllm", "/usr/bin/python3", "/home/u/.venv/bin/python", "/home/u/.venv/bin/vllm",
                "serve"), List.of("vllm"))).isTrue();
    }

    @Test
    void mentioningAnEngineInAnArgumentIsNotBeingIt() {
        assertThat(EngineProcesses.matches(p(1, 0, "tail", "/usr/bin/tail", "tail", "-f", "/var/log/ollama.log"),
                List.of("ollama"))).isFalse();
        assertThat(EngineProcesses.matches(p(1, 0, "grep", "/usr/bin/grep", "grep", "mlx_lm"), List.of("mlx_lm"))).isFalse();
        assertThat(EngineProcesses.matches(p(1, 0, "ollama", "/usr/local/bin/ollama"), List.of())).isFalse();
    }

    @Test
    void listeningPortWinsOverNamesAndChildrenAreIncluded() {
        List<ProcessInfo> procs = List.of(
                p(100, 1, "ollama", "/usr/local/bin/ollama", "ollama", "serve"),
                p(101, 100, "ollama", "/usr/local/bin/ollama", "ollama", "runner", "--port", "50123"),
                p(102, 101, "helper", "/usr/local/bin/helper"),
                p(200, 1, "ollama", "/Users/other/ollama", "ollama", "serve"),
                p(300, 1, "java", "/usr/bin/java", "java", "-jar", "tailwatch.jar"));
        Map<String, Set<Integer>> found = EngineProcesses.find(
                List.of(engine("ollama", "http://127.0.0.1:11434", "ollama")), procs, Map.of(11434, Set.of(100)), 300);
        assertThat(found.get("ollama")).containsExactlyInAnyOrder(100, 101, 102);
    }

    @Test
    void namesAreTheFallbackWhenNothingListensAndRemoteEnginesUseNamesOnly() {
        List<ProcessInfo> procs = List.of(
                p(10, 1, "Python", "/usr/bin/python3", "python3", "-m", "mlx_lm.server"),
                p(20, 1, "ollama", "/usr/local/bin/ollama", "ollama", "serve"));
        Map<String, Set<Integer>> found = EngineProcesses.find(List.of(
                engine("mlx", "http://127.0.0.1:8080", "mlx_lm"),
                engine("remote", "http://gpu-box.example:11434", "ollama"),
                engine("gone", "http://localhost:9999", "llama-server")), procs, Map.of(11434, Set.of(99)), 1);
        assertThat(found.get("mlx")).containsExactly(10);
        assertThat(found.get("remote")).containsExactly(20);
        assertThat(found).doesNotContainKey("gone");
    }

    @Test
    void theAgentItselfIsNeverCounted() {
        List<ProcessInfo> procs = List.of(p(42, 1, "java", "/usr/bin/java", "java", "-m", "mlx_lm.fake"));
        assertThat(EngineProcesses.find(List.of(engine("mlx", "http://127.0.0.1:8080", "mlx_lm")), procs,
                Map.of(8080, Set.of(42)), 42)).isEmpty();
    }

    @Test
    void whichUrlsAreLocal() {
        assertThat(EngineProcesses.local(engine("a", "http://127.0.0.1:1"))).isTrue();
        assertThat(EngineProcesses.local(engine("a", "http://localhost:1"))).isTrue();
        assertThat(EngineProcesses.local(engine("a", "http://[::1]:1"))).isTrue();
        assertThat(EngineProcesses.local(engine("a", "http://10.0.0.5:1"))).isFalse();
        assertThat(EngineProcesses.local(engine("a", "http://models.example:1"))).isFalse();
    }
}
