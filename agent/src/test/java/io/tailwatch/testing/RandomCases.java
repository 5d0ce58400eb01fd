package io.tailwatch.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;

/**
 * Seeded random inputs for property-style tests with JUnit's parameterized tests: each case is a
 * seed, shown in the test name, so a failure replays exactly.
 */
public final class RandomCases {
    private static final char[] EXTRA = {'\u00e9', '\u65e5', '\u0430', '\u00fc'};

    private RandomCases() {
    }

    /** {@code n} fixed seeds. */
    public static Stream<Long> seeds(int n) {
        return LongStream.range(0, n).map(i -> 0x5DEECE66DL * (i + 1)).boxed();
    }

    /** Sorted split offsets in [0, max], between 0 and {@code maxCount} of them. */
    public static List<Integer> cuts(Random r, int maxCount, int max) {
        int n = r.nextInt(maxCount + 1);
        List<Integer> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(r.nextInt(max + 1));
        }
        out.sort(Integer::compare);
        return out;
    }

    /** A well-formed string of printable ASCII and a few multi-byte characters (including a surrogate pair). */
    public static String text(Random r, int maxLength) {
        int n = r.nextInt(maxLength + 1);
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            int k = r.nextInt(20);
            if (k == 0) {
                b.append("\uD83D\uDE00");
            } else if (k == 1) {
                b.append(EXTRA[r.nextInt(EXTRA.length)]);
            } else {
                b.append((char) (' ' + r.nextInt('~' - ' ' + 1)));
            }
        }
        return b.toString();
    }
}
