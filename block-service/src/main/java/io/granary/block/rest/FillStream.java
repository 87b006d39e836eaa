package io.granary.block.rest;

import io.granary.block.fill.Filling;
import io.granary.block.store.StoredBlock;
import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.ByteRange;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A miss sent to its reader while the block is filled: the head goes out when the store's first bytes are written,
 * each byte as soon as it is in the block's temporary file, so the reader never waits for the whole block. The bytes
 * are read from that file (page cache) on the event loop, with the response's back-pressure; a reader that goes
 * away leaves the fill running (the block ends whole or not at all). A fill that fails after the head went out
 * breaks the response (never a short success). One that ends before this reader had a byte hands over to how any
 * read of its outcome is answered ({@link Outcome}).
 */
final class FillStream {

    private static final int CHUNK = 256 * 1024;

    /** How a read is answered from what the fill ended with, when none of its bytes were streamed. */
    interface Outcome {
        /** The block was stored: send it from its file. */
        void stored(StoredBlock block);

        /** No level could store it: read it through. */
        void unstored();

        void failed(Throwable failure);

        /** The head went out: the bytes were sent. */
        void streamed(long bytes);
    }

    private final Context context;
    private final HttpServerResponse response;
    private final Filling filling;
    private final ByteRange range;
    private long blockLength;
    private final Outcome outcome;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Runnable wake = this::schedule;
    private ByteRange.Slice slice;
    private FileChannel bytes;
    private long position;
    private boolean finished;
    /** In {@link #pump} now; {@link #again}: called meanwhile, so it runs once more. Both on the event loop only. */
    private boolean pumping;
    private boolean again;

    FillStream(RoutingContext ctx, Filling filling, ByteRange range, Outcome outcome) {
        this.context = ctx.vertx().getOrCreateContext();
        this.response = ctx.response();
        this.filling = filling;
        this.range = range;
        this.outcome = outcome;
    }

    void start() {
        response.closeHandler(closed -> finish());
        filling.watch(wake);
        schedule();
    }

    private void schedule() {
        if (scheduled.compareAndSet(false, true)) {
            context.runOnContext(ignored -> {
                scheduled.set(false);
                pump();
            });
        }
    }

    /**
     * Sends what the fill has written. A write may signal the response's drain on the spot, which calls this again
     * inside the loop: that call only asks for another turn, or it would send from a position the loop has not
     * moved yet (a chunk twice, the next never).
     */
    private void pump() {
        if (pumping) {
            again = true;
            return;
        }
        pumping = true;
        try {
            do {
                again = false;
                pumpOnce();
            } while (again && !finished);
        } finally {
            pumping = false;
        }
    }

    private void pumpOnce() {
        if (finished) {
            return;
        }
        if (response.closed()) {
            finish();
            return;
        }
        try {
            if (bytes == null && !begin()) {
                return;
            }
            send();
        } catch (IOException | RuntimeException e) {
            finish();
            response.reset();
        }
    }

    /** Starts the response once the fill has bytes; false while it has none, or when its outcome answered instead. */
    private boolean begin() throws IOException {
        // Streamed only when its length is known (the head says it); else the reader waits for the whole block.
        if (filling.written() > 0 && filling.length() > 0) {
            Optional<FileChannel> held = filling.hold();
            if (held.isPresent()) {
                bytes = held.get();
                blockLength = filling.length();
                slice = range == null ? new ByteRange.Slice(0, blockLength) : range.resolve(blockLength);
                if (slice == null) {
                    finish();
                    response.setStatusCode(416).putHeader("Content-Range", "bytes */" + blockLength).end();
                    return false;
                }
                position = slice.offset();
                response.putHeader(BlockApi.CACHE_HEADER, BlockApi.MISS)
                        .putHeader(BlockApi.LEVEL_HEADER, filling.medium().name())
                        .putHeader(BlockApi.BLOCK_LENGTH_HEADER, Long.toString(blockLength))
                        .putHeader("Accept-Ranges", "bytes")
                        .putHeader("Content-Length", Long.toString(slice.length()));
                if (range != null) {
                    response.setStatusCode(206).putHeader("Content-Range", slice.contentRange(blockLength));
                }
                return true;
            }
        }
        if (filling.isEnded()) {
            finish();
            Optional<StoredBlock> block;
            try {
                block = filling.outcome();
            } catch (RuntimeException e) {
                outcome.failed(e);
                return false;
            }
            if (block.isPresent()) {
                outcome.stored(block.get());
            } else {
                outcome.unstored();
            }
        }
        return false;
    }

    private void send() throws IOException {
        long end = slice.offset() + slice.length();
        while (position < end && !response.writeQueueFull()) {
            long available = Math.min(filling.written(), end) - position;
            if (available <= 0) {
                break;
            }
            int n = (int) Math.min(CHUNK, available);
            ByteBuf chunk = Unpooled.buffer(n);
            int read = chunk.writeBytes(bytes, position, n);
            if (read <= 0) {
                break;  // the bytes are being written again (a hand-over that broke off): woken when they are back
            }
            position += read;  // before the write: see pump
            response.write(Buffer.buffer(chunk));
        }
        if (position == end) {
            finish();
            response.end();
            outcome.streamed(slice.length());
        } else if (response.writeQueueFull()) {
            response.drainHandler(drained -> pump());
        } else if (filling.isEnded() && filling.written() < end) {
            throw new IOException("the fill ended after " + filling.written() + " of " + end + " bytes");
        }
    }

    private void finish() {
        if (finished) {
            return;
        }
        finished = true;
        filling.unwatch(wake);
        if (bytes != null) {
            bytes = null;
            filling.release();
        }
    }
}
