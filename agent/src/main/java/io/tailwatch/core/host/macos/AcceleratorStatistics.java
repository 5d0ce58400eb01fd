package io.tailwatch.core.host.macos;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * GPU memory from an IOAccelerator's {@code PerformanceStatistics} dictionary: {@code "In use system
 * memory"} (what GPU work holds now) and {@code "Alloc system memory"} (what the driver has allocated).
 * Apple silicon has one accelerator; with more (an Intel Mac with two GPUs) the figures are summed over
 * those that report them. A key no accelerator reports is null: absent, not zero.
 *
 * @param inUseBytes     "In use system memory", null when absent
 * @param allocatedBytes "Alloc system memory", null when absent
 */
public record AcceleratorStatistics(Long inUseBytes, Long allocatedBytes) {
    public static final String IN_USE = "In use system memory";
    public static final String ALLOCATED = "Alloc system memory";
    /** A PerformanceStatistics dictionary longer than this is not one (a real one is about 400 characters). */
    static final int MAX_DICTIONARY_CHARS = 64 * 1024;
    /** At most this many accelerators are read (Apple silicon has one, a dual-GPU Mac two). */
    static final int MAX_ACCELERATORS = 8;
    private static final Pattern LINE = Pattern.compile("\"PerformanceStatistics\"\\s*=\\s*\\{([^}\\n]*)}");
    private static final Pattern ENTRY = Pattern.compile("\"([^\"]{1,100})\"\\s*=\\s*(-?\\d{1,20})");

    /** The sums over the dictionaries; throws when a figure is negative or the sum overflows (a decoding error, not a reading). */
    public static AcceleratorStatistics of(List<Map<String, Long>> dictionaries) throws IOException {
        Long inUse = null;
        Long alloc = null;
        for (Map<String, Long> d : dictionaries) {
            inUse = add(inUse, d.get(IN_USE), IN_USE);
            alloc = add(alloc, d.get(ALLOCATED), ALLOCATED);
        }
        return new AcceleratorStatistics(inUse, alloc);
    }

    private static Long add(Long sum, Long v, String key) throws IOException {
        if (v == null) {
            return sum;
        }
        if (v < 0) {
            throw new IOException("PerformanceStatistics \"" + key + "\" is negative: " + v);
        }
        if (sum != null && sum > Long.MAX_VALUE - v) {
            throw new IOException("PerformanceStatistics \"" + key + "\" sums past 2^63 over the accelerators");
        }
        return sum == null ? v : sum + v;
    }

    /**
     * The integer entries of every {@code "PerformanceStatistics" = {...}} line of {@code ioreg -r -c
     * IOAccelerator} text (the form {@code ioreg} prints a dictionary in: {@code "key"=value,...} on one
     * line). Entries that are not integers (nested dictionaries, strings) are skipped.
     */
    public static List<Map<String, Long>> parseIoreg(String text) {
        List<Map<String, Long>> out = new ArrayList<>();
        Matcher m = LINE.matcher(text);
        while (m.find() && out.size() < MAX_ACCELERATORS) {
            String body = m.group(1);
            if (body.length() > MAX_DICTIONARY_CHARS) {
                continue;
            }
            Map<String, Long> d = new LinkedHashMap<>();
            Matcher e = ENTRY.matcher(body);
            while (e.find()) {
                try {
                    d.put(e.group(1), Long.parseLong(e.group(2)));
                } catch (NumberFormatException tooLarge) {
                    // above 2^63: not a memory figure; left out
                }
            }
            out.add(d);
        }
        return out;
    }
}
