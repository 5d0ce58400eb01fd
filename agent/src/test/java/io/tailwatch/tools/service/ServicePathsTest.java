package io.tailwatch.tools.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ServicePathsTest {
    @Test
    void a_system_daemon_needs_root_and_a_user_agent_must_not_come_from_sudo() {
        assertThat(ServicePaths.rootProblem(true, Map.of(), 501)).contains("needs root: run it with sudo");
        assertThat(ServicePaths.rootProblem(true, Map.of("SUDO_UID", "501"), 0)).isNull();
        assertThat(ServicePaths.rootProblem(false, Map.of("SUDO_UID", "501"), 0)).contains("without sudo");
        assertThat(ServicePaths.rootProblem(false, Map.of(), 0)).isNull(); // root's own session, not sudo
        assertThat(ServicePaths.rootProblem(false, Map.of(), 501)).isNull();
    }
}
