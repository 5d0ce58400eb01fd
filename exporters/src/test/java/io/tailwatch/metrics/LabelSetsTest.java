package io.tailwatch.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.snapshots.Labels;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A family's label sets: one Labels per attribute set while it is kept, whatever order the series come in. */
class LabelSetsTest {
    private static Map<String, String> attrs(String engine, String model) {
        return new TreeMap<>(Map.of("tailwatch.engine.name", engine, "gen_ai.request.model", model));
    }

    private static Labels make(Map<String, String> a, AtomicInteger made) {
        made.incrementAndGet();
        return Labels.of("gen_ai_request_model", a.get("gen_ai.request.model"), "tailwatch_engine_name",
                a.get("tailwatch.engine.name"));
    }

    @Test
    void aSetKeepsItsLabelsInAnyOrderAndEqualContentFindsThem() {
        LabelSets sets = new LabelSets(100);
        AtomicInteger made = new AtomicInteger();
        List<Labels> first = new ArrayList<>();
        sets.begin(3);
        for (String e : new String[] {"a", "b", "c"}) {
            first.add(sets.get(attrs(e, "m"), a -> make(a, made)));
        }
        // Next view: other map objects of the same content, in another order, one more and one fewer.
        sets.begin(3);
        assertThat((Object) sets.get(attrs("c", "m"), a -> make(a, made))).isSameAs(first.get(2));
        assertThat((Object) sets.get(attrs("a", "m"), a -> make(a, made))).isSameAs(first.get(0));
        Labels d = sets.get(attrs("d", "m"), a -> make(a, made));
        assertThat(d.get("tailwatch_engine_name")).isEqualTo("d");
        assertThat(made).hasValue(4);
        // A set that differs in one value only is another set.
        sets.begin(1);
        assertThat(sets.get(attrs("a", "m2"), a -> make(a, made)).get("gen_ai_request_model")).isEqualTo("m2");
        assertThat(made).hasValue(5);
    }

    /** More series than a view announced, or no view begun at all (a long-running daemon's millions of calls). */
    @Test
    void callsPastTheAnnouncedSeriesStillFindTheirLabelsAndTheBoundHolds() {
        LabelSets sets = new LabelSets(50);
        AtomicInteger made = new AtomicInteger();
        Labels a = sets.get(attrs("a", "m"), x -> make(x, made));
        for (int i = 0; i < 200_000; i++) {
            assertThat((Object) sets.get(attrs("a", "m"), x -> make(x, made))).isSameAs(a);
        }
        assertThat(made).hasValue(1);
        for (int i = 0; i < 500; i++) {
            sets.begin(1);
            sets.get(attrs("e" + i, "m"), x -> make(x, made));
            assertThat(sets.size()).isBetween(1, 50);
        }
    }
}
