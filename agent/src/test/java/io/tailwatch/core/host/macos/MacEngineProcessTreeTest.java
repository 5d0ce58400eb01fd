package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.tailwatch.core.config.EngineConfig;
import io.tailwatch.core.host.EngineProcessSampler;
import io.tailwatch.core.host.Engines;
import io.tailwatch.core.host.Lazy;
import io.tailwatch.core.host.ProcessTable;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricDef;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Ollama on a Mac as it runs today: {@code ollama serve} (pid 501, listening on 11434) with a llama-server runner
 * (pid 1733) and an MLX runner (pid 1800), beside a standalone llama-server (pid 4242 on 8080). The engine's
 * processes are found once, from the process table (the server by its port, the runners as its children), and the
 * three Mac figures are summed over that same tree, each decoded from bytes laid out as Apple's headers lay them out:
 * the physical footprint from {@code rusage_info_v2} (sys/resource.h), the GPU time from the AGX user clients'
 * {@code AppUsage} (fixtures/macos-ioaccelerator, worked out in its README), the graphics memory from
 * {@code task_vm_info} rev3 (mach/task_info.h).
 */
class MacEngineProcessTreeTest {
    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;

    /** libproc as the samplers see it: the process list, the listeners, and proc_pid_rusage bytes per pid. */
    private record Libproc(List<ProcessTable.ProcessInfo> procs, Map<Integer, Set<Integer>> listeners,
                           Map<Integer, byte[]> rusage) implements ProcessTable {
        @Override
        public List<ProcessInfo> processes() {
            return procs;
        }

        @Override
        public Map<Integer, Set<Integer>> listening(Set<Integer> ports) {
            Map<Integer, Set<Integer>> out = new HashMap<>(listeners);
            out.keySet().retainAll(ports);
            return out;
        }

        @Override
        public ProcessMemory memory(int pid) throws IOException {
            byte[] b = rusage.get(pid);
            if (b == null) {
                return null;
            }
            RusageInfoV2 r = RusageInfoV2.decode(b);
            return new ProcessMemory(r.residentSize(), r.physFootprint());
        }
    }

    private static ProcessTable.ProcessInfo p(int pid, int ppid, String name, String... args) {
        return new ProcessTable.ProcessInfo(pid, ppid, name, args.length == 0 ? "" : args[0], List.of(args));
    }

    @Test
    void footprintGpuTimeAndGraphicsMemoryAreSummedOverTheServerAndItsRunners() throws Exception {
        Libproc libproc = new Libproc(List.of(
                p(1, 0, "launchd", "/sbin/launchd"),
                p(412, 1, "WindowServer", "/System/Library/PrivateFrameworks/SkyLight.framework/Resources/WindowServer"),
                p(501, 1, "ollama", "/Applications/Ollama.app/Contents/Resources/ollama", "serve"),
                p(1733, 501, "llama-server", "/Applications/Ollama.app/Contents/Resources/llama-server", "--model",
                        "/Users/me/.ollama/models/blobs/sha256-6a0746a1ec1a", "--port", "51234", "--host", "127.0.0.1", "-np", "2"),
                p(1800, 501, "ollama", "/Applications/Ollama.app/Contents/Resources/ollama", "runner", "--mlx-engine",
                        "--model", "qwen3:8b-mlx", "--port", "51300"),
                p(4242, 1, "llama-server", "/opt/homebrew/bin/llama-server", "-m", "/models/q.gguf", "--port", "8080")),
                Map.of(11434, Set.of(501), 8080, Set.of(4242)),
                Map.of(501, XnuStructs.rusageInfoV2(310 * MIB, 300 * MIB),
                        1733, XnuStructs.rusageInfoV2(44 * GIB, 42 * GIB),
                        1800, XnuStructs.rusageInfoV2(22 * GIB, 21 * GIB),
                        4242, XnuStructs.rusageInfoV2(11 * GIB, 10 * GIB),
                        412, XnuStructs.rusageInfoV2(GIB, GIB)));
        EngineConfig ollama = Engines.engine("ollama", "http://127.0.0.1:11434", "ollama");
        EngineConfig llama = Engines.engine("llama", "http://127.0.0.1:8080", "llama-server");
        EngineProcessSampler processes = new EngineProcessSampler(List.of(ollama, llama), Lazy.of("libproc", () -> libproc), 12);

        List<Point> memory = processes.sample();
        assertThat(processes.pids()).containsEntry("ollama", Set.of(501, 1733, 1800)).containsEntry("llama", Set.of(4242));
        // 300 MiB + 42 GiB + 21 GiB; the standalone server's 10 GiB is its own
        assertThat(value(memory, HostMetrics.PROCESS_FOOTPRINT, "ollama")).isEqualTo((double) (300 * MIB + 63 * GIB));
        assertThat(value(memory, HostMetrics.PROCESS_RSS, "ollama")).isEqualTo((double) (310 * MIB + 66 * GIB));
        assertThat(value(memory, HostMetrics.PROCESS_FOOTPRINT, "llama")).isEqualTo((double) (10 * GIB));

        // GPU time between two AGX readings 2 s apart: the llama-server runner's queue went from 40.0 s to 41.1 s and
        // its second queue (1.0 s) went away; the server and the MLX runner hold no client: 1.1 s in 2 s.
        AtomicLong clock = new AtomicLong(5_000_000_000L);
        MacGpuTimeSampler gpu = new MacGpuTimeSampler(MacGpuTimeSamplerTest.source(MacGpuTimeSamplerTest.reading(1),
                MacGpuTimeSamplerTest.reading(2)), processes::pids, clock::get);
        assertThat(gpu.sample()).isEmpty();
        clock.addAndGet(2_000_000_000L);
        List<Point> share = gpu.sample();
        assertThat(value(share, HostMetrics.PROCESS_GPU_UTILIZATION, "ollama")).isCloseTo(0.55, within(1e-12));
        // (16.0 -> 17.0) + (2.5 -> 2.8) + a new 0.2 s queue: 1.5 s in 2 s
        assertThat(value(share, HostMetrics.PROCESS_GPU_UTILIZATION, "llama")).isCloseTo(0.75, within(1e-12));

        // Graphics memory (IOKit + IOSurface ledgers, compressed included): 0.25 GiB + (40 + 1) GiB + 20 GiB.
        Map<Integer, byte[]> tasks = Map.of(501, TaskVmInfoTest.rev3(GIB, GIB / 4, 0, 16384),
                1733, TaskVmInfoTest.rev3(42 * GIB, 40 * GIB, GIB, 16384),
                1800, TaskVmInfoTest.rev3(21 * GIB, 20 * GIB, 0, 16384),
                4242, TaskVmInfoTest.rev3(10 * GIB, 9 * GIB, 0, 16384));
        TaskVmSource task = pid -> tasks.containsKey(pid) ? new TaskVmSource.Raw(tasks.get(pid), TaskVmInfo.COUNT) : null;
        List<Point> graphics = new MacEngineGpuMemorySampler(Lazy.of("task_info", () -> task), processes::pids).sample();
        assertThat(value(graphics, HostMetrics.PROCESS_GPU_MEMORY, "ollama")).isEqualTo((double) (GIB / 4 + 61 * GIB));
        assertThat(value(graphics, HostMetrics.PROCESS_GPU_MEMORY, "llama")).isEqualTo((double) (9 * GIB));
    }

    private static Double value(List<Point> points, MetricDef metric, String engine) {
        return points.stream().filter(p -> p.metric() == metric && engine.equals(p.attributes().get(AttrKeys.ENGINE)))
                .map(Point::value).findFirst().orElse(null);
    }
}
