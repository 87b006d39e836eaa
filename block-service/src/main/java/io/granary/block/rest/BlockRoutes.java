package io.granary.block.rest;

import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.ByteRange;
import io.granary.contracts.validation.ValidationException;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * The hot path: {@code GET}, {@code HEAD} and {@code PUT /blocks/{dataset}/{index}?path=&etag=} as plain Vert.x
 * routes rather than REST resources, so a hit is answered on the event loop with {@code sendfile} and a PUT streams
 * to its block file without being buffered whole. Each request is checked here and handed to what serves it: a
 * reader's read to {@link CachedReads}, another worker's hand-over to {@link HandOver}, a write to
 * {@link WriteThrough}.
 */
@ApplicationScoped
public class BlockRoutes {

    private final CachedReads reads;
    private final HandOver handOver;
    private final WriteThrough writes;
    private final Replies replies;

    BlockRoutes(CachedReads reads, HandOver handOver, WriteThrough writes, Replies replies) {
        this.reads = reads;
        this.handOver = handOver;
        this.writes = writes;
        this.replies = replies;
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
            replies.problem(ctx, e);
            return;
        }
        if ("true".equals(ctx.request().getHeader(BlockApi.HELD_ONLY_HEADER))) {
            handOver.send(ctx, request);
        } else {
            reads.get(ctx, request, range);
        }
    }

    private void head(RoutingContext ctx) {
        BlockRequest request;
        try {
            request = request(ctx);
        } catch (ValidationException e) {
            replies.problem(ctx, e);
            return;
        }
        reads.head(ctx, request);
    }

    private void put(RoutingContext ctx) {
        BlockRequest request;
        try {
            request = request(ctx);
        } catch (ValidationException e) {
            replies.problem(ctx, e);
            return;
        }
        writes.put(ctx, request);
    }

    private static BlockRequest request(RoutingContext ctx) {
        return BlockRequest.of(ctx.pathParam("dataset"), ctx.pathParam("index"), ctx.queryParams().get("path"),
                ctx.queryParams().get("etag"), ctx.queryParams().get("size"));
    }
}
