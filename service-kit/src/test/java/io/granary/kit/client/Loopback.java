package io.granary.kit.client;

import io.granary.contracts.worker.Worker;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Real HTTP servers on loopback standing in for workers, and waiting on Vert.x from a test thread: for the tests
 * of the block client here and of its callers (this module's test jar).
 */
public final class Loopback {

    /** Far above any answer on loopback: reached only when something is broken. */
    public static final long PATIENCE_SECONDS = 30;

    private Loopback() {
    }

    public static HttpServer server(Vertx vertx, Handler<HttpServerRequest> handler) {
        return await(vertx.createHttpServer().requestHandler(handler).listen(0, "127.0.0.1"));
    }

    /** Waits until the client's liveness check of an owner it gave up on has ended, and so decided on suspicion. */
    static void untilChecked(BlockClient blocks, Worker owner) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENCE_SECONDS);
        while (blocks.checking(owner)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the liveness check of " + owner.id() + " never ended");
            }
            Thread.sleep(10);
        }
    }

    public static String address(HttpServer server) {
        return "http://127.0.0.1:" + server.actualPort();
    }

    public static Worker worker(String id, String address) {
        return new Worker(id, "node-a", address, Map.of(), List.of(), Instant.EPOCH, true, null, 0, 0, 0, null);
    }

    /** A worker whose address answers nothing: a port just freed. */
    public static String deadAddress(Vertx vertx) {
        HttpServer server = server(vertx, request -> { });
        String address = address(server);
        await(server.close());
        return address;
    }

    public static <T> T await(Future<T> future) {
        return await(future.toCompletionStage().toCompletableFuture());
    }

    public static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get(PATIENCE_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError("no outcome in " + PATIENCE_SECONDS + " s", e);
        }
    }

    /** The failure a future ends with; an assertion error if it succeeds. */
    public static Throwable failure(Future<?> future) {
        CompletableFuture<Throwable> cause = new CompletableFuture<>();
        future.onComplete(done -> cause.complete(done.failed() ? done.cause() : null));
        Throwable failed = await(cause);
        if (failed == null) {
            throw new AssertionError("succeeded, but should have failed");
        }
        return failed;
    }
}
