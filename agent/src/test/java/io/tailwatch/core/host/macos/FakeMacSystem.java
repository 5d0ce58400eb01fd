package io.tailwatch.core.host.macos;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/** A MacSystem that answers from fixture values; a name without a value fails like a refused sysctl. */
final class FakeMacSystem implements MacSystem {
    final Map<String, Long> longs = new HashMap<>();
    final Map<String, String> strings = new HashMap<>();
    final Map<String, byte[]> structs = new HashMap<>();
    byte[] vm = XnuStructs.vmStatisticsOfCapture();
    long pageSize = 16384;
    /** Successive host_processor_info answers; the last one repeats. */
    final java.util.ArrayDeque<byte[]> cpuLoad = new java.util.ArrayDeque<>();

    static FakeMacSystem m1Pro() {
        FakeMacSystem s = new FakeMacSystem();
        s.longs.put("hw.memsize", 17_179_869_184L);
        s.longs.put("kern.memorystatus_vm_pressure_level", 1L);
        s.longs.put("kern.memorystatus_level", 37L);
        s.structs.put("vm.swapusage", XnuStructs.xswUsage(4096L << 20, 1352L << 20, 2744L << 20, 16384, true));
        s.strings.put("machdep.cpu.brand_string", "Apple M1 Pro");
        s.strings.put("hw.model", "MacBookPro18,3");
        s.strings.put("kern.osproductversion", "14.6.1");
        return s;
    }

    @Override
    public long sysctlLong(String name) throws IOException {
        Long v = longs.get(name);
        if (v == null) {
            throw new IOException("sysctl " + name + " failed (errno 2)");
        }
        return v;
    }

    @Override
    public String sysctlString(String name) throws IOException {
        String v = strings.get(name);
        if (v == null) {
            throw new IOException("sysctl " + name + " failed (errno 2)");
        }
        return v;
    }

    @Override
    public byte[] sysctlStruct(String name, int size) throws IOException {
        byte[] v = structs.get(name);
        if (v == null) {
            throw new IOException("sysctl " + name + " failed (errno 2)");
        }
        return v;
    }

    @Override
    public byte[] vmStatistics64() {
        return vm;
    }

    @Override
    public long pageSize() {
        return pageSize;
    }

    @Override
    public byte[] processorCpuLoadInfo() throws IOException {
        if (cpuLoad.isEmpty()) {
            throw new IOException("host_processor_info(PROCESSOR_CPU_LOAD_INFO) failed (kern_return 5)");
        }
        return cpuLoad.size() > 1 ? cpuLoad.poll() : cpuLoad.peek();
    }
}
