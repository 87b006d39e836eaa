package io.granary.gateway.read;

import io.granary.kit.blockfile.OpenBlockFile;
import io.granary.kit.blockfile.ZeroCopy;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * A block its owner on this node is filling, sent from the block's temporary file as the fill writes it: each piece
 * written goes out with {@code sendfile} as soon as it is there, so the client's first bytes leave when the
 * store's arrive and no byte passes through the worker's HTTP or this JVM. Once the temporary file is gone the fill
 * ended: the bytes still missing come from the installed block file, or, when there is none (the fill failed), the
 * send fails with the bytes sent so far known ({@link #sent}) and the caller reads the rest around it. So does a
 * fill that writes nothing for the stall given (the reader's hedge delay).
 */
final class FollowedFill {

    /** How often a file that has not grown is looked at again: a fill writes every 64-256 KiB. */
    private static final long POLL_MILLIS = 1;

    private final Vertx vertx;
    private final HttpServerRequest request;
    private final Path temp;
    private final Supplier<Optional<OpenBlockFile>> installed;
    private final long end;
    private final long stallNanos;
    private final Promise<Void> done = Promise.promise();
    private final long start;
    private FileChannel channel;
    private long position;
    private long grewAt;

    /**
     * @param temp      the temporary file, to be opened here
     * @param installed the block's installed file, once the temporary file is gone
     * @param offset    the first byte of the block to send
     * @param length    how many
     */
    FollowedFill(Vertx vertx, HttpServerRequest request, Path temp, Supplier<Optional<OpenBlockFile>> installed,
                 long offset, long length, Duration stall) {
        this.vertx = vertx;
        this.request = request;
        this.temp = temp;
        this.installed = installed;
        this.start = offset;
        this.position = offset;
        this.end = offset + length;
        this.stallNanos = stall.toNanos();
    }

    /** Bytes of the range sent so far: what a read around a failed fill skips. */
    long sent() {
        return position - start;
    }

    Future<Void> run() {
        try {
            channel = FileChannel.open(temp);
        } catch (IOException e) {
            fromInstalled();  // installed, or thrown away, a moment ago
            return done.future();
        }
        grewAt = System.nanoTime();
        step();
        return done.future();
    }

    private void step() {
        long size;
        try {
            size = channel.size();
        } catch (IOException e) {
            fail(e);
            return;
        }
        long available = Math.min(size, end) - position;
        if (available > 0) {
            grewAt = System.nanoTime();
            ZeroCopy.sendPart(request, channel, position, available).onComplete(sent -> {
                if (sent.failed()) {
                    fail(sent.cause());
                } else {
                    position += available;
                    step();
                }
            });
        } else if (position >= end) {
            close();
            done.tryComplete();
        } else if (!Files.exists(temp)) {
            fromInstalled();  // it ended between the size and the look: what it wrote is all in the channel
        } else if (System.nanoTime() - grewAt > stallNanos) {
            fail(new TimeoutException("the fill wrote nothing for " + Duration.ofNanos(stallNanos).toMillis()
                    + " ms"));
        } else {
            vertx.setTimer(POLL_MILLIS, ignored -> step());
        }
    }

    /** The fill ended: its last bytes, if the channel had not seen them, from the block file it installed. */
    private void fromInstalled() {
        try {
            if (channel != null && channel.size() >= end) {
                step();
                return;
            }
        } catch (IOException e) {
            // read the installed file instead
        }
        close();
        Optional<OpenBlockFile> block = installed.get();
        if (block.isEmpty()) {
            done.tryFail(new IOException("the fill broke off after " + position + " of " + end + " bytes"));
            return;
        }
        long rest = end - position;
        ZeroCopy.send(request, block.get(), position, rest).onComplete(sent -> {
            if (sent.succeeded()) {
                position = end;
                done.tryComplete();
            } else {
                done.tryFail(sent.cause());
            }
        });
    }

    private void fail(Throwable failure) {
        close();
        done.tryFail(failure);
    }

    private void close() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // read-only
            }
            channel = null;
        }
    }
}
