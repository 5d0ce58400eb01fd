package io.tailwatch.core.host.macos;

/** The captured tool outputs, shared with the doctor tests. */
public final class MacToolTextFixtures {
    public static final String VM_STAT = MacToolTextTest.VM_STAT;
    public static final String PMSET_APPLE_SILICON = MacToolTextTest.PMSET_APPLE_SILICON;
    public static final String PMSET_INTEL = MacToolTextTest.PMSET_INTEL;
    public static final String NOTIFYUTIL_THERMAL = MacToolTextTest.NOTIFYUTIL_THERMAL;
    public static final String FOOTPRINT_OLLAMA = MacToolTextTest.FOOTPRINT_OLLAMA;
    public static final String POWERMETRICS_M1_PRO = MacToolTextTest.POWERMETRICS_M1_PRO;

    private MacToolTextFixtures() {
    }
}
