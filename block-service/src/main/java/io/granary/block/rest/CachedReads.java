package io.granary.block.rest;

import io.granary.block.config.BlockConfig;
import io.granary.block.fill.BlockFiller;
import io.granary.block.fill.Filling;
import io.granary.block.metrics.ReadStats;
import io.granary.block.store.StoredBlock;
import io.granary.block.store.BlockStore;
import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.ByteRange;
import io.vertx.core.Context;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A reader's {@code GET} and {@code HEAD} of a block: a hit is sent from its file on the event loop with
 * {@code sendfile} (zero-copy, no buffer in the JVM). A miss is filled on a worker thread ({@link BlockFiller}) and
 * sent as the fill writes it ({@link FillStream}), or streamed from the under-store when no level can store it
 * ({@link BypassStream}); a sampled hit, and one whose file was written to since it was installed, is checked
 * against its checksum there first.
 */
@ApplicationScoped
class CachedReads {

    private static final Logger LOG = Logger.getLogger(CachedReads.class);

    private final BlockStore store;
    private final BlockFiller filler;
    private final BypassStream bypass;
    private final ReadStats stats;
    private final Replies replies;
    private final double verifySample;

    CachedReads(BlockStore store, BlockFiller filler, BypassStream bypass, ReadStats stats, Replies replies,
                BlockConfig config) {
        this.store = store;
        this.filler = filler;
        this.bypass = bypass;
        this.stats = stats;
        this.replies = replies;
        this.verifySample = config.verifySample();
    }

    void get(RoutingContext ctx, BlockRequest request, ByteRange range) {
        Optional<StoredBlock> held = store.find(request.key());
        // A sampled hit, or one whose file was written to since it was installed, is checksummed first, off the event
        // loop; the rest go straight to sendfile.
        if (held.isPresent() && (verifySample <= 0 || ThreadLocalRandom.current().nextDouble() >= verifySample)
                && store.sealed(held.get())) {
            stats.hit(request.dataset(), held.get().medium());
            send(ctx, request, range, held.get(), BlockApi.HIT, () -> stream(ctx, request, range));
            return;
        }
        if (held.isEmpty()) {
            stream(ctx, request, range);
        } else {
            fillThenSend(ctx, request, range, held.get());
        }
    }

    /** A miss streamed as its fill writes it (joining the fill in flight), or answered from how the fill ended. */
    private void stream(RoutingContext ctx, BlockRequest request, ByteRange range) {
        Filling filling = filler.filling(request.key(), request.ref(),
                fill -> ctx.vertx().executeBlocking(() -> {
                    fill.run();
                    return null;
                }, false));
        new FillStream(ctx, filling, range, new FillStream.Outcome() {
            @Override
            public void stored(StoredBlock block) {
                stats.miss(request.dataset(), true);
                send(ctx, request, range, block, BlockApi.MISS, () -> bypass.send(ctx, request, range));
            }

            @Override
            public void unstored() {
                stats.miss(request.dataset(), false);
                bypass.send(ctx, request, range);
            }

            @Override
            public void failed(Throwable failure) {
                replies.problem(ctx, failure);
            }

            @Override
            public void streamed(long bytes) {
                stats.miss(request.dataset(), true);
                stats.served(request.dataset(), bytes, filling.medium());
            }
        }).start();
    }

    /**
     * The head a GET would answer, the block filled first on a miss as a GET fills it: how the gateway on this node
     * has a block filled before it sends it from its file itself. A body-less route, where a one-block
     * {@code POST /blocks/fill} cost a JSON request and answer and a REST resource per cold file. Short-circuit
     * reads are counted by the gateway's reports, as for batch fills.
     */
    void head(RoutingContext ctx, BlockRequest request) {
        // The read is counted once the block is held: a HEAD that cannot store it is followed by the reader's GET,
        // which counts it; counted twice, a block read through would look read more often than those held.
        Optional<StoredBlock> held = store.peek(request.key());
        if (held.isPresent() && store.sealed(held.get())) {
            store.find(request.key());
            answerHead(ctx.response(), held.get(), BlockApi.HIT);
            return;
        }
        if (held.isEmpty() && "true".equals(ctx.request().getHeader(BlockApi.FOLLOW_HEADER))) {
            follow(ctx, request);
            return;
        }
        // A file written to since it was installed is checked first: kept if whole, filled again if damaged.
        ctx.vertx().executeBlocking(() -> held.isPresent() && store.verify(held.get())
                ? new Served(held.get(), BlockApi.HIT)
                : filler.fill(request.key(), request.ref()).map(block -> new Served(block, BlockApi.MISS))
                        .orElse(new Served(null, BlockApi.BYPASS)), false).onComplete(filled -> {
            if (filled.failed()) {
                replies.problem(ctx, filled.cause());
            } else if (filled.result().block() == null) {
                ctx.response().putHeader(BlockApi.CACHE_HEADER, BlockApi.BYPASS).end();
            } else {
                store.find(request.key());
                answerHead(ctx.response(), filled.result().block(), filled.result().how());
            }
        });
    }

    /**
     * A miss for a reader on this node that reads the block's file itself: answered as soon as the fill has its
     * first bytes, with the temporary file they are in ({@link BlockApi#FILLING_HEADER}), which the reader follows
     * as it grows, or, had the fill ended by then, as a HEAD answers.
     */
    private void follow(RoutingContext ctx, BlockRequest request) {
        Filling filling = filler.filling(request.key(), request.ref(), fill -> ctx.vertx().executeBlocking(() -> {
            fill.run();
            return null;
        }, false));
        Context context = ctx.vertx().getOrCreateContext();
        AtomicBoolean answered = new AtomicBoolean();
        Runnable[] watcher = new Runnable[1];
        watcher[0] = () -> {
            String temp = filling.tempName();
            boolean streaming = temp != null && filling.written() > 0 && filling.length() > 0;
            if ((streaming || filling.isEnded()) && answered.compareAndSet(false, true)) {
                filling.unwatch(watcher[0]);
                context.runOnContext(ignored -> answerFollow(ctx, request, filling, streaming ? temp : null));
            }
        };
        filling.watch(watcher[0]);
        watcher[0].run();
    }

    private void answerFollow(RoutingContext ctx, BlockRequest request, Filling filling, String temp) {
        // Counted as a HEAD's fill is: the reader reports its read of the file, a miss, once it has sent it.
        if (temp != null) {
            store.find(request.key());
            ctx.response().putHeader(BlockApi.CACHE_HEADER, BlockApi.MISS)
                    .putHeader(BlockApi.LEVEL_HEADER, filling.medium().name())
                    .putHeader(BlockApi.BLOCK_LENGTH_HEADER, Long.toString(filling.length()))
                    .putHeader(BlockApi.FILLING_HEADER, temp)
                    .end();
            return;
        }
        Optional<StoredBlock> block;
        try {
            block = filling.outcome();
        } catch (RuntimeException e) {
            replies.problem(ctx, e);
            return;
        }
        if (block.isEmpty()) {
            ctx.response().putHeader(BlockApi.CACHE_HEADER, BlockApi.BYPASS).end();
        } else {
            store.find(request.key());
            answerHead(ctx.response(), block.get(), BlockApi.MISS);
        }
    }

    private static void answerHead(HttpServerResponse response, StoredBlock block, String how) {
        response.putHeader(BlockApi.CACHE_HEADER, how)
                .putHeader(BlockApi.LEVEL_HEADER, block.medium().name())
                .putHeader(BlockApi.BLOCK_LENGTH_HEADER, Long.toString(block.length()))
                .putHeader("Content-Length", Long.toString(block.length()))
                .putHeader("Accept-Ranges", "bytes")
                .end();
    }

    private void fillThenSend(RoutingContext ctx, BlockRequest request, ByteRange range, StoredBlock toVerify) {
        ctx.vertx().<Served>executeBlocking(() -> {
            if (toVerify != null && store.verify(toVerify)) {
                stats.hit(request.dataset(), toVerify.medium());
                return new Served(toVerify, BlockApi.HIT);
            }
            Optional<StoredBlock> block = filler.fill(request.key(), request.ref());
            stats.miss(request.dataset(), block.isPresent());
            return new Served(block.orElse(null), block.isPresent() ? BlockApi.MISS : BlockApi.BYPASS);
        }, false).onComplete(result -> {
            if (result.failed()) {
                replies.problem(ctx, result.cause());
            } else if (result.result().block() == null) {
                bypass.send(ctx, request, range);
            } else {
                send(ctx, request, range, result.result().block(), result.result().how(),
                        () -> bypass.send(ctx, request, range));
            }
        });
    }

    /** The block a read is answered with, and how it was had ({@link BlockApi#CACHE_HEADER}); null: not stored. */
    private record Served(StoredBlock block, String how) {
    }

    /**
     * Sends the block from its file; {@code ifGone} answers instead when the file moved to a lower level or was
     * evicted between lookup and open (a hit looks again, a just-filled block is read through: the reader is never
     * refused a block because the cache was busy).
     */
    private void send(RoutingContext ctx, BlockRequest request, ByteRange range, StoredBlock block, String how,
                      Runnable ifGone) {
        HttpServerResponse response = ctx.response();
        ByteRange.Slice slice = range == null ? new ByteRange.Slice(0, block.length()) : range.resolve(block.length());
        response.putHeader(BlockApi.CACHE_HEADER, how)
                .putHeader(BlockApi.LEVEL_HEADER, block.medium().name())
                .putHeader(BlockApi.BLOCK_LENGTH_HEADER, Long.toString(block.length()))
                .putHeader("Accept-Ranges", "bytes");
        if (slice == null) {
            response.setStatusCode(416).putHeader("Content-Range", "bytes */" + block.length()).end();
            return;
        }
        if (range != null) {
            response.setStatusCode(206).putHeader("Content-Range", slice.contentRange(block.length()));
        }
        response.sendFile(block.file().toString(), slice.offset(), slice.length()).onComplete(sent -> {
            if (sent.succeeded()) {
                stats.served(request.dataset(), slice.length(), block.medium());
            } else if (!response.headWritten()) {
                LOG.debugf("block %s moved while being sent: %s", block.key(), sent.cause().getMessage());
                response.headers().clear();
                response.setStatusCode(200);
                ifGone.run();
            } else if (!response.ended()) {
                response.reset();
            }
        });
    }
}
