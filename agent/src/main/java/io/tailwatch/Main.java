package io.tailwatch;

import io.tailwatch.cli.TailwatchCommand;
import java.io.PrintWriter;
import java.io.Writer;
import picocli.CommandLine;

/** Entry point of the tailwatch jar. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        if (Boolean.getBoolean("tailwatch.cds.training")) {
            // This run makes the launcher's class-data archive: load every command's classes into it too,
            // and the classes that print a usage (into nothing), so that help, usage errors and the other
            // commands start from it as well.
            CommandLine all = TailwatchCommand.commandLine();
            PrintWriter none = new PrintWriter(Writer.nullWriter());
            all.usage(none);
            all.getSubcommands().get("status").usage(none);
        }
        int code = TailwatchCommand.commandLine(args).execute(args);
        System.exit(code);
    }
}
