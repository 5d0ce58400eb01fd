package io.tailwatch.host.macos;

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

    static String clip(String s) {
        String t = s.strip();
        return t.length() > 80 ? t.substring(0, 80) + "..." : t;
    }
}
