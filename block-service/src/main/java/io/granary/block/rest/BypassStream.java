package io.granary.block.rest;

import io.granary.block.fill.BlockSource;
import io.granary.block.fill.NoSuchBlockException;
import io.granary.block.metrics.ReadStats;
import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.ByteRange;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.InputStream;

/**
 * A block no level could store, read through ({@link BlockApi#BYPASS}): streamed from the under-store as it comes,
 * never buffered whole, so a full cache slows a read but never fails it.
 */
@ApplicationScoped
class BypassStream {

    private static final int CHUNK = 256 * 1024;

    private final BlockSource source;
    private final ReadStats stats;
    private final Replies replies;

    BypassStream(BlockSource source, ReadStats stats, Replies replies) {
        this.source = source;
        this.stats = stats;
        this.replies = replies;
    }

    void send(RoutingContext ctx, BlockRequest request, ByteRange range) {
        HttpServerResponse response = ctx.response();
        ctx.vertx().executeBlocking(() -> {
            long offset = 0;
            long length = -1;
            if (range != null) {
                long blockLength = source.blockLength(request.dataset(), request.ref());
                ByteRange.Slice slice = range.resolve(blockLength);
                if (slice == null) {
                    response.setStatusCode(416).putHeader("Content-Range", "bytes */" + blockLength).end();
                    return null;
                }
                offset = slice.offset();
                length = slice.length();
                response.setStatusCode(206).putHeader("Content-Range", slice.contentRange(blockLength));
            }
            try (InputStream in = source.open(request.dataset(), request.ref(), offset, length)) {
                byte[] chunk = new byte[CHUNK];
                int n = in.readNBytes(chunk, 0, CHUNK);
                if (n == 0 && range == null) {
                    throw new NoSuchBlockException("'" + request.ref().path()
                            + "' has no block " + request.ref().index());
                }
                response.setChunked(true).putHeader(BlockApi.CACHE_HEADER, BlockApi.BYPASS);
                while (n > 0) {
                    // Waiting for each write to reach the socket is the back-pressure of this blocking copy.
                    response.write(Buffer.buffer(n).appendBytes(chunk, 0, n)).toCompletionStage().toCompletableFuture()
                            .join();
                    stats.served(request.dataset(), n, null);
                    n = in.readNBytes(chunk, 0, CHUNK);
                }
            }
            response.end();
            return null;
        }, false).onFailure(failure -> {
            if (!response.headWritten()) {
                replies.problem(ctx, failure);
            } else {
                response.reset();  // the client sees a broken transfer, never silently short bytes
            }
        });
    }
}
