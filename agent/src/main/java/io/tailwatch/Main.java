package io.tailwatch;

import io.tailwatch.cli.TailwatchCommand;

/** Entry point of the tailwatch jar. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        if (Boolean.getBoolean("tailwatch.cds.training")) {
            // This run makes the launcher's class-data archive: load every command's classes into it too,
            // so that help and the other commands start from it as well.
            TailwatchCommand.commandLine();
        }
        int code = TailwatchCommand.commandLine(args).execute(args);
        System.exit(code);
    }
}
