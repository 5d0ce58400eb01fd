package io.tailwatch.archfixture.printing;

/** Test fixture: prints to System.out and System.err directly (what commands and tools must not do). */
public final class PrintsToSystemOut {
    public void say(String text) {
        System.out.println(text);
    }

    public void complain(String text) {
        System.err.println(text);
    }
}
