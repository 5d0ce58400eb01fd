package io.tailwatch.core.probe;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** Feeds a stream decoder one body cut at the given offsets, as the network may hand it over. */
final class InPieces {
    private InPieces() {
    }

    /** A decoder's {@code feed(bytes, offset, length)}. */
    interface Feed<T> {
        List<T> feed(byte[] b, int off, int len);
    }

    /**
     * What {@code feed} and then {@code finish} give for {@code b} cut at each of {@code cuts} (offsets past the
     * end or behind the previous cut are clamped, so any list of numbers is a valid cut).
     */
    static <T> List<T> decode(byte[] b, List<Integer> cuts, Feed<T> feed, Supplier<List<T>> finish) {
        List<T> out = new ArrayList<>();
        int pos = 0;
        for (int c : cuts) {
            int end = Math.min(b.length, Math.max(pos, c));
            out.addAll(feed.feed(b, pos, end - pos));
            pos = end;
        }
        out.addAll(feed.feed(b, pos, b.length - pos));
        out.addAll(finish.get());
        return out;
    }
}
