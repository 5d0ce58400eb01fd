package io.tailwatch.core.config;

import java.util.List;
import java.util.Map;

/** The problems a config text is refused with, each as the user reads it ("line L, column C: key: what"). */
final class ConfigProblems {
    private ConfigProblems() {
    }

    /** The problems of {@code yaml} read with {@code env}; fails the test when the text is accepted. */
    static List<String> of(String yaml, Map<String, String> env) {
        try {
            Config.parse(yaml, "test.yaml", env);
        } catch (ConfigException e) {
            return e.problems().list().stream().map(Problems.Problem::toString).toList();
        }
        throw new AssertionError("expected problems in:\n" + yaml);
    }
}
