package io.granary.block.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.block.config.BlockConfig;
import io.granary.block.fill.BlockFiller;
import io.granary.block.fill.BlockSource;
import io.granary.block.fill.NoSuchBlockException;
import io.granary.block.metrics.ReadStats;
import io.granary.block.store.BlockWriter;
import io.granary.block.store.StoredBlock;
import io.granary.block.store.TieredStore;
import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.ByteRange;
import io.granary.contracts.validation.Problem;
import io.granary.contracts.validation.ValidationException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.io.InputStream;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The hot path: {@code GET}, {@code HEAD} and {@code PUT /blocks/{dataset}/{index}?path=&etag=} as plain Vert.x
 * routes rather than REST resources, so a hit is answered on the event loop with {@code sendfile} (zero-copy, no
 * buffer in the JVM) and a PUT streams to its block file without being buffered whole. Misses fill on a worker
 * thread.
 */
@ApplicationScoped
public class BlockRoutes {

    private static final Logger LOG = Logger.getLogger(BlockRoutes.class);
    private static final int CHUNK = 256 * 1024;

    private final TieredStore store;
    private final BlockFiller filler;
    private final BlockSource source;
    private final ReadStats stats;
    private final ObjectMapper json;
    private final double verifySample;

    BlockRoutes(TieredStore store, BlockFiller filler, BlockSource source, ReadStats stats, ObjectMapper json,
                BlockConfig config) {
        this.store = store;
        this.filler = filler;
        this.source = source;
        this.stats = stats;
        this.json = json;
        this.verifySample = config.verifySample();
    }

    void routes(@Observes Router router) {
        router.get(BlockApi.ROOT + "/:dataset/:index").handler(this::get);
        router.head(BlockApi.ROOT + "/:dataset/:index").handler(this::head);
        router.put(BlockApi.ROOT + "/:dataset/:index").handler(this::put);
    }

    private void get(RoutingContext ctx) {
        BlockRequest request;
        ByteRange range;
        try {
            request = request(ctx);
            range = ByteRange.parse(ctx.request().getHeader("Range"));
        } catch (ValidationException e) {
            problem(ctx, e);
            return;
        }
        if ("true".equals(ctx.request().getHeader(BlockApi.HELD_ONLY_HEADER))) {
            handOver(ctx, request);
            return;
        }
        Optional<StoredBlock> held = store.find(request.key());
        // A sampled hit, or one whose file was written to since it was installed, is checksummed first, off the event
        // loop; the rest go straight to sendfile.
        if (held.isPresent() && (verifySample <= 0 || ThreadLocalRandom.current().nextDouble() >= verifySample)
                && store.sealed(held.get())) {
            stats.hit(request.dataset(), held.get().medium());
            send(ctx, request, range, held.get(), BlockApi.HIT, true);
            return;
        }
        fillThenSend(ctx, request, range, held.orElse(null));
    }

    /**
     * A block another worker takes over (it owns it now): sent whole if held, 404 if not, never filled, and no
     * reader's read (neither a hit nor bytes served).
     */
    private void handOver(RoutingContext ctx, BlockRequest request) {
        Optional<StoredBlock> held = store.peek(request.key());
        if (held.isEmpty() || !store.sealed(held.get())) {  // a file written to since: the taker reads the store
            ctx.response().setStatusCode(404).end();
            return;
        }
        StoredBlock block = held.get();
        ctx.response().putHeader(BlockApi.BLOCK_LENGTH_HEADER, Long.toString(block.length()))
                .sendFile(block.file().toString(), 0, block.length()).onFailure(failure -> {
                    if (!ctx.response().ended()) {
                        ctx.response().reset();  // moved or evicted meanwhile: the taker goes to the store
                    }
                });
    }

    /**
     * The head a GET would answer, the block filled first on a miss as a GET fills it: how the gateway on this node
     * has a block filled before it sends it from its file itself. A body-less route, where a one-block
     * {@code POST /blocks/load} cost a JSON request and answer and a REST resource per cold file. Short-circuit
     * reads are counted by the gateway's reports, as for loads.
     */
    private void head(RoutingContext ctx) {
        BlockRequest request;
        try {
            request = request(ctx);
        } catch (ValidationException e) {
            problem(ctx, e);
            return;
        }
        Optional<StoredBlock> held = store.find(request.key());
        if (held.isPresent() && store.sealed(held.get())) {
            answerHead(ctx.response(), held.get(), BlockApi.HIT);
            return;
        }
        // A file written to since it was installed is checked first: kept if whole, filled again if damaged.
        ctx.vertx().executeBlocking(() -> held.isPresent() && store.verify(held.get())
                ? new Served(held.get(), BlockApi.HIT)
                : filler.fill(request.key(), request.ref()).map(block -> new Served(block, BlockApi.MISS))
                        .orElse(new Served(null, BlockApi.BYPASS)), false).onComplete(filled -> {
            if (filled.failed()) {
                problem(ctx, filled.cause());
            } else if (filled.result().block() == null) {
                ctx.response().putHeader(BlockApi.CACHE_HEADER, BlockApi.BYPASS).end();
            } else {
                answerHead(ctx.response(), filled.result().block(), filled.result().how());
            }
        });
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
                problem(ctx, result.cause());
            } else if (result.result().block() == null) {
                bypass(ctx, request, range);
            } else {
                send(ctx, request, range, result.result().block(), result.result().how(), false);
            }
        });
    }

    private record Served(StoredBlock block, String how) {
    }

    private void send(RoutingContext ctx, BlockRequest request, ByteRange range, StoredBlock block, String how,
                      boolean retryIfGone) {
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
            } else if (retryIfGone && !response.headWritten()) {
                // Moved to a lower level or evicted between lookup and open: look again (and fill if need be).
                LOG.debugf("block %s moved while being sent: %s", block.key(), sent.cause().getMessage());
                response.headers().clear();
                response.setStatusCode(200);
                fillThenSend(ctx, request, range, null);
            } else if (!response.ended()) {
                response.reset();
            }
        });
    }

    /** No level could store the block: stream it from the under-store as it comes, never buffered whole. */
    private void bypass(RoutingContext ctx, BlockRequest request, ByteRange range) {
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
                problem(ctx, failure);
            } else {
                response.reset();  // the client sees a broken transfer, never silently short bytes
            }
        });
    }

    private void put(RoutingContext ctx) {
        BlockRequest request;
        try {
            request = request(ctx);
        } catch (ValidationException e) {
            problem(ctx, e);
            return;
        }
        HttpServerRequest http = ctx.request();
        http.pause();
        ctx.vertx().<Optional<BlockWriter>>executeBlocking(() ->
                store.reserve(request.key(), source.blockSize(request.dataset())), false).onComplete(reserved -> {
            if (reserved.failed()) {
                problem(ctx, reserved.cause());
            } else if (reserved.result().isEmpty()) {
                problem(ctx, Problem.of(507, "Insufficient Storage", "no cache level has room for the block", null));
            } else {
                receive(ctx, request, reserved.result().get());
            }
        });
    }

    private void receive(RoutingContext ctx, BlockRequest request, BlockWriter writer) {
        HttpServerRequest http = ctx.request();
        long[] received = {0};
        ctx.vertx().fileSystem().open(writer.temp().toString(), new OpenOptions().setWrite(true))
                .onFailure(e -> {
                    writer.abort();
                    problem(ctx, Problem.of(507, "Insufficient Storage", "cannot write the block: " + e.getMessage(),
                            null));
                })
                .onSuccess(file -> {
                    http.exceptionHandler(e -> file.close().onComplete(closed -> writer.abort()));
                    http.handler(chunk -> {
                        received[0] += chunk.length();
                        if (received[0] > writer.room()) {
                            return;  // answered 413 at the end
                        }
                        writer.wrote(chunk.getByteBuf().nioBuffer());
                        file.write(chunk);
                        if (file.writeQueueFull()) {
                            http.pause();
                            file.drainHandler(drained -> http.resume());
                        }
                    });
                    http.endHandler(end -> file.close().onComplete(closed ->
                            commit(ctx, request, writer, received[0], closed.failed() ? closed.cause() : null)));
                    http.resume();
                });
    }

    private void commit(RoutingContext ctx, BlockRequest request, BlockWriter writer, long length,
                        Throwable writeFailure) {
        if (writeFailure != null || length == 0 || length > writer.room()) {
            writer.abort();
            problem(ctx, writeFailure != null
                    ? Problem.of(507, "Insufficient Storage", "cannot write the block: " + writeFailure.getMessage(), null)
                    : length == 0 ? Problem.of(400, "Bad Request", "a block has at least one byte", "body")
                    : Problem.of(413, "Content Too Large", "a block of this dataset has at most " + writer.room()
                    + " bytes", "body"));
            return;
        }
        ctx.vertx().executeBlocking(() -> writer.commit(request.ref().path(), request.ref().etag()), false)
                .onComplete(committed -> {
                    if (committed.failed()) {
                        problem(ctx, committed.cause());
                        return;
                    }
                    StoredBlock block = committed.result();
                    respond(ctx, 201, Map.of("blockId", block.key().id().toString(), "bytes", block.length(),
                            "level", block.medium().name()));
                });
    }

    private static BlockRequest request(RoutingContext ctx) {
        return BlockRequest.of(ctx.pathParam("dataset"), ctx.pathParam("index"), ctx.queryParams().get("path"),
                ctx.queryParams().get("etag"));
    }

    private void problem(RoutingContext ctx, Throwable failure) {
        Problem problem = Problems.of(failure);
        if (problem.status() >= 500) {
            LOG.warnf("%s %s: %s", ctx.request().method(), ctx.request().path(), failure.getMessage());
        }
        problem(ctx, problem);
    }

    private void problem(RoutingContext ctx, Problem problem) {
        ctx.response().putHeader("Content-Type", Problem.MEDIA_TYPE);
        respond(ctx, problem.status(), problem);
    }

    private void respond(RoutingContext ctx, int status, Object body) {
        HttpServerResponse response = ctx.response();
        if (response.ended()) {
            return;
        }
        try {
            if (response.headers().get("Content-Type") == null) {
                response.putHeader("Content-Type", "application/json");
            }
            response.setStatusCode(status).end(json.writeValueAsString(body));
        } catch (JsonProcessingException e) {
            response.setStatusCode(500).end();
        }
    }
}
