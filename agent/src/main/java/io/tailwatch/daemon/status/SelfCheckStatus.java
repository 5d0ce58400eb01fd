package io.tailwatch.daemon.status;

import io.tailwatch.core.host.selfcheck.NativeSelfCheck;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The {@code native_self_check} part of the status: the OS build checked and each probe's outcome. */
public final class SelfCheckStatus {
    private SelfCheckStatus() {
    }

    public static Map<String, Object> of(NativeSelfCheck.Report report) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("build", report.build());
        m.put("checked_now", report.ranChild());
        List<Map<String, Object>> probes = new ArrayList<>();
        report.results().values().stream().sorted(java.util.Comparator.comparing(NativeSelfCheck.Result::id)).forEach(r -> {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("probe", r.id());
            p.put("status", r.status().name().toLowerCase(Locale.ROOT));
            p.put("runs", !r.status().blocks());
            if (r.detail() != null) {
                p.put("detail", r.detail());
            }
            probes.add(p);
        });
        m.put("probes", probes);
        return m;
    }
}
