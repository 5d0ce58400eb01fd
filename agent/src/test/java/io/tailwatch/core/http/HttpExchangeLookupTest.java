package io.tailwatch.core.http;

import static io.tailwatch.testing.FaultServer.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tailwatch.testing.FaultServer;
import java.net.InetAddress;
import java.net.SocketException;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The host name is looked up when the exchange starts, inside its connect timeout and deadline, and
 * {@link HttpExchange#close} ends the wait: a resolver that never answers holds neither the caller past
 * its deadline nor a closing agent.
 */
class HttpExchangeLookupTest {
    private static final long SECOND = 1_000_000_000L;
    /** Bound on how long any step here may block before the test calls it a hang. */
    private static final long HANG_SECONDS = 20;

    /** Released after each test, so that the lookup threads it held go back to the pool. */
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<String> asked = new CopyOnWriteArrayList<>();
    private final CountDownLatch entered = new CountDownLatch(1);
    private final ExecutorService callers = Executors.newCachedThreadPool();

    /** Like the system's resolver stuck on a DNS server that never answers: it ignores interrupts. */
    private final HttpExchange.Resolver silent = host -> {
        asked.add(host);
        entered.countDown();
        boolean interrupted = false;
        while (true) {
            try {
                release.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        throw new UnknownHostException(host + " (released by the test)");
    };

    @AfterEach
    void releaseTheResolver() {
        release.countDown();
        callers.shutdownNow();
        Awaitility.await().atMost(Duration.ofSeconds(HANG_SECONDS)).until(() -> HttpExchange.lookupsInFlight() == 0);
    }

    private HttpExchange prepare(String url, HttpExchange.Resolver resolver) throws Exception {
        return HttpExchange.prepare(URI.create(url), null, "GET", Map.of(), null, resolver);
    }

    /** Runs {@code start} on another thread and returns what it threw (null when it returned). */
    private Throwable startOn(HttpExchange x, int connectMillis, long deadlineNanos) throws Exception {
        Future<?> f = callers.submit(() -> {
            x.start(connectMillis, deadlineNanos);
            return null;
        });
        try {
            f.get(HANG_SECONDS, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    @Test
    void preparingLooksNothingUp() throws Exception {
        prepare("http://engine.test:11434/api/version", silent).close();
        assertThat(asked).isEmpty();
    }

    @Test
    void aResolverThatNeverAnswersEndsAtTheDeadline() throws Exception {
        HttpExchange x = prepare("http://engine.test:11434/api/version", silent);
        Throwable t = startOn(x, 60_000, System.nanoTime() + SECOND / 4);
        assertThat(t).isInstanceOf(HttpExchange.DeadlineExceeded.class)
                .hasMessage("no address for engine.test before the deadline");
        assertThat(asked).containsExactly("engine.test");
    }

    @Test
    void aResolverThatNeverAnswersEndsAtTheConnectTimeoutWhenThatComesFirst() throws Exception {
        HttpExchange x = prepare("http://engine.test:11434/api/version", silent);
        Throwable t = startOn(x, 250, System.nanoTime() + 60 * SECOND);
        assertThat(t).isInstanceOf(HttpExchange.ConnectTimeout.class)
                .hasMessage("no address for engine.test within 250 ms");
    }

    @Test
    void closeEndsAWaitForTheResolver() throws Exception {
        HttpExchange x = prepare("https://engine.test/v1/models", silent);
        Future<?> f = callers.submit(() -> {
            x.start(60_000, System.nanoTime() + 60 * SECOND);
            return null;
        });
        assertThat(entered.await(HANG_SECONDS, TimeUnit.SECONDS)).as("the lookup started").isTrue();
        assertThat(f).isNotDone();
        x.close(); // as the agent does for exchanges in flight when it stops
        assertThatThrownBy(() -> f.get(HANG_SECONDS, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(SocketException.class).hasMessage("exchange closed");
    }

    @Test
    void lookupsThatNeverReturnAreBoundedAndTheNextOneFailsAtOnce() throws Exception {
        for (int i = 0; i < HttpExchange.MAX_LOOKUPS; i++) {
            HttpExchange x = prepare("http://stuck-" + i + ".test/", silent);
            assertThat(startOn(x, 60_000, System.nanoTime() + SECOND / 10))
                    .isInstanceOf(HttpExchange.DeadlineExceeded.class);
        }
        // Each of those still holds its lookup thread, as a lookup stuck in the system's resolver does.
        assertThat(HttpExchange.lookupsInFlight()).isEqualTo(HttpExchange.MAX_LOOKUPS);
        HttpExchange next = prepare("http://one-more.test/", silent);
        // A minute of deadline: had it waited for a thread, startOn would report a hang instead.
        Throwable t = startOn(next, 60_000, System.nanoTime() + 60 * SECOND);
        assertThat(t).isInstanceOf(UnknownHostException.class)
                .hasMessageContaining("one-more.test: not looked up, " + HttpExchange.MAX_LOOKUPS + " earlier lookups");
        assertThat(asked).doesNotContain("one-more.test");
        assertThat(HttpExchange.lookupsInFlight()).isEqualTo(HttpExchange.MAX_LOOKUPS);
    }

    @Test
    void aNameTheResolverAnswersIsConnectedToAndSentAsTheHost() throws Exception {
        AtomicReference<String> seen = new AtomicReference<>();
        try (FaultServer s = new FaultServer((req, out) -> {
            seen.set(req);
            write(out, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        })) {
            HttpExchange.Resolver loopback = host -> {
                asked.add(host);
                return InetAddress.getLoopbackAddress();
            };
            try (HttpExchange x = prepare("http://engine.test:" + s.port() + "/api/version", loopback)) {
                assertThat(startOn(x, 2000, System.nanoTime() + 10 * SECOND)).isNull();
                assertThat(x.status()).isEqualTo(200);
            }
            assertThat(asked).containsExactly("engine.test");
            assertThat(seen.get()).contains("\r\nHost: engine.test:" + s.port() + "\r\n");
        }
    }

    @Test
    void anIpLiteralIsNotLookedUp() throws Exception {
        try (FaultServer s = new FaultServer((req, out) -> write(out, "HTTP/1.1 204 No Content\r\n\r\n"))) {
            try (HttpExchange x = prepare("http://127.0.0.1:" + s.port() + "/", silent)) {
                assertThat(startOn(x, 2000, System.nanoTime() + 10 * SECOND)).isNull();
                assertThat(x.status()).isEqualTo(204);
            }
        }
        assertThat(asked).isEmpty();
        assertThat(HttpExchange.lookupsInFlight()).isZero();
    }

    @Test
    void anUnknownNameIsAnUnknownHostError() throws Exception {
        HttpExchange.Resolver none = host -> {
            throw new UnknownHostException(host);
        };
        Throwable t = startOn(prepare("http://nowhere.test/", none), 2000, System.nanoTime() + 10 * SECOND);
        assertThat(t).isInstanceOf(UnknownHostException.class).hasMessage("nowhere.test");
    }
}
