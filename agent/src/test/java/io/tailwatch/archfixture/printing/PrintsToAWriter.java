package io.tailwatch.archfixture.printing;

import java.io.PrintWriter;

/** Test fixture: prints only to the writer it is given (what commands and tools do). */
public final class PrintsToAWriter {
    public void say(PrintWriter out, String text) {
        out.println(text);
    }
}
