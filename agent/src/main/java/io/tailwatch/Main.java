package io.tailwatch;

import io.tailwatch.cli.TailwatchCommand;

/** Entry point of the tailwatch jar. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        int code = TailwatchCommand.commandLine(args).execute(args);
        System.exit(code);
    }
}
