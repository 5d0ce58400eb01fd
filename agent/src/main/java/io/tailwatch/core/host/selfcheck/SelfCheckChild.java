package io.tailwatch.core.host.selfcheck;

import io.tailwatch.core.host.NativeProbe;
import io.tailwatch.core.host.NativeProbes;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The self-check's child process: {@code SelfCheckChild <NativeProbes class> <probe id>...}. Before each
 * probe it prints {@code begin <id>}, after it {@code pass <id>}, {@code fail <id> <message>} or
 * {@code reject <id> <message>} (a reading that does not fit the layout), each
 * line flushed at once, so the parent knows which probe was running when the process died.
 */
public final class SelfCheckChild {
    static final String PREFIX = "tailwatch-selfcheck ";

    private SelfCheckChild() {
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
        if (args.length < 1) {
            out.println(PREFIX + "usage SelfCheckChild <NativeProbes class> <probe id>...");
            System.exit(2);
        }
        Map<String, NativeProbe> probes = new LinkedHashMap<>();
        try {
            NativeProbes provider = (NativeProbes) Class.forName(args[0]).getDeclaredConstructor().newInstance();
            for (NativeProbe p : provider.probes()) {
                probes.put(p.id(), p);
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            out.println(PREFIX + "provider " + oneLine(e));
            System.exit(3);
        }
        for (int i = 1; i < args.length; i++) {
            String id = args[i];
            out.println(PREFIX + "begin " + id);
            NativeProbe p = probes.get(id);
            if (p == null) {
                out.println(PREFIX + "fail " + id + " no probe with this id in " + args[0]);
                continue;
            }
            try {
                p.call();
                out.println(PREFIX + "pass " + id);
            } catch (NativeProbe.WrongLayout e) {
                out.println(PREFIX + "reject " + id + " " + oneLine(e));
            } catch (Exception | LinkageError e) {
                out.println(PREFIX + "fail " + id + " " + oneLine(e));
            }
        }
        out.flush();
        System.exit(0);
    }

    private static String oneLine(Throwable e) {
        String m = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        m = m.replaceAll("[\\p{Cntrl}]", " ");
        return m.length() > 300 ? m.substring(0, 300) : m;
    }
}
