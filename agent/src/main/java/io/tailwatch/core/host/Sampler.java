package io.tailwatch.core.host;

import io.tailwatch.metrics.Point;
import java.util.List;

/**
 * One host signal. A sampler returns every series it could read; an empty list means this machine
 * does not have the signal (not an error, nothing exported). Throwing marks this sampler failed for
 * the cycle without touching its siblings. Samplers must not start subprocesses.
 */
public interface Sampler {
    String name();

    List<Point> sample() throws Exception;
}
