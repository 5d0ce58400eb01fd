package io.tailwatch.core.host.macos;

import io.tailwatch.metrics.AttrValues.RailStatus;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Which counters each CPU, DRAM and ANE figure comes from, per rail: the IOReport Energy Model while its
 * rail is measured; the AppleCLPC accumulators where the Energy Model rail is frozen (macOS 27 gates it),
 * where the Energy Model has no such rail, or where the Energy Model sampler is not running (its native
 * probe kept it out, or it has not answered for {@value #STALE_READINGS} CLPC readings); neither: absent.
 * The ANE may be idle, so a still Energy Model ANE counter is frozen only on evidence: it showed no energy
 * for {@link EnergyModel#FROZEN_MIN_SECONDS} s or more while the CLPC ANE counter moved.
 * The two samplers share one instance: the Energy Model sampler reports its rail states, the CLPC sampler asks.
 */
public final class RailChoice {
    /** The rails CLPC can stand in for. */
    public static final Set<String> CLPC_RAILS = Set.of("cpu", "dram", "ane");
    /** CLPC readings without an Energy Model reading after which the Energy Model counts as not running. */
    static final int STALE_READINGS = 3;

    private final Map<String, RailStatus> energyModel = new HashMap<>();
    private boolean energyModelRead;
    private int clpcSinceEnergyModel;
    /** Seconds in a row the Energy Model's ANE counter has shown no energy. */
    private double aneStillSeconds;
    /** Whether the CLPC ANE counter moved while the Energy Model's stood still. */
    private boolean aneMovedElsewhere;

    /**
     * What the Energy Model sampler's last delta said about its rails (rails absent from it are not known
     * there), and its watts over {@code seconds}.
     */
    public synchronized void energyModel(Map<String, RailStatus> states, Map<String, Double> watts, double seconds) {
        energyModel.clear();
        energyModel.putAll(states);
        energyModelRead = true;
        clpcSinceEnergyModel = 0;
        Double ane = watts.get("ane");
        if (ane == null) {
            return;
        }
        if (ane > 0) {
            aneStillSeconds = 0;
            aneMovedElsewhere = false;
        } else if (seconds > 0 && Double.isFinite(seconds)) {
            aneStillSeconds += seconds;
        }
    }

    /** One CLPC reading: its watts by rail. Called before {@link #useClpc} for that reading. */
    synchronized void clpc(Map<String, Double> watts) {
        clpcSinceEnergyModel++;
        Double ane = watts.get("ane");
        if (ane != null && ane > 0 && aneStillSeconds > 0) {
            aneMovedElsewhere = true;
        }
    }

    /** Whether the Energy Model's figure of {@code rail} is frozen on evidence from CLPC (the ANE only). */
    public synchronized boolean frozenByEvidence(String rail) {
        return "ane".equals(rail) && aneMovedElsewhere && aneStillSeconds >= EnergyModel.FROZEN_MIN_SECONDS;
    }

    /** Whether the CLPC figure of {@code rail} is the one to export. */
    public synchronized boolean useClpc(String rail) {
        if (!CLPC_RAILS.contains(rail)) {
            return false;
        }
        if (!energyModelRead || clpcSinceEnergyModel > STALE_READINGS) {
            // The Energy Model sampler is not running here (blocked by the self-check, or failing).
            return clpcSinceEnergyModel > STALE_READINGS;
        }
        RailStatus st = energyModel.get(rail);
        return st == null || st == RailStatus.FROZEN || frozenByEvidence(rail);
    }
}
