package io.tailwatch.host.macos;

/** The captured tool outputs, shared with the doctor tests. */
public final class MacToolTextFixtures {
    public static final String VM_STAT = MacToolTextTest.VM_STAT;
    public static final String PMSET_APPLE_SILICON = MacToolTextTest.PMSET_APPLE_SILICON;
    public static final String PMSET_INTEL = MacToolTextTest.PMSET_INTEL;

    private MacToolTextFixtures() {
    }
}
