package io.tailwatch.tools.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.tailwatch.core.host.HostSnapshot;
import io.tailwatch.core.host.macos.MacToolText;
import io.tailwatch.metrics.AttrValues.RailStatus;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.Point;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** doctor names the source of every power figure and checks the battery and PSTR against ioreg. */
class PowerSourceChecksTest {
    /**
     * {@code ioreg -rn AppleSmartBattery} of a MacBook on battery, in the shape ioreg prints it (abridged):
     * Amperage -1000 mA is printed as its unsigned 64-bit form, 2^64 - 1000 = 18446744073709550616.
     * Expected: 12596 mV x -1000 mA = -12.596 W into the battery, 12.596 W drawn from it.
     */
    static final String IOREG_ON_BATTERY = """
            +-o AppleSmartBattery  <class AppleSmartBattery, id 0x100000254, registered, matched, active, busy 0 (0 ms), retain 7>
                {
                  "Amperage" = 18446744073709550616
                  "Voltage" = 12596
                  "CurrentCapacity" = 80
                  "MaxCapacity" = 100
                  "ExternalConnected" = No
                  "IsCharging" = No
                  "AdapterDetails" = {"FamilyCode"=0,"Watts"=0}
                  "DeviceName" = "bq40z651"
                }
            """;

    private static HostSnapshot snap(Point... p) {
        return new HostSnapshot(Instant.EPOCH, List.of(p), Map.of());
    }

    private static Check row(List<Check> checks, String signal) {
        return checks.stream().filter(c -> c.signal().equals(signal)).findFirst().orElseThrow(() -> new AssertionError(signal + " in " + checks));
    }

    @Test
    void ioregBatteryTurnsTheUnsignedAmperageBackIntoItsSign() {
        Map<String, Long> p = MacToolText.ioregBattery(IOREG_ON_BATTERY);
        assertThat(p).containsEntry("Amperage", -1000L).containsEntry("Voltage", 12596L).containsEntry("ExternalConnected", 0L)
                .containsEntry("AdapterWatts", 0L).doesNotContainKey("DeviceName");
        assertThat(MacToolText.ioregBattery("")).isEmpty();
    }

    @Test
    void eachPowerFigureNamesItsSourceAndAFrozenRailIsUnavailable() {
        List<Check> rows = PowerSourceChecks.sources(snap(HostMetrics.power("gpu", 2.0), HostMetrics.railState("cpu", RailStatus.FROZEN),
                HostMetrics.hostPower(14.0), HostMetrics.battery(HostMetrics.BATTERY_POWER, -12.0)), true);
        assertThat(row(rows, "power source: hw.power").tool()).startsWith("IOReport Energy Model").endsWith("gpu");
        assertThat(row(rows, "power source: hw.host.power").tool()).contains("PSTR");
        assertThat(row(rows, "power source: tailwatch.battery.power").tool()).contains("AppleSmartBattery");
        Check frozen = row(rows, "power source: hw.power{cpu}");
        assertThat(frozen.tool()).isEqualTo("unavailable (macOS froze this counter)");
        assertThat(frozen.verdict()).isEqualTo(Check.Verdict.UNAVAILABLE);
        assertThat(PowerSourceChecks.sources(snap(HostMetrics.power("package", 9.0)), false)).singleElement()
                .satisfies(c -> assertThat(c.tool()).startsWith("RAPL"));
    }

    @Test
    void onBatteryThePstrFigureIsComparedWithWhatTheBatteryGives() {
        Map<List<String>, String> out = Map.of(PowerSourceChecks.IOREG_BATTERY, IOREG_ON_BATTERY);
        // Battery: -12.2 W native vs -12.596 W, inside max(30 %, 2 W); PSTR 14 W vs 12.596 W, inside max(50 %, 3 W).
        List<Check> ok = PowerSourceChecks.checks(snap(HostMetrics.hostPower(14.0),
                HostMetrics.battery(HostMetrics.BATTERY_POWER, -12.2)), out, Map.of());
        assertThat(row(ok, "tailwatch.battery.power").verdict()).isEqualTo(Check.Verdict.AGREE);
        assertThat(row(ok, "hw.host.power").verdict()).isEqualTo(Check.Verdict.AGREE);
        // A PSTR read as 0 while the battery gives 12.6 W disagrees.
        List<Check> zero = PowerSourceChecks.checks(snap(HostMetrics.hostPower(0.0),
                HostMetrics.battery(HostMetrics.BATTERY_POWER, -12.2)), out, Map.of());
        assertThat(row(zero, "hw.host.power").verdict()).isEqualTo(Check.Verdict.DISAGREE);
        // A desktop Mac: ioreg prints nothing, the battery is absent on both sides, PSTR range-checked.
        List<Check> mini = PowerSourceChecks.checks(snap(HostMetrics.hostPower(9.0)),
                Map.of(PowerSourceChecks.IOREG_BATTERY, ""), Map.of());
        assertThat(row(mini, "tailwatch.battery.power").verdict()).isEqualTo(Check.Verdict.AGREE);
        assertThat(row(mini, "hw.host.power").verdict()).isEqualTo(Check.Verdict.CHECKED);
    }

    @Test
    void aFanAboveItsOwnMaximumIsInvalid() {
        List<Check> rows = PowerSourceChecks.checks(snap(HostMetrics.fanSpeed(0, 9000), HostMetrics.fanSpeedLimit(0, 4800)),
                Map.of(), Map.of(PowerSourceChecks.IOREG_BATTERY, "not run"));
        assertThat(row(rows, "hw.fan.speed{fan0}").verdict()).isEqualTo(Check.Verdict.INVALID);
    }

    @Test
    void aFanWithoutAnIdIsStillRangeChecked() {
        List<Check> rows = PowerSourceChecks.checks(snap(Point.of(HostMetrics.FAN_SPEED, 1200), HostMetrics.fanSpeedLimit(0, 4800)),
                Map.of(), Map.of(PowerSourceChecks.IOREG_BATTERY, "not run"));
        assertThat(row(rows, "hw.fan.speed").verdict()).isEqualTo(Check.Verdict.CHECKED);
    }
}
