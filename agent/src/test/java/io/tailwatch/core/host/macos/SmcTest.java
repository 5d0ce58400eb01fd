package io.tailwatch.core.host.macos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.tailwatch.core.host.Lazy;
import io.tailwatch.metrics.AttrKeys;
import io.tailwatch.metrics.HostMetrics;
import io.tailwatch.metrics.MetricDef;
import io.tailwatch.metrics.MetricHub;
import io.tailwatch.metrics.Point;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The SMC codec, client and samplers over {@link FixtureSmc}. Every fixture value is written as the bytes
 * the SMC sends, each derived by hand in its comment:
 * <ul>
 * <li>flt (IEEE 754 single, little-endian): 23.5 = 1.46875 x 2^4, exponent 127+4 = 0x83, fraction .01111b
 *     -> 0x41BC0000 -> 00 00 BC 41; 25.5 = 1.59375 x 2^4 -> 0x41CC0000 -> 00 00 CC 41;
 *     1200 = 1.171875 x 2^10 (exponent 0x89, fraction .001011b) -> 0x44960000 -> 00 00 96 44;
 *     4800 = 1200 x 4 (exponent + 2) -> 0x45960000 -> 00 00 96 45;
 *     45.5 = 1.421875 x 2^5 (exponent 0x84, fraction .011011b) -> 0x42360000 -> 00 00 36 42.
 * <li>fpe2 (unsigned 14.2, big-endian): 2000.5 rpm x 4 = 8002 = 0x1F42 -> 1F 42.
 * <li>sp78 (signed 7.8, big-endian): 52.75 Cel x 256 = 13504 = 0x34C0 -> 34 C0; FF 80 = -128 / 256 = -0.5.
 * <li>ioft (unsigned 48.16, little-endian, 8 bytes): 12.5 x 65536 = 819200 = 0x0C8000 -> 00 80 0C 00 00 00 00 00.
 * <li>ui8 02 = 2; ui16 01 2C = 300; ui32 00 01 00 00 = 65536.
 * </ul>
 */
class SmcTest {

    private static double decode(String type, int... bytes) {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) bytes[i];
        }
        return new SmcValue("TEST", type, b).number();
    }

    @Test
    void decodesEachTypeFromTheBytesTheSmcSends() {
        assertThat(decode("flt ", 0x00, 0x00, 0xBC, 0x41)).isEqualTo(23.5);
        assertThat(decode("flt ", 0x00, 0x00, 0x96, 0x44)).isEqualTo(1200.0);
        assertThat(decode("fpe2", 0x1F, 0x42)).isEqualTo(2000.5);
        // Both fraction bits kept: 0x1F43 = 8003 -> 8003 / 4 = 2000.75 (truncating to an integer would read 2000).
        assertThat(decode("fpe2", 0x1F, 0x43)).isEqualTo(2000.75);
        assertThat(decode("sp78", 0x34, 0xC0)).isEqualTo(52.75);
        assertThat(decode("sp78", 0xFF, 0x80)).isEqualTo(-0.5);
        assertThat(decode("ioft", 0x00, 0x80, 0x0C, 0x00, 0x00, 0x00, 0x00, 0x00)).isEqualTo(12.5);
        assertThat(decode("ui8 ", 0x02)).isEqualTo(2.0);
        assertThat(decode("ui8 ", 0xFF)).isEqualTo(255.0);
        assertThat(decode("ui16", 0x01, 0x2C)).isEqualTo(300.0);
        assertThat(decode("ui32", 0x00, 0x01, 0x00, 0x00)).isEqualTo(65536.0);
        assertThat(decode("ui32", 0xFF, 0xFF, 0xFF, 0xFF)).isEqualTo(4294967295.0);
        assertThat(new SmcValue("TEST", "{fds", new byte[16]).number()).isNull();
        assertThat(new SmcValue("TEST", "flt ", new byte[2]).number()).isNull();
    }

    @Test
    void requestsCarryTheKeyAndCommandAtTheOffsetsOfTheCStruct() throws IOException {
        byte[] info = SmcKeyData.keyInfoRequest("PSTR");
        assertThat(info).hasSize(80);
        // 'PSTR' = 0x50535452 stored little-endian: R T S P.
        assertThat(new byte[] {info[0], info[1], info[2], info[3]}).containsExactly('R', 'T', 'S', 'P');
        assertThat(info[42]).isEqualTo((byte) 9);
        byte[] read = SmcKeyData.readRequest("F0Ac", new SmcKeyData.KeyInfo(4, "flt "));
        assertThat(read[42]).isEqualTo((byte) 5);
        assertThat(read[28]).isEqualTo((byte) 4);
        // "flt " = 0x666C7420 little-endian: 20 74 6C 66.
        assertThat(new byte[] {read[32], read[33], read[34], read[35]}).containsExactly(0x20, 0x74, 0x6C, 0x66);
        byte[] index = SmcKeyData.keyByIndexRequest(0x0102);
        assertThat(index[42]).isEqualTo((byte) 8);
        assertThat(new byte[] {index[44], index[45]}).containsExactly(0x02, 0x01);
        assertThatThrownBy(() -> SmcKeyData.keyInfo(new byte[79])).isInstanceOf(IOException.class).hasMessageContaining("79 bytes");
    }

    @Test
    void aMissingKeyIsNullNotZeroAndOtherResultsFailNamingTheKey() throws IOException {
        FixtureSmc f = new FixtureSmc().with("PSTR", "flt ", 0x00, 0x00, 0xBC, 0x41);
        Smc smc = new Smc(f);
        assertThat(smc.number("PSTR")).isEqualTo(23.5);
        assertThat(smc.read("F9Ac")).isNull();
        assertThat(smc.keyInfo("F9Ac")).isNull();
        // Key info is asked once per key: a second read sends the read command alone.
        f.commands.clear();
        smc.number("PSTR");
        assertThat(f.commands).containsExactly(5);
        SmcConnection failing = new SmcConnection() {
            @Override
            public byte[] call(byte[] request) {
                byte[] out = new byte[80];
                out[40] = 1;
                return out;
            }

            @Override
            public void close() {
            }
        };
        assertThatThrownBy(() -> new Smc(failing).read("PSTR")).isInstanceOf(IOException.class)
                .hasMessageContaining("PSTR").hasMessageContaining("result 1");
    }

    @Test
    void systemPowerIsPstrAndEnergyItsIntegral() throws Exception {
        FixtureSmc f = new FixtureSmc().with("PSTR", "flt ", 0x00, 0x00, 0xBC, 0x41);
        AtomicLong nanos = new AtomicLong(1_000_000_000L);
        MacSystemPowerSampler s = new MacSystemPowerSampler(Lazy.of("smc", () -> new Smc(f)), nanos::get);
        List<Point> first = s.sample();
        assertThat(value(first, HostMetrics.HOST_POWER)).isEqualTo(23.5);
        assertThat(value(first, HostMetrics.HOST_ENERGY)).isNull(); // one reading is no interval
        f.with("PSTR", "flt ", 0x00, 0x00, 0xCC, 0x41); // 25.5 W two seconds later
        nanos.addAndGet(2_000_000_000L);
        List<Point> second = s.sample();
        assertThat(value(second, HostMetrics.HOST_POWER)).isEqualTo(25.5);
        // (23.5 + 25.5) / 2 W x 2 s = 49 J.
        assertThat(value(second, HostMetrics.HOST_ENERGY)).isCloseTo(49.0, within(1e-9));
        assertThat(second.get(0).attributes()).containsEntry(AttrKeys.HW_ID, "host");

        // PSTR gone (a Mac whose SMC has no such key): absent, never 0 W, and the gap adds no energy.
        f.keys.remove("PSTR");
        MacSystemPowerSampler fresh = new MacSystemPowerSampler(Lazy.of("smc", () -> new Smc(f)), nanos::get);
        assertThat(fresh.sample()).isEmpty();
        s.close();
        assertThat(f.closed).isEqualTo(1);
    }

    @Test
    void energyIsNotMadeUpForAnIntervalWithoutAReading() throws Exception {
        FixtureSmc f = new FixtureSmc().with("PSTR", "flt ", 0x00, 0x00, 0xBC, 0x41); // 23.5 W throughout
        AtomicLong nanos = new AtomicLong();
        MacSystemPowerSampler s = new MacSystemPowerSampler(Lazy.of("smc", () -> new Smc(f)), nanos::get);
        s.sample();
        nanos.addAndGet(1_000_000_000L);
        assertThat(value(s.sample(), HostMetrics.HOST_ENERGY)).isEqualTo(23.5);
        f.failCalls = 1;
        nanos.addAndGet(60_000_000_000L);
        assertThatThrownBy(s::sample).isInstanceOf(IOException.class);
        nanos.addAndGet(1_000_000_000L);
        // The minute without a reading adds nothing: the next reading starts a new interval.
        assertThat(value(s.sample(), HostMetrics.HOST_ENERGY)).isEqualTo(23.5);
        nanos.addAndGet(1_000_000_000L);
        assertThat(value(s.sample(), HostMetrics.HOST_ENERGY)).isEqualTo(47.0);
    }

    @Test
    void fansFromFNumWithActualAndMaxInEitherEncoding() throws Exception {
        FixtureSmc f = new FixtureSmc()
                .with("FNum", "ui8 ", 0x02)
                .with("F0Ac", "flt ", 0x00, 0x00, 0x96, 0x44)   // 1200 rpm, Apple silicon
                .with("F0Mx", "flt ", 0x00, 0x00, 0x96, 0x45)   // 4800 rpm
                .with("F1Ac", "fpe2", 0x1F, 0x42);              // 2000.5 rpm, Intel encoding; no F1Mx
        List<Point> points = new MacFanSampler(Lazy.of("smc", () -> new Smc(f))).sample();
        assertThat(value(points, HostMetrics.FAN_SPEED, AttrKeys.HW_ID, "fan0")).isEqualTo(1200.0);
        assertThat(value(points, HostMetrics.FAN_SPEED_LIMIT, AttrKeys.HW_ID, "fan0")).isEqualTo(4800.0);
        assertThat(value(points, HostMetrics.FAN_SPEED, AttrKeys.HW_ID, "fan1")).isEqualTo(2000.5);
        assertThat(value(points, HostMetrics.FAN_SPEED_LIMIT, AttrKeys.HW_ID, "fan1")).isNull();
        assertThat(points).filteredOn(p -> p.metric() == HostMetrics.FAN_SPEED_LIMIT).singleElement()
                .satisfies(p -> assertThat(p.attributes()).containsEntry(AttrKeys.HW_LIMIT_TYPE, "max")
                        .containsEntry(AttrKeys.HW_TYPE, "fan"));
        new MetricHub().publish("host/fans", points); // the catalog accepts every attribute

        // A Mac without fans (a MacBook Air: FNum 0) and one whose SMC has no FNum: nothing, not 0 rpm.
        assertThat(new MacFanSampler(Lazy.of("smc", () -> new Smc(new FixtureSmc().with("FNum", "ui8 ", 0x00)))).sample()).isEmpty();
        assertThat(new MacFanSampler(Lazy.of("smc", () -> new Smc(new FixtureSmc()))).sample()).isEmpty();
    }

    @Test
    void dieTemperaturesAreFoundOnceByKeyPrefixAndType() throws Exception {
        FixtureSmc f = new FixtureSmc()
                .with("PSTR", "flt ", 0x00, 0x00, 0xBC, 0x41)
                .with("TA0P", "sp78", 0x20, 0x00)                 // ambient: no die prefix
                .with("TC0P", "sp78", 0x34, 0xC0)                 // 52.75 Cel, Intel CPU
                .with("Te05", "ui8 ", 0x30)                       // a die prefix of a type no sensor has
                .with("Tg0f", "flt ", 0x00, 0x00, 0x00, 0x00)     // 0 Cel: an unpopulated sensor
                .with("Tp01", "flt ", 0x00, 0x00, 0x36, 0x42);    // 45.5 Cel, Apple silicon CPU
        MacSmcTemperatureSampler s = new MacSmcTemperatureSampler(Lazy.of("smc", () -> new Smc(f)));
        List<Point> points = s.sample();
        assertThat(points).extracting(p -> p.attributes().get(AttrKeys.HW_ID)).containsExactly("smc_TC0P", "smc_Tp01");
        assertThat(value(points, HostMetrics.THERMAL_TEMPERATURE, AttrKeys.HW_ID, "smc_Tp01")).isEqualTo(45.5);
        assertThat(value(points, HostMetrics.THERMAL_TEMPERATURE, AttrKeys.HW_ID, "smc_TC0P")).isEqualTo(52.75);
        assertThat(points.get(1).attributes()).containsEntry(AttrKeys.HW_NAME, "cpu Tp01");
        new MetricHub().publish("host/temperature", points);
        // The key list is read once: the next cycle reads the three die sensors (Tg0f may come to life) and nothing else.
        f.commands.clear();
        s.sample();
        assertThat(f.commands).containsExactly(5, 5, 5);
    }

    /**
     * A power-gated cluster's fixed values and the CPU die aggregates. IEEE 754 single, little-endian, worked
     * out by hand: 4.6 = 1.15 x 2^2 -> 0x40933333; 9.8 = 1.225 x 2^3 -> 0x411CCCCD; 15.0 = 1.875 x 2^3 ->
     * 0x41700000; 14.5 = 1.8125 x 2^3 -> 0x41680000; 45.5 -> 0x42360000; 48.25 = 1.5078125 x 2^5 -> 0x42410000;
     * 61.5 = 1.921875 x 2^5 -> 0x42760000.
     */
    @Test
    void gatedClusterSentinelsAreDroppedAndTheDieAggregatesAreRead() throws Exception {
        FixtureSmc f = new FixtureSmc()
                .with("Tp01", "flt ", 0x33, 0x33, 0x93, 0x40)     // 4.6 Cel: a gated cluster's fixed value
                .with("Tp05", "flt ", 0xCD, 0xCC, 0x1C, 0x41)     // 9.8 Cel: the same
                .with("Tp09", "flt ", 0x00, 0x00, 0x68, 0x41)     // 14.5 Cel: below 15
                .with("Tp0D", "flt ", 0x00, 0x00, 0x70, 0x41)     // 15.0 Cel: kept
                .with("Te04", "flt ", 0x00, 0x00, 0x36, 0x42)     // 45.5 Cel
                .with("TCMb", "flt ", 0x00, 0x00, 0x41, 0x42)     // 48.25 Cel, die average
                .with("TCMz", "flt ", 0x00, 0x00, 0x76, 0x42);    // 61.5 Cel, die maximum
        List<Point> points = new MacSmcTemperatureSampler(Lazy.of("smc", () -> new Smc(f))).sample();
        assertThat(points).extracting(p -> p.attributes().get(AttrKeys.HW_ID))
                .containsExactly("smc_Tp0D", "smc_Te04", "smc_TCMb", "smc_TCMz");
        assertThat(points).allMatch(p -> p.value() >= 15.0);
        assertThat(value(points, HostMetrics.THERMAL_TEMPERATURE, AttrKeys.HW_ID, "smc_Tp0D")).isEqualTo(15.0);
        assertThat(value(points, HostMetrics.THERMAL_TEMPERATURE, AttrKeys.HW_NAME, "cpu average")).isEqualTo(48.25);
        assertThat(value(points, HostMetrics.THERMAL_TEMPERATURE, AttrKeys.HW_NAME, "cpu maximum")).isEqualTo(61.5);
        new MetricHub().publish("host/temperature", points);

        // A Mac whose SMC has no aggregates: the per-sensor series alone, nothing invented.
        FixtureSmc old = new FixtureSmc().with("Tp01", "flt ", 0x00, 0x00, 0x36, 0x42);
        assertThat(new MacSmcTemperatureSampler(Lazy.of("smc", () -> new Smc(old))).sample())
                .extracting(p -> p.attributes().get(AttrKeys.HW_ID)).containsExactly("smc_Tp01");
    }

    @Test
    void theKeyListIsWalkedASliceAPerSampleSoASlowSmcKeepsItsDeadline() throws Exception {
        FixtureSmc f = new FixtureSmc()
                .with("PSTR", "flt ", 0x00, 0x00, 0xBC, 0x41)
                .with("TA0P", "sp78", 0x20, 0x00)
                .with("TC0P", "sp78", 0x34, 0xC0)                 // 52.75 Cel
                .with("Te05", "ui8 ", 0x30)
                .with("Tp01", "flt ", 0x00, 0x00, 0x36, 0x42);    // 45.5 Cel
        MacSmcTemperatureSampler s = new MacSmcTemperatureSampler(Lazy.of("smc", () -> new Smc(f)), 2);
        assertThat(s.sample()).isEmpty();                                       // keys 0-1: no die sensor yet
        assertThat(s.sample()).extracting(Point::value).containsExactly(52.75); // keys 2-3
        assertThat(s.sample()).extracting(Point::value).containsExactly(52.75, 45.5);
        f.commands.clear();
        s.sample();
        assertThat(f.commands).doesNotContain(8);                               // the list is done
    }

    @Test
    void batteryChargePowerAndAdapterFromTheRegistryFigures() {
        // A MacBook discharging: 12,400 mV x -1,250 mA = -15.5 W into the battery (15.5 W drawn from it).
        List<Point> onBattery = MacBatterySampler.points(Map.of("Voltage", 12_400L, "Amperage", -1_250L,
                "CurrentCapacity", 80L, "MaxCapacity", 100L, "ExternalConnected", 0L, "AdapterWatts", 96L));
        assertThat(value(onBattery, HostMetrics.BATTERY_POWER)).isCloseTo(-15.5, within(1e-9));
        assertThat(value(onBattery, HostMetrics.BATTERY_CHARGE)).isEqualTo(0.8);
        assertThat(value(onBattery, HostMetrics.POWER_SUPPLY_LIMIT)).isNull(); // no adapter connected
        List<Point> charging = MacBatterySampler.points(Map.of("Voltage", 13_000L, "Amperage", 2_000L,
                "ExternalConnected", 1L, "AdapterWatts", 96L));
        assertThat(value(charging, HostMetrics.BATTERY_POWER)).isCloseTo(26.0, within(1e-9));
        assertThat(value(charging, HostMetrics.POWER_SUPPLY_LIMIT)).isEqualTo(96.0);
        assertThat(value(charging, HostMetrics.BATTERY_CHARGE)).isNull();
        new MetricHub().publish("host/battery", charging);
        assertThat(MacBatterySampler.points(Map.of())).isEmpty();
    }

    @Test
    void aMacWithoutABatteryHasNoBatterySeries() throws Exception {
        assertThat(new MacBatterySampler(Lazy.of("battery", () -> (BatterySource) () -> null)).sample()).isEmpty();
    }

    @Test
    void everyNewSamplerIsGatedByAProbeOfTheSelfCheck() {
        List<String> ids = new MacProbes().probes().stream().map(io.tailwatch.core.host.NativeProbe::id).toList();
        Lazy<Smc> smc = Lazy.of("smc", () -> new Smc(new FixtureSmc()));
        assertThat(List.of(new MacSystemPowerSampler(smc).probeId(), new MacFanSampler(smc).probeId(),
                new MacSmcTemperatureSampler(smc).probeId(), new MacBatterySampler(Lazy.of("b", () -> null)).probeId()))
                .allSatisfy(id -> assertThat(ids).contains(id));
    }

    private static Double value(List<Point> points, MetricDef metric, String... kv) {
        Map<String, String> want = io.tailwatch.metrics.Attrs.of(kv);
        return points.stream().filter(p -> p.metric() == metric && p.attributes().entrySet().containsAll(want.entrySet()))
                .map(Point::value).findFirst().orElse(null);
    }
}
