package io.granary.block.rest;

import io.granary.block.fill.BlockSource;
import io.granary.block.store.BlockWriter;
import io.granary.block.store.StoredBlock;
import io.granary.block.store.BlockStore;
import io.granary.contracts.validation.Problem;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Map;
import java.util.Optional;

/**
 * {@code PUT} of a block written through (the gateway pushes each block of a file it wrote to the under-store): the
 * body, at most a block, is streamed to the block's temporary file as it comes, never buffered whole, then
 * committed ({@link BlockWriter}). 201; 400 for an empty body, 413 for one longer than a block, 507 when no level
 * has room or the disk fails.
 */
@ApplicationScoped
class WriteThrough {

    private final BlockStore store;
    private final BlockSource source;
    private final Replies replies;

    WriteThrough(BlockStore store, BlockSource source, Replies replies) {
        this.store = store;
        this.source = source;
        this.replies = replies;
    }

    void put(RoutingContext ctx, BlockRequest request) {
        HttpServerRequest http = ctx.request();
        http.pause();
        ctx.vertx().<Optional<BlockWriter>>executeBlocking(() ->
                store.reserve(request.key(), source.blockSize(request.dataset())), false).onComplete(reserved -> {
            if (reserved.failed()) {
                replies.problem(ctx, reserved.cause());
            } else if (reserved.result().isEmpty()) {
                replies.problem(ctx, insufficientStorage("no cache level has room for the block"));
            } else {
                receive(ctx, request, reserved.result().get());
            }
        });
    }

    private void receive(RoutingContext ctx, BlockRequest request, BlockWriter writer) {
        ctx.vertx().fileSystem().open(writer.temp().toString(), new OpenOptions().setWrite(true))
                .onFailure(e -> {
                    writer.abort();
                    replies.problem(ctx, insufficientStorage("cannot write the block: " + e.getMessage()));
                })
                .onSuccess(file -> new Upload(ctx, request, writer, file).start());
    }

    private static Problem insufficientStorage(String detail) {
        return Problem.of(507, "Insufficient Storage", detail, null);
    }

    /** One request's body on its way into the block's temporary file. */
    private final class Upload {

        private final RoutingContext ctx;
        private final BlockRequest request;
        private final BlockWriter writer;
        private final AsyncFile file;
        /** More bytes came than a block has: the rest is read and dropped, and 413 answered at the end. */
        private boolean tooLong;
        /** The first write to the temporary file that failed: closing the file does not say so. */
        private Throwable writeFailure;
        /** The body ended, or the connection went: committed or aborted once, whichever came first. */
        private boolean finished;

        Upload(RoutingContext ctx, BlockRequest request, BlockWriter writer, AsyncFile file) {
            this.ctx = ctx;
            this.request = request;
            this.writer = writer;
            this.file = file;
        }

        void start() {
            HttpServerRequest http = ctx.request();
            http.exceptionHandler(e -> abandon());
            // The sender gone before its body ended (a gateway killed mid-PUT), perhaps before this began: the room
            // reserved for the block is given back, or no level could take a block again once enough leaked.
            ctx.response().closeHandler(closed -> abandon());
            if (ctx.response().closed()) {
                abandon();
                return;
            }
            http.handler(this::received);
            http.endHandler(end -> {
                if (!finished) {
                    finished = true;
                    file.close().onComplete(closed -> commit(closed.failed() ? closed.cause() : writeFailure));
                }
            });
            http.resume();
        }

        private void abandon() {
            if (!finished) {
                finished = true;
                file.close().onComplete(closed -> writer.abort());
            }
        }

        private void received(Buffer chunk) {
            tooLong = tooLong || !writer.fits(chunk.length());
            if (tooLong) {
                return;
            }
            writer.wrote(chunk.getByteBuf().nioBuffer());
            file.write(chunk).onFailure(failure -> writeFailure = writeFailure == null ? failure : writeFailure);
            if (file.writeQueueFull()) {
                HttpServerRequest http = ctx.request();
                http.pause();
                file.drainHandler(drained -> http.resume());
            }
        }

        private void commit(Throwable writeFailure) {
            if (writeFailure != null || tooLong || writer.length() == 0) {
                writer.abort();
                replies.problem(ctx, writeFailure != null
                        ? insufficientStorage("cannot write the block: " + writeFailure.getMessage())
                        : tooLong ? Problem.of(413, "Content Too Large", "a block of this dataset has at most "
                        + writer.room() + " bytes", "body")
                        : Problem.of(400, "Bad Request", "a block has at least one byte", "body"));
                return;
            }
            ctx.vertx().executeBlocking(() -> writer.commit(request.ref().path(), request.ref().etag()), false)
                    .onComplete(committed -> {
                        if (committed.failed()) {
                            replies.problem(ctx, committed.cause());
                            return;
                        }
                        StoredBlock block = committed.result();
                        replies.json(ctx, 201, Map.of("blockId", block.key().id().toString(), "bytes",
                                block.length(), "level", block.medium().name()));
                    });
        }
    }
}
