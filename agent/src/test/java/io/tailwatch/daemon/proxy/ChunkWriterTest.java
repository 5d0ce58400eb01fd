package io.tailwatch.daemon.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * The writer's steps against an output stream whose readiness the test sets, as a client socket that
 * takes everything or nothing would: write, flush, then the chunk's callback, never before its bytes
 * are flushed; nothing written while the stream is not ready; a failed write fails the chunk.
 */
class ChunkWriterTest {
    /** An async output stream: records writes and flushes; {@code ready} says whether the client takes bytes now. */
    static final class Out extends ServletOutputStream {
        final ByteArrayOutputStream written = new ByteArrayOutputStream();
        final List<String> steps = new ArrayList<>();
        boolean ready = true;
        IOException failWith;

        @Override
        public boolean isReady() {
            return ready;
        }

        @Override
        public void setWriteListener(WriteListener l) {
        }

        @Override
        public void write(int b) {
            written.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (failWith != null) {
                throw failWith;
            }
            written.write(b, off, len);
            steps.add("write " + len);
        }

        @Override
        public void flush() {
            steps.add("flush");
        }
    }

    /** A chunk callback that records how it ended. */
    static final class Done implements Callback {
        final AtomicReference<String> how = new AtomicReference<>();

        @Override
        public void succeeded() {
            how.set("ok");
        }

        @Override
        public void failed(Throwable x) {
            how.set("failed: " + x.getMessage());
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aChunkIsWrittenFlushedAndOnlyThenCompleted() throws Exception {
        Out out = new Out();
        ChunkWriter w = new ChunkWriter(out, null, null);
        Done done = new Done();
        byte[] b = bytes("xxdata: {}\n\nyy");
        w.offer(b, 2, 10, 1L, done);
        w.onWritePossible();
        assertThat(out.steps).containsExactly("write 10", "flush");
        assertThat(out.written.toString(StandardCharsets.UTF_8)).isEqualTo("data: {}\n\n");
        assertThat(done.how).hasValue("ok");
        // Idle again: the container's call finds nothing to do, the next chunk goes out the same way.
        w.onWritePossible();
        Done second = new Done();
        w.offer(bytes("b"), 0, 1, 2L, second);
        w.onWritePossible();
        assertThat(out.steps).containsExactly("write 10", "flush", "write 1", "flush");
        assertThat(second.how).hasValue("ok");
    }

    @Test
    void aClientThatTakesNothingLeavesTheChunkPendingUntilItIsReady() throws Exception {
        Out out = new Out();
        ChunkWriter w = new ChunkWriter(out, null, null);
        Done done = new Done();
        out.ready = false;
        w.offer(bytes("abc"), 0, 3, 1L, done);
        w.onWritePossible();
        assertThat(out.steps).isEmpty();
        assertThat(done.how).hasValue(null);
        // A second chunk while one is pending is refused: the engine side waits for the callback.
        assertThatThrownBy(() -> w.offer(bytes("d"), 0, 1, 2L, new Done())).isInstanceOf(IllegalStateException.class);
        out.ready = true;
        w.onWritePossible();
        assertThat(out.steps).containsExactly("write 3", "flush");
        assertThat(done.how).hasValue("ok");
    }

    @Test
    void aFailedWriteFailsTheChunkAndMarksTheClientGone() throws Exception {
        Out out = new Out();
        ProxyMeter meter = new ProxyMeter("e", new io.tailwatch.metrics.MetricHub());
        ProxyMeter.Exchange x = meter.begin(System.nanoTime(), "default", true);
        ChunkWriter w = new ChunkWriter(out, x, null);
        Done done = new Done();
        out.failWith = new IOException("broken pipe");
        w.offer(bytes("abc"), 0, 3, 1L, done);
        assertThatThrownBy(w::onWritePossible).isInstanceOf(IOException.class);
        w.fail(out.failWith);
        assertThat(done.how).hasValue("failed: broken pipe");
        assertThat(x.clientGone).isTrue();
    }
}
