package io.tailwatch.core.config;

/** A config that cannot be used; carries every problem found. */
public final class ConfigException extends Exception {
    private final Problems problems;

    public ConfigException(Problems problems) {
        super(problems.render().strip());
        this.problems = problems;
    }

    public Problems problems() {
        return problems;
    }
}
