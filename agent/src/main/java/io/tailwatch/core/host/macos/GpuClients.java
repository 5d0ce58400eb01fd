package io.tailwatch.core.host.macos;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The GPU's user clients, as the IORegistry holds them: every Metal device a process opens is a child of
 * the accelerator in the service plane ({@code AGXDeviceUserClient} on Apple silicon) whose
 * {@code IOUserClientCreator} names the process ({@code "pid 4242, llama-server"}) and whose
 * {@code AppUsage} array has one dictionary per API with {@code accumulatedGPUTime}, the GPU time of the
 * client's work since it was created, in nanoseconds. Intel drivers put {@code accumulatedGPUTime} on the
 * client itself. A child without either (a shared-memory or command-queue client) is not a GPU-time client.
 * The user clients are not registered services, so they are found as the accelerator's children, not by
 * matching their class.
 *
 * @param gpus    how many accelerators were read (the GPUs the clients' {@code gpu} index counts)
 * @param clients the GPU-time clients, at most {@link #MAX_CLIENTS}
 */
public record GpuClients(int gpus, List<Client> clients) {
    public static final String CREATOR = "IOUserClientCreator";
    public static final String APP_USAGE = "AppUsage";
    public static final String GPU_TIME = "accumulatedGPUTime";
    /** At most this many clients are read in one reading (a busy desktop has about 150). */
    public static final int MAX_CLIENTS = 4096;
    /** At most this many AppUsage entries per client (one per API in practice). */
    static final int MAX_USAGES = 64;
    /** A process name in IOUserClientCreator is the kernel's p_comm (at most 16 bytes in practice). */
    static final int MAX_NAME = 64;
    private static final Pattern CREATOR_TEXT = Pattern.compile("pid (\\d{1,10}), ?(.*)", Pattern.DOTALL);

    public GpuClients {
        clients = List.copyOf(clients);
    }

    /**
     * One client's GPU time.
     *
     * @param gpu       index of the accelerator it is a child of (0 on Apple silicon)
     * @param entryId   its IORegistry entry id: ids are handed out in increasing order and never reused,
     *                  so an id above every id of an earlier reading is a client created since
     * @param pid       the creating process
     * @param process   the process name as the creator string gives it
     * @param gpuTimeNs accumulated GPU time over its AppUsage entries, in nanoseconds
     */
    public record Client(int gpu, long entryId, int pid, String process, long gpuTimeNs) {
    }

    /**
     * Decodes one child's properties ({@code IOUserClientCreator} a String; {@code AppUsage} a List of Maps
     * whose {@code accumulatedGPUTime} is a Number; or {@code accumulatedGPUTime} a Number on the client).
     * Null when it is not a GPU-time client or its creator is not {@code "pid N, name"}; a negative time is
     * not a reading either.
     */
    public static Client decode(int gpu, long entryId, Map<String, ?> properties) {
        Object creator = properties.get(CREATOR);
        if (!(creator instanceof String s)) {
            return null;
        }
        Matcher m = CREATOR_TEXT.matcher(s.strip());
        if (!m.matches()) {
            return null;
        }
        int pid;
        try {
            pid = Integer.parseInt(m.group(1));
        } catch (NumberFormatException e) {
            return null;
        }
        String name = m.group(2).strip();
        if (name.length() > MAX_NAME) {
            name = name.substring(0, MAX_NAME);
        }
        Long time = gpuTime(properties);
        return time == null ? null : new Client(gpu, entryId, pid, name, time);
    }

    private static Long gpuTime(Map<String, ?> properties) {
        Object direct = properties.get(GPU_TIME);
        if (direct instanceof Number n) {
            return n.longValue() < 0 ? null : n.longValue();
        }
        if (!(properties.get(APP_USAGE) instanceof List<?> usages)) {
            return null;
        }
        long sum = 0;
        int seen = 0;
        for (Object u : usages) {
            if (seen++ >= MAX_USAGES) {
                break;
            }
            if (u instanceof Map<?, ?> d && d.get(GPU_TIME) instanceof Number n) {
                if (n.longValue() < 0) {
                    return null;
                }
                if (sum > Long.MAX_VALUE - n.longValue()) {
                    return null; // a sum past 2^63 ns is a decoding error, not a reading: this client is left out
                }
                sum += n.longValue();
            }
        }
        return sum;
    }

    /** The largest entry id, or -1 without clients. */
    public long maxEntryId() {
        long max = -1;
        for (Client c : clients) {
            max = Math.max(max, c.entryId());
        }
        return max;
    }

    private static final Pattern OBJECT = Pattern.compile("\\+-o (\\S+)\\s+<class [^,>]+, id 0x([0-9a-fA-F]{1,16})");
    private static final Pattern PROPERTY = Pattern.compile("\"([^\"]{1,100})\" = (.*)");
    private static final Pattern USAGE = Pattern.compile("\\{([^{}]*)}");
    private static final Pattern ENTRY = Pattern.compile("\"([^\"]{1,100})\"=(-?\\d{1,20})");

    /**
     * The GPU-time clients in {@code ioreg -r -c AGXDeviceUserClient} text (one {@code +-o} object line with
     * its {@code id 0x...}, then its properties one per line: {@code "AppUsage" = ({"API"="Metal",
     * "accumulatedGPUTime"=N,...},...)} and {@code "IOUserClientCreator" = "pid N, name"}), all on GPU 0. The
     * same decoding as the native reading, so the doctor and the tests read what the sampler reads.
     */
    public static GpuClients parseIoreg(String text) {
        List<Client> out = new ArrayList<>();
        long id = -1;
        Map<String, Object> props = null;
        for (String line : text.split("\n", -1)) {
            Matcher o = OBJECT.matcher(line);
            if (o.find()) {
                add(out, id, props);
                id = Long.parseUnsignedLong(o.group(2), 16);
                props = new LinkedHashMap<>();
                continue;
            }
            if (props == null) {
                continue;
            }
            String body = line.replaceFirst("^[\\s|]*", "");
            Matcher p = PROPERTY.matcher(body);
            if (!p.matches()) {
                continue;
            }
            String value = p.group(2).strip();
            if (p.group(1).equals(CREATOR) && value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                props.put(CREATOR, value.substring(1, value.length() - 1));
            } else if (p.group(1).equals(APP_USAGE) && value.startsWith("(")) {
                List<Map<String, Object>> usages = new ArrayList<>();
                Matcher u = USAGE.matcher(value);
                while (u.find() && usages.size() < MAX_USAGES) {
                    Map<String, Object> d = new LinkedHashMap<>();
                    Matcher e = ENTRY.matcher(u.group(1));
                    while (e.find()) {
                        try {
                            d.put(e.group(1), Long.parseLong(e.group(2)));
                        } catch (NumberFormatException tooLarge) {
                            // above 2^63: not a time in nanoseconds; left out
                        }
                    }
                    usages.add(d);
                }
                props.put(APP_USAGE, usages);
            } else if (p.group(1).equals(GPU_TIME) && value.matches("\\d{1,18}")) {
                props.put(GPU_TIME, Long.parseLong(value));
            }
        }
        add(out, id, props);
        return new GpuClients(1, out);
    }

    private static void add(List<Client> out, long id, Map<String, Object> props) {
        if (props != null && out.size() < MAX_CLIENTS) {
            Client c = decode(0, id, props);
            if (c != null) {
                out.add(c);
            }
        }
    }

    /** GPU time per process id over the clients (a process with several command queues has several). */
    public Map<Integer, Long> byPid() {
        Map<Integer, Long> m = new LinkedHashMap<>();
        for (Client c : clients) {
            m.merge(c.pid(), c.gpuTimeNs(), Long::sum);
        }
        return m;
    }
}
