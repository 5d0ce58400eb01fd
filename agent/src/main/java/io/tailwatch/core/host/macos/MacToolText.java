package io.tailwatch.core.host.macos;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parsers for the text of macOS's own tools ({@code sysctl vm.swapusage}, {@code vm_stat},
 * {@code pmset -g therm}, {@code memory_pressure}). Only {@code tailwatch doctor} and the live
 * tests use them, to cross-check the native readings; samplers never run these tools.
 */
public final class MacToolText {
    private MacToolText() {
    }

    /** {@code sysctl vm.swapusage}, in bytes. */
    public record SwapUsage(long total, long used, long free, boolean encrypted) {
    }

    /** {@code vm_stat}: the page size and every "Name: count." line by name (quotes removed). */
    public record VmStat(long pageSize, Map<String, Long> pages) {
        public Long bytes(String name) {
            Long p = pages.get(name);
            return p == null ? null : p * pageSize;
        }
    }

    /** {@code pmset -g therm}: the CPU power values (empty when none has been recorded). */
    public record Therm(Map<String, Long> cpuPowerStatus) {
    }

    private static final Pattern SWAP_FIELD = Pattern.compile("(total|used|free)\\s*=\\s*([0-9]+(?:[.,][0-9]+)?)([KMGTP]?)");
    private static final Pattern VM_STAT_HEADER = Pattern.compile("page size of (\\d+) bytes");
    private static final Pattern VM_STAT_LINE = Pattern.compile("^\"?([^\":]+?)\"?:\\s+(\\d+)\\.?\\s*$");
    private static final Pattern THERM_LINE = Pattern.compile("^\\s*(CPU_[A-Za-z_]+)\\s*=\\s*(\\d+)\\s*$");
    private static final Pattern FREE_PERCENT = Pattern.compile("System-wide memory free percentage:\\s*(\\d+)%");

    /** Both decimal separators: "4096.00M" and, in a decimal-comma locale, "1024,00M". */
    public static SwapUsage swapUsage(String text) throws IOException {
        Map<String, Long> v = new LinkedHashMap<>();
        Matcher m = SWAP_FIELD.matcher(text);
        while (m.find()) {
            double number = Double.parseDouble(m.group(2).replace(',', '.'));
            v.put(m.group(1), Math.round(number * multiplier(m.group(3))));
        }
        for (String k : new String[] {"total", "used", "free"}) {
            if (!v.containsKey(k)) {
                throw new IOException("sysctl vm.swapusage: no '" + k + " =' field in '" + clip(text) + "'");
            }
        }
        return new SwapUsage(v.get("total"), v.get("used"), v.get("free"), text.contains("(encrypted)"));
    }

    private static long multiplier(String suffix) {
        return switch (suffix) {
            case "K" -> 1L << 10;
            case "M" -> 1L << 20;
            case "G" -> 1L << 30;
            case "T" -> 1L << 40;
            case "P" -> 1L << 50;
            default -> 1L;
        };
    }

    public static VmStat vmStat(String text) throws IOException {
        String[] lines = text.split("\\R");
        Long pageSize = null;
        Map<String, Long> pages = new LinkedHashMap<>();
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.isBlank()) {
                continue;
            }
            Matcher h = VM_STAT_HEADER.matcher(line);
            if (h.find()) {
                pageSize = Long.parseLong(h.group(1));
                continue;
            }
            Matcher m = VM_STAT_LINE.matcher(line.strip());
            if (!m.matches()) {
                throw new IOException("vm_stat line " + (i + 1) + ": expected 'Name: count.', got '" + clip(line) + "'");
            }
            pages.put(m.group(1).strip(), Long.parseLong(m.group(2)));
        }
        if (pageSize == null) {
            throw new IOException("vm_stat: no '(page size of N bytes)' header");
        }
        return new VmStat(pageSize, pages);
    }

    /** Both forms: Apple Silicon prints only "No CPU power status has been recorded" notes. */
    public static Therm pmsetTherm(String text) {
        Map<String, Long> values = new LinkedHashMap<>();
        for (String line : text.split("\\R")) {
            Matcher m = THERM_LINE.matcher(line);
            if (m.matches()) {
                values.put(m.group(1), Long.parseLong(m.group(2)));
            }
        }
        return new Therm(values);
    }

    /** The percentage of the "System-wide memory free percentage: NN%" line. */
    public static int memoryPressureFreePercent(String text) throws IOException {
        Matcher m = FREE_PERCENT.matcher(text);
        if (!m.find()) {
            throw new IOException("memory_pressure: no 'System-wide memory free percentage: NN%' line");
        }
        return Integer.parseInt(m.group(1));
    }

    private static final Pattern NOTIFY_STATE = Pattern.compile("^\\s*(\\S+)\\s+(\\d+)\\s*$");

    /**
     * {@code notifyutil -g NAME} prints one line, the name and its state: for example
     * {@code com.apple.system.thermalpressurelevel 0}.
     */
    public static long notifyState(String text, String name) throws IOException {
        for (String line : text.split("\\R")) {
            Matcher m = NOTIFY_STATE.matcher(line);
            if (m.matches() && m.group(1).equals(name)) {
                return Long.parseLong(m.group(2));
            }
        }
        throw new IOException("notifyutil -g " + name + ": no '" + name + " N' line in '" + clip(text) + "'");
    }

    private static final Pattern FOOTPRINT_LINE = Pattern.compile(
            "\\[(\\d+)\\]:\\s+\\S+\\s+Footprint:\\s+([0-9]+(?:\\.[0-9]+)?)\\s*(B|bytes|KB|MB|GB)\\b");

    /**
     * The process header line of {@code footprint -f bytes PID}:
     * {@code ollama [4242]: 64-bit    Footprint: 1512243200 B (16384 bytes per page)}. The
     * formatted units (KB, MB, GB; binary multiples) are accepted too.
     */
    public static long footprintBytes(String text, int pid) throws IOException {
        Matcher m = FOOTPRINT_LINE.matcher(text);
        while (m.find()) {
            if (Integer.parseInt(m.group(1)) != pid) {
                continue;
            }
            double v = Double.parseDouble(m.group(2));
            long unit = switch (m.group(3)) {
                case "KB" -> 1L << 10;
                case "MB" -> 1L << 20;
                case "GB" -> 1L << 30;
                default -> 1L;
            };
            return Math.round(v * unit);
        }
        throw new IOException("footprint: no '[" + pid + "]: ... Footprint: N B' line");
    }

    private static final Pattern FOOTPRINT_GRAPHICS_ROW = Pattern.compile(
            "^\\s*([0-9]+(?:\\.[0-9]+)?)\\s*(B|bytes|KB|MB|GB)\\s+.*\\(graphics\\)\\s*$");

    /**
     * The graphics memory in {@code footprint -f bytes PID}: the Dirty column (the first; what the footprint
     * charges) of every category row ending in {@code (graphics)}, e.g.
     * {@code   1610612736 B   0 B   0 B   45   IOAccelerator (graphics)}, summed; 0 when the process has none.
     */
    public static long footprintGraphicsBytes(String text) {
        long sum = 0;
        for (String line : text.split("\\R")) {
            Matcher m = FOOTPRINT_GRAPHICS_ROW.matcher(line);
            if (m.matches()) {
                long unit = switch (m.group(2)) {
                    case "KB" -> 1L << 10;
                    case "MB" -> 1L << 20;
                    case "GB" -> 1L << 30;
                    default -> 1L;
                };
                sum += Math.round(Double.parseDouble(m.group(1)) * unit);
            }
        }
        return sum;
    }

    /** One {@code powermetrics --samplers cpu_power,gpu_power -n 1} sample. */
    public record PowerMetrics(Map<String, Double> wattsByRail, Double gpuHz) {
    }

    private static final Pattern PM_POWER = Pattern.compile("^(CPU|GPU|ANE|DRAM) Power:\\s+([0-9]+(?:\\.[0-9]+)?)\\s*mW\\s*$");
    private static final Pattern PM_GPU_FREQ = Pattern.compile(
            "^GPU (?:HW )?active frequency:\\s+([0-9]+(?:\\.[0-9]+)?)\\s*MHz\\s*$");

    /**
     * The lines {@code CPU Power: 1234 mW}, {@code GPU Power: 56 mW}, {@code ANE Power: 0 mW} and
     * {@code GPU HW active frequency: 389 MHz} ("GPU active frequency" before macOS 13). Rails by
     * tailwatch's names (cpu, gpu, ane) in watts; a GPU frequency of 0 MHz (never active) is absent.
     */
    public static PowerMetrics powermetrics(String text) throws IOException {
        Map<String, Double> watts = new LinkedHashMap<>();
        Double gpuHz = null;
        for (String line : text.split("\\R")) {
            String t = line.strip();
            Matcher p = PM_POWER.matcher(t);
            if (p.matches()) {
                watts.put(p.group(1).toLowerCase(java.util.Locale.ROOT), Double.parseDouble(p.group(2)) / 1000);
                continue;
            }
            Matcher f = PM_GPU_FREQ.matcher(t);
            if (f.matches()) {
                double mhz = Double.parseDouble(f.group(1));
                gpuHz = mhz > 0 ? mhz * 1e6 : null;
            }
        }
        if (watts.isEmpty()) {
            throw new IOException("powermetrics: no 'CPU Power: N mW' line");
        }
        return new PowerMetrics(watts, gpuHz);
    }

    static String clip(String s) {
        String t = s.strip();
        return t.length() > 80 ? t.substring(0, 80) + "..." : t;
    }

    private static final Pattern IOREG_PROPERTY = Pattern.compile("^[\\s|]*\"([A-Za-z]+)\"\\s*=\\s*(\\d+|Yes|No)\\s*$");
    private static final Pattern IOREG_ADAPTER_WATTS = Pattern.compile("^[\\s|]*\"AdapterDetails\"\\s*=\\s*\\{.*\"Watts\"=(\\d+)");

    /**
     * The top-level number and Yes/No properties of {@code ioreg -rn AppleSmartBattery}, by name (Yes 1,
     * No 0), plus AdapterDetails' Watts as "AdapterWatts". ioreg prints a negative number (Amperage while
     * discharging) as its unsigned 64-bit two's complement, turned back into the signed value here. Empty
     * when ioreg printed no such entry (a Mac without a battery).
     */
    public static java.util.Map<String, Long> ioregBattery(String text) {
        java.util.Map<String, Long> out = new java.util.LinkedHashMap<>();
        for (String line : text.split("\\R")) {
            Matcher a = IOREG_ADAPTER_WATTS.matcher(line);
            if (a.find()) {
                out.putIfAbsent("AdapterWatts", Long.parseLong(a.group(1)));
                continue;
            }
            Matcher m = IOREG_PROPERTY.matcher(line);
            if (m.matches()) {
                String v = m.group(2);
                long n = v.equals("Yes") ? 1 : v.equals("No") ? 0 : new java.math.BigInteger(v).longValue();
                out.putIfAbsent(m.group(1), n);
            }
        }
        return out;
    }
}
