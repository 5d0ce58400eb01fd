package io.tailwatch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import io.tailwatch.archfixture.cyclic.left.Left;
import io.tailwatch.archfixture.cyclic.right.Right;
import io.tailwatch.archfixture.printing.PrintsToAWriter;
import io.tailwatch.archfixture.printing.PrintsToSystemOut;
import io.tailwatch.testing.AgentProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package structure docs/architecture.md draws, checked on the compiled classes: an acyclic graph of
 * packages, the core below both wings, the daemon wing and the tools wing side by side (neither imports
 * the other), the leaves of the core importing nothing of the project, and JNA only in the native classes.
 */
class ArchitectureTest {
    private static JavaClasses project;

    @BeforeAll
    static void importProject() {
        project = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.tailwatch");
    }

    /** Every package its own slice; the metric catalog of the exporters module takes part too. */
    static ArchRule noPackageCycle() {
        return slices().matching("io.tailwatch.(**)").should().beFreeOfCycles();
    }

    @Test
    void theProjectIsImportedWhole() {
        // A rule over an empty or partial import would pass for nothing: the wings, the core and the
        // exporters' catalog are all there.
        assertThat(project.containPackage("io.tailwatch.daemon.engine")).isTrue();
        assertThat(project.containPackage("io.tailwatch.tools.capacity")).isTrue();
        assertThat(project.containPackage("io.tailwatch.core.host.macos")).isTrue();
        assertThat(project.containPackage("io.tailwatch.core.text")).isTrue();
        assertThat(project.containPackage("io.tailwatch.metrics")).isTrue();
        assertThat(project.size()).isGreaterThan(300);
    }

    @Test
    void noPackageCycles() {
        noPackageCycle().check(project);
    }

    @Test
    void theCycleRuleCatchesACycle() {
        // Two test-only packages that import each other: the same rule must report them.
        JavaClasses cyclic = new ClassFileImporter().importClasses(Left.class, Right.class);
        EvaluationResult result = noPackageCycle().evaluate(cyclic);
        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().toString()).contains("archfixture.cyclic.left")
                .contains("archfixture.cyclic.right");
    }

    @Test
    void theCoreImportsNeitherWingNorTheCommandLine() {
        noClasses().that().resideInAPackage("io.tailwatch.core..").should().dependOnClassesThat()
                .resideInAnyPackage("io.tailwatch.daemon..", "io.tailwatch.tools..", "io.tailwatch.cli..")
                .check(project);
    }

    @Test
    void theDaemonWingDoesNotImportTheToolsWing() {
        noClasses().that().resideInAPackage("io.tailwatch.daemon..").should().dependOnClassesThat()
                .resideInAnyPackage("io.tailwatch.tools..", "io.tailwatch.cli..").check(project);
    }

    /**
     * The daemon package is the top of its wing: {@code Daemon} and the parts it is wired from
     * ({@code StatusParts}, {@code ListenerHealth}, {@code AlertDelivery}, {@code ReloadPlan},
     * {@code EngineReconcile}) use the subpackages, which never reach back up to them.
     */
    @Test
    void theDaemonsWiringSitsAboveItsSubpackages() {
        assertThat(project.contain("io.tailwatch.daemon.ReloadPlan")).isTrue();
        assertThat(project.contain("io.tailwatch.daemon.StatusParts$Host")).isTrue();
        noClasses().that(DescribedPredicate.describe("reside in a subpackage of io.tailwatch.daemon",
                        (JavaClass c) -> c.getPackageName().startsWith("io.tailwatch.daemon.")))
                .should().dependOnClassesThat().resideInAPackage("io.tailwatch.daemon").check(project);
    }

    @Test
    void theToolsWingDoesNotImportTheDaemonWing() {
        noClasses().that().resideInAPackage("io.tailwatch.tools..").should().dependOnClassesThat()
                .resideInAnyPackage("io.tailwatch.daemon..", "io.tailwatch.cli..").check(project);
    }

    @Test
    void theLeavesImportNothingOfTheProject() {
        for (String leaf : new String[] {"json", "units", "text", "stats", "tls"}) {
            importsNothingOfTheProjectBut("io.tailwatch.core." + leaf);
        }
        // Logging escapes every line with the text leaf's rule, and nothing else of the project.
        importsNothingOfTheProjectBut("io.tailwatch.core.logging", "io.tailwatch.core.text");
        // The HTTP client only logs through the logging package.
        importsNothingOfTheProjectBut("io.tailwatch.core.http", "io.tailwatch.core.logging");
    }

    /** Classes of {@code pkg} depend on no package of the project other than itself and {@code allowed}. */
    private static void importsNothingOfTheProjectBut(String pkg, String... allowed) {
        Set<String> may = new TreeSet<>(Set.of(allowed));
        may.add(pkg);
        noClasses().that().resideInAPackage(pkg).should().dependOnClassesThat(
                DescribedPredicate.describe("a project package other than " + may,
                        c -> c.getPackageName().startsWith("io.tailwatch") && !may.contains(c.getPackageName())))
                .check(project);
    }

    @Test
    void docsArchitectureListsEveryPackageAndNoOther() throws IOException {
        String doc = Files.readString(AgentProcess.root().resolve("docs/architecture.md"));
        Set<String> inTree = new TreeSet<>();
        for (JavaClass c : project) {
            String pkg = c.getPackageName();
            if (pkg.startsWith("io.tailwatch.") && !pkg.equals("io.tailwatch.metrics")) {
                inTree.add(pkg.substring("io.tailwatch.".length()).replace('.', '/') + "/");
            }
        }
        Set<String> inDoc = new TreeSet<>();
        Matcher m = Pattern.compile("^\\| `((?:core|daemon|tools|cli)[a-z/]*/)`", Pattern.MULTILINE).matcher(doc);
        while (m.find()) {
            inDoc.add(m.group(1));
        }
        // core/host/ names its three subpackages in its own row.
        for (String sub : new String[] {"linux/", "macos/", "platform/"}) {
            assertThat(doc).contains("`" + sub + "`");
            inDoc.add("core/host/" + sub);
        }
        assertThat(inDoc).isEqualTo(inTree);
    }

    @Test
    void jnaOnlyInTheNativeClasses() {
        noClasses().that().haveNameNotMatching("io\\.tailwatch\\.core\\.host\\.macos\\.MacNative[^.]*")
                .and().haveNameNotMatching("io\\.tailwatch\\.core\\.host\\.linux\\.LinuxNative[^.]*")
                .and().doNotHaveFullyQualifiedName("io.tailwatch.core.host.platform.NativeTerminal")
                .and().haveNameNotMatching("io\\.tailwatch\\.core\\.host\\.platform\\.NativeTerminal\\$.*")
                .should().dependOnClassesThat().resideInAPackage("com.sun.jna..").check(project);
    }

    /**
     * Commands print through picocli's writers (spec.commandLine().getOut()/getErr()), so a caller can
     * capture or redirect them; the tools return text or take the writer they print to. Neither touches
     * System.out or System.err.
     */
    static ArchRule printsOnlyThroughWriters(String... packages) {
        return noClasses().that().resideInAnyPackage(packages)
                .should().accessField(System.class, "out").orShould().accessField(System.class, "err")
                .because("commands print through picocli's writers and tools through the writer they are given");
    }

    @Test
    void commandsAndToolsPrintOnlyThroughWriters() {
        printsOnlyThroughWriters("io.tailwatch.cli..", "io.tailwatch.tools..").check(project);
    }

    @Test
    void thePrintingRuleCatchesSystemOutAndErr() {
        JavaClasses fixtures = new ClassFileImporter().importClasses(PrintsToSystemOut.class, PrintsToAWriter.class);
        EvaluationResult result = printsOnlyThroughWriters("io.tailwatch.archfixture.printing..").evaluate(fixtures);
        assertThat(result.hasViolation()).isTrue();
        String report = result.getFailureReport().toString();
        assertThat(report).contains("PrintsToSystemOut.say").contains("System.out")
                .contains("PrintsToSystemOut.complain").contains("System.err")
                .doesNotContain("PrintsToAWriter");
    }
}
