package io.tailwatch.metrics;

import io.prometheus.metrics.model.snapshots.Labels;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * One family's client {@link Labels} by attribute set: a series finds the Labels it had at the last scrape
 * (built and checked by the client once, and the identity by which its rendering is kept) from its
 * attributes' content, without building a key: a hash over the attributes in their iteration order (the
 * hub's are sorted maps, or one map shared by every copy of a histogram series) and a comparison with the
 * names and values kept. At most {@code bound} sets are kept; when full, the table starts over. Not
 * thread-safe: its user holds a lock.
 */
final class LabelSets {
    private final int bound;
    private Entry[] slots = new Entry[16];
    private int size;
    private final Probe probe = new Probe();
    private final Map<Map<String, String>, Labels> byMap = new java.util.IdentityHashMap<>();
    /** The sets asked for in one view, in order, and those of the view before (the first guess for each place). */
    private Entry[] asked = new Entry[0];
    private Entry[] askedBefore = new Entry[0];
    private int place;

    /** Names and values in iteration order, their hash, the Labels made of them. */
    private record Entry(int hash, String[] namesAndValues, Labels labels, Entry next) {
    }

    LabelSets(int bound) {
        this.bound = bound;
    }

    int size() {
        return size;
    }

    /**
     * The Labels of {@code attrs}, a map every copy of its series shares (a histogram series'): found by the
     * map itself, then by its content. The maps seen are kept as long as the sets are.
     */
    Labels ofShared(Map<String, String> attrs, Function<Map<String, String>, Labels> make) {
        Labels l = byMap.get(attrs);
        if (l == null) {
            l = get(attrs, make);
            if (byMap.size() >= bound) {
                byMap.clear();
            }
            byMap.put(attrs, l);
        }
        return l;
    }

    /**
     * A view of the family's {@code n} series begins: the i-th asked for is first compared with the i-th of
     * the view before (a producer publishes its series in the same order each time).
     */
    void begin(int n) {
        askedBefore = asked;
        asked = new Entry[n];
        place = 0;
    }

    /** The Labels of {@code attrs}: the kept ones, or {@code make}'s, then kept. Call {@link #begin} first. */
    Labels get(Map<String, String> attrs, Function<Map<String, String>, Labels> make) {
        int at = place < asked.length ? place++ : asked.length; // past the view's series: no guess, nothing noted
        Entry guess = at < askedBefore.length ? askedBefore[at] : null;
        if (guess != null && probe.same(guess.namesAndValues(), attrs)) {
            return asked(at, guess);
        }
        int hash = probe.hash(attrs);
        for (Entry e = slots[hash & (slots.length - 1)]; e != null; e = e.next()) {
            if (e.hash() == hash && probe.same(e.namesAndValues(), attrs)) {
                return asked(at, e);
            }
        }
        Labels made = make.apply(attrs);
        if (size >= bound) {
            slots = new Entry[16];
            size = 0;
            byMap.clear();
            askedBefore = new Entry[0];
        }
        if (size >= slots.length * 3 / 4) {
            Entry[] grown = new Entry[slots.length * 2];
            for (Entry head : slots) {
                for (Entry e = head; e != null; e = e.next()) {
                    int to = e.hash() & (grown.length - 1);
                    grown[to] = new Entry(e.hash(), e.namesAndValues(), e.labels(), grown[to]);
                }
            }
            slots = grown;
        }
        int slot = hash & (slots.length - 1);
        slots[slot] = new Entry(hash, probe.copy(attrs), made, slots[slot]);
        size++;
        return asked(at, slots[slot]);
    }

    private Labels asked(int at, Entry e) {
        if (at < asked.length) {
            asked[at] = e;
        }
        return e.labels();
    }

    /** Walks a map's entries with {@link Map#forEach} (no iterator, no entry objects) to hash, compare or copy them. */
    private static final class Probe implements BiConsumer<String, String> {
        private static final int HASH = 0;
        private static final int COMPARE = 1;
        private static final int COPY = 2;
        private int mode;
        private int hash;
        private String[] kv;
        private int at;
        private boolean same;

        int hash(Map<String, String> attrs) {
            mode = HASH;
            hash = 1;
            attrs.forEach(this);
            return hash;
        }

        boolean same(String[] namesAndValues, Map<String, String> attrs) {
            if (namesAndValues.length != 2 * attrs.size()) {
                return false;
            }
            mode = COMPARE;
            kv = namesAndValues;
            at = 0;
            same = true;
            attrs.forEach(this);
            kv = null;
            return same;
        }

        String[] copy(Map<String, String> attrs) {
            mode = COPY;
            kv = new String[2 * attrs.size()];
            at = 0;
            attrs.forEach(this);
            String[] out = kv;
            kv = null;
            return out;
        }

        @Override
        public void accept(String name, String value) {
            switch (mode) {
                case HASH -> hash = 31 * (31 * hash + name.hashCode()) + value.hashCode();
                case COMPARE -> {
                    same = same && kv[at].equals(name) && kv[at + 1].equals(value);
                    at += 2;
                }
                default -> {
                    kv[at++] = name;
                    kv[at++] = value;
                }
            }
        }
    }
}
