package io.tailwatch.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The typed attribute keys and values and the catalog's declarations cannot drift apart. */
class AttrValuesTest {

    /** Every enum declared in {@link AttrValues}. */
    private static List<Class<?>> valueTypes() {
        List<Class<?>> out = new ArrayList<>();
        for (Class<?> c : AttrValues.class.getDeclaredClasses()) {
            if (c.isEnum()) {
                out.add(c);
            }
        }
        return out;
    }

    private static List<AttrValue> constants(Class<?> type) {
        return Arrays.stream(type.getEnumConstants()).map(AttrValue.class::cast).toList();
    }

    /** Attribute name -> the values the catalog allows for it, over every metric that declares it enumerated. */
    private static Map<String, Set<AttrValue>> enumeratedInCatalog() {
        Map<String, Set<AttrValue>> out = new LinkedHashMap<>();
        for (MetricDef d : Catalog.all()) {
            for (AttributeDef a : d.attributes()) {
                if (!a.values().isEmpty()) {
                    out.computeIfAbsent(a.name(), k -> new LinkedHashSet<>()).addAll(a.values());
                }
            }
        }
        return out;
    }

    @Test
    void theCatalogDeclaresEnumeratedAttributes() {
        // Guards the test itself: an empty catalog walk would make every check below pass.
        assertThat(enumeratedInCatalog()).containsKeys(AttrKeys.MEMORY_STATE, AttrKeys.PAGING_DIRECTION, AttrKeys.CPU_MODE,
                AttrKeys.PSI_KIND, AttrKeys.ALERT_SEVERITY, AttrKeys.HW_TYPE);
        assertThat(valueTypes()).hasSizeGreaterThanOrEqualTo(enumeratedInCatalog().size());
    }

    @Test
    void everyEnumeratedAttributeTakesItsValuesFromOneTypedEnum() {
        for (MetricDef d : Catalog.all()) {
            for (AttributeDef a : d.attributes()) {
                if (a.values().isEmpty()) {
                    continue;
                }
                Set<Class<?>> types = new LinkedHashSet<>();
                for (AttrValue v : a.values()) {
                    types.add(v.getClass());
                    assertThat(v.key()).as(d.name() + " " + a.name() + "=" + v.value()).isEqualTo(a.name());
                }
                assertThat(types).as(d.name() + " " + a.name()).hasSize(1);
                assertThat(types.iterator().next().getEnclosingClass()).as(d.name() + " " + a.name()).isEqualTo(AttrValues.class);
                assertThat(a.allowed()).as(d.name() + " " + a.name())
                        .isEqualTo(a.values().stream().map(AttrValue::value).toList());
            }
        }
    }

    @Test
    void everyTypedValueSetEqualsWhatTheCatalogAllowsForItsKey() {
        Map<String, Set<AttrValue>> catalog = enumeratedInCatalog();
        Set<String> keysOfTypes = new TreeSet<>();
        for (Class<?> type : valueTypes()) {
            assertThat(AttrValue.class).as(type.getSimpleName()).isAssignableFrom(type);
            List<AttrValue> values = constants(type);
            assertThat(values).as(type.getSimpleName()).isNotEmpty();
            String key = values.get(0).key();
            assertThat(values).as(type.getSimpleName() + ": one key").allMatch(v -> v.key().equals(key));
            assertThat(keysOfTypes.add(key)).as("two enums for " + key).isTrue();
            assertThat(catalog).as(type.getSimpleName() + " (" + key + ") is declared by a metric").containsKey(key);
            assertThat(catalog.get(key)).as(key).containsExactlyInAnyOrderElementsOf(values);
        }
        assertThat(keysOfTypes).isEqualTo(new TreeSet<>(catalog.keySet()));
    }

    @Test
    @SuppressWarnings("unchecked")
    void theExportedValueIsTheLowerCaseName() {
        for (Class<?> type : valueTypes()) {
            for (AttrValue v : constants(type)) {
                assertThat(v.value()).isEqualTo(((Enum<?>) v).name().toLowerCase(Locale.ROOT)).matches("[a-z0-9_]+");
                assertThat(AttrValues.findIn((Class<? extends AttrValue>) type, v.value())).isSameAs(v);
            }
            assertThat(AttrValues.findIn((Class<? extends AttrValue>) type, "no_such_value")).isNull();
        }
    }

    @Test
    void everyAttributeKeyOfTheCatalogIsAnAttrKeysConstant() throws Exception {
        Set<String> constants = new TreeSet<>();
        for (Field f : AttrKeys.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                constants.add((String) f.get(null));
            }
        }
        Set<String> used = new TreeSet<>();
        for (MetricDef d : Catalog.all()) {
            used.addAll(d.attributeNames());
        }
        assertThat(constants).containsAll(used);
    }

    @Test
    void aValueCannotBeDeclaredUnderAnotherKey() {
        assertThatThrownBy(() -> AttributeDef.oneOf(AttrKeys.PAGING_STATE, "Swap state", AttrValues.MemoryState.CACHED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("system.paging.state: value cached belongs to system.memory.state");
    }

    @Test
    void typedPointsCarryTheValueUnderItsKey() {
        Point p = Point.of(HostMetrics.PRESSURE_STALL, 0.5, AttrValues.PsiKind.FULL, AttrValues.PsiWindow.AVG60);
        assertThat(p.attributes()).containsExactlyInAnyOrderEntriesOf(Map.of("tailwatch.psi.kind", "full", "tailwatch.psi.window", "avg60"));
        MetricSnapshot s = new MetricSnapshot(java.time.Instant.EPOCH, List.of(
                Point.of(HostMetrics.PAGING_USAGE, 7, AttrValues.PagingState.USED),
                Point.of(HostMetrics.PAGING_USAGE, 9, AttrValues.PagingState.FREE)));
        assertThat(s.value(HostMetrics.PAGING_USAGE, AttrValues.PagingState.FREE)).isEqualTo(9.0);
        assertThat(s.value(HostMetrics.PAGING_USAGE, "system.paging.state", "used")).isEqualTo(7.0);
    }
}
