package io.tailwatch.tools.doctor;

import io.tailwatch.core.host.NativeSampler;
import io.tailwatch.core.host.Sampler;
import io.tailwatch.core.host.selfcheck.NativeSelfCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** One doctor line per native probe: what it did in the self-check's child process, and which samplers it gates. */
final class SelfCheckChecks {
    private SelfCheckChecks() {
    }

    static List<Check> of(NativeSelfCheck.Report report, List<Sampler> samplers) {
        List<Check> out = new ArrayList<>();
        for (NativeSelfCheck.Result r : report.results().values()) {
            List<String> names = samplers.stream()
                    .filter(s -> s instanceof NativeSampler n && Objects.equals(n.probeId(), r.id()))
                    .map(Sampler::name).toList();
            String gates = "samplers " + String.join(", ", names);
            Check.Verdict v;
            String note;
            switch (r.status()) {
                case PASSED -> {
                    v = Check.Verdict.CHECKED;
                    note = gates + " run (" + r.millis() + " ms in the child)";
                }
                case FAILED -> {
                    v = Check.Verdict.UNAVAILABLE;
                    note = "the calls fail here without crashing; " + gates + " run and report it: " + r.detail();
                }
                default -> {
                    v = Check.Verdict.INVALID;
                    note = "this sampler cannot run on this Mac: " + gates + " not run; " + r.detail();
                }
            }
            out.add(new Check("native self-check " + r.id(), r.status().name().toLowerCase(java.util.Locale.ROOT),
                    "child process on " + report.build(), "", "", v, note));
        }
        return out;
    }
}
