package io.tailwatch.core.logging;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The daemon's log file with a size cap: when a write takes it past {@code maxBytes}, its content is
 * copied to {@code FILE.1} (replacing the previous one) and the file is truncated in place. Copy and
 * truncate rather than rename, because launchd holds the same file open as the process's stderr (for
 * what the JVM itself prints) and keeps appending to it; after a truncation both writers continue at
 * the new end. The log so takes at most about twice {@code maxBytes} on disk.
 */
public final class CappedLogFile extends OutputStream {
    private final Path file;
    private final Path previous;
    private final long maxBytes;
    private final FileOutputStream out;
    private long size;

    public CappedLogFile(Path file, long maxBytes) throws IOException {
        this.file = file;
        this.previous = file.resolveSibling(file.getFileName() + ".1");
        this.maxBytes = maxBytes;
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        this.out = new FileOutputStream(file.toFile(), true);
        this.size = Files.size(file);
    }

    @Override
    public synchronized void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
        if (size + len > maxBytes && size > 0) {
            rotate();
        }
        out.write(b, off, len);
        size += len;
    }

    private void rotate() throws IOException {
        out.flush();
        Files.copy(file, previous, StandardCopyOption.REPLACE_EXISTING);
        out.getChannel().truncate(0);
        size = 0;
    }

    @Override
    public synchronized void flush() throws IOException {
        out.flush();
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
