package io.tailwatch.tools.history;

import java.time.Instant;

/**
 * One stored result.
 *
 * @param kind     ladder, bench or baseline
 * @param headline the run's main figure: ladder = concurrency-1 p95 seconds, bench = median decode
 *                 tok/s, baseline = single-request average seconds; null when unknown
 * @param unit     the headline's unit (s or tok/s)
 * @param outcome  short result text: the stop rule, pass/fail, stability class
 * @param summary  the run's summary JSON
 */
public record RunRecord(long id, String kind, Instant startedAt, Instant endedAt, String host, String engine,
                        String model, Double headline, String unit, String outcome, String summary) {
}
