package io.tailwatch.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * `run` catches SIGHUP before its daemon starts (its listener answers before the start returns): a signal
 * in that window reloads once the daemon is handed over, instead of ending the JVM.
 */
class RunSighupTest {

    @Test
    void sighups_before_the_daemon_is_handed_over_reload_once_when_it_is() {
        RunCommand.Sighup sighup = new RunCommand.Sighup();
        AtomicInteger reloads = new AtomicInteger();
        sighup.received();
        sighup.received();
        assertThat(reloads).hasValue(0);

        sighup.deliverTo(reloads::incrementAndGet);
        await().atMost(Duration.ofSeconds(5)).untilAtomic(reloads, equalTo(1));
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).untilAtomic(reloads, equalTo(1));

        sighup.received();
        await().atMost(Duration.ofSeconds(5)).untilAtomic(reloads, equalTo(2));
    }

    @Test
    void without_a_sighup_handing_the_daemon_over_reloads_nothing() {
        RunCommand.Sighup sighup = new RunCommand.Sighup();
        AtomicInteger reloads = new AtomicInteger();
        sighup.deliverTo(reloads::incrementAndGet);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).untilAtomic(reloads, equalTo(0));
    }

    @Test
    void a_sighup_racing_the_hand_over_reloads_exactly_once() throws Exception {
        for (int round = 0; round < 20; round++) {
            RunCommand.Sighup sighup = new RunCommand.Sighup();
            AtomicInteger reloads = new AtomicInteger();
            Thread signal = new Thread(sighup::received);
            signal.start();
            sighup.deliverTo(reloads::incrementAndGet);
            signal.join();
            await().during(Duration.ofMillis(50)).atMost(Duration.ofSeconds(5)).untilAtomic(reloads, equalTo(1));
        }
    }
}
