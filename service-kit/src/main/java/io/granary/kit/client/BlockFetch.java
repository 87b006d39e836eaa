package io.granary.kit.client;

import io.granary.contracts.block.BlockSlice;
import io.granary.contracts.worker.Worker;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.RequestOptions;

import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

/**
 * One block range asked of its owner. It is sent as soon as it is made (read-ahead makes them early) and its
 * response waits, paused, until {@link #pipeTo} streams it into the client's response. A watchdog fails it when
 * the owner gives nothing for the {@link HedgeDelay} (or, asked again of a busy owner, the owner timeout) while we wait
 * on it: for its head, or for the next bytes of its body (never while we hold it paused ourselves); how long its head
 * took teaches the delay. Made by {@link BlockClient#fetch} and {@link BlockClient#fetchAgain}.
 */
public final class BlockFetch {

    private final Vertx vertx;
    private final Worker owner;
    private final BlockSlice slice;
    private final long timeoutMillis;
    /** Told of a failed pipe, which suspects the owner when the failure was its fault. */
    private final BiConsumer<Worker, Throwable> failed;
    private final Promise<HttpClientResponse> response = Promise.promise();
    private HttpClientRequest request;
    private Promise<Void> piped;
    /** Ended, failed or cancelled: no timer may be armed for it again (a stale one would reset a pooled connection). */
    private boolean finished;
    private long watchdog = -1;
    private long written;

    private BlockFetch(Vertx vertx, Worker owner, BlockSlice slice, long timeoutMillis,
                       BiConsumer<Worker, Throwable> failed) {
        this.vertx = vertx;
        this.owner = owner;
        this.slice = slice;
        this.timeoutMillis = timeoutMillis;
        this.failed = failed;
    }

    /** {@code timeoutMillis}: how long the owner may give nothing (the hedge delay, or longer for a busy one). */
    static BlockFetch start(Vertx vertx, HttpClient client, RequestOptions options, Worker owner, BlockSlice slice,
                            HedgeDelay hedge, long timeoutMillis, BiConsumer<Worker, Throwable> failed) {
        BlockFetch fetch = new BlockFetch(vertx, owner, slice, timeoutMillis, failed);
        fetch.arm();
        client.request(options).compose(request -> {
            fetch.request = request;
            if (fetch.finished) {
                // Cancelled (or timed out) while the connection was being got: never sent, the connection freed.
                request.reset();
                return Future.failedFuture(new CancellationException("fetch of block " + slice.index()
                        + " cancelled before it was sent"));
            }
            // Paused in the turn its head arrives in: composed later (off the event loop), its body could be gone.
            long sent = System.nanoTime();
            return request.send().map(answer -> {
                hedge.firstByte(System.nanoTime() - sent);
                return answer.pause();
            });
        }).onComplete(result -> {
            fetch.disarm();
            if (result.failed()) {
                fetch.response.tryFail(result.cause());
                return;
            }
            HttpClientResponse answer = result.result();
            if (fetch.response.future().isComplete()) {
                answer.request().reset();  // it came after the watchdog gave up on it
                return;
            }
            if (answer.statusCode() != 206) {
                answer.body();  // drain it: the connection goes back to the pool
                answer.resume();
                fetch.response.tryFail(new WorkerCallFailed(fetch.owner, answer.statusCode(), null));
            } else {
                fetch.response.tryComplete(answer);
            }
        });
        return fetch;
    }

    public Worker owner() {
        return owner;
    }

    /** Bytes of the slice written to the client so far: what a fallback must skip. */
    public long written() {
        return written;
    }

    /** Streams the slice into {@code out} (not ending it), with back-pressure; fails on any short or broken body. */
    public Future<Void> pipeTo(HttpServerResponse out) {
        Promise<Void> piped = Promise.promise();
        this.piped = piped;
        piped.future().onFailure(failure -> failed.accept(owner, failure));
        arm();
        response.future().onFailure(failure -> {
            finished = true;
            disarm();
            piped.tryFail(failure);
        }).onSuccess(answer -> {
            disarm();
            answer.exceptionHandler(failure -> {
                finish(out);
                piped.tryFail(failure);
            });
            answer.handler(buffer -> {
                if (finished) {
                    return;  // read before the watchdog gave up on it: the caller reads on elsewhere from written
                }
                disarm();
                long room = slice.length() - written;
                out.write(buffer.length() <= room ? buffer : buffer.getBuffer(0, (int) room));
                written += Math.min(buffer.length(), room);
                if (out.writeQueueFull()) {
                    answer.pause();
                    out.drainHandler(drained -> {
                        arm();
                        answer.resume();
                    });
                } else {
                    arm();
                }
            });
            answer.endHandler(end -> {
                if (finished) {
                    return;
                }
                finish(out);
                if (written == slice.length()) {
                    piped.tryComplete();
                } else {
                    piped.tryFail(new WorkerCallFailed(owner, "sent " + written + " of " + slice.length()
                            + " bytes"));
                }
            });
            answer.resume();
            arm();  // a head and then nothing is as dead as no answer at all
        });
        return piped.future();
    }

    /** Not wanted any more (the client went away, or the response failed before reaching this block). */
    public void cancel() {
        finished = true;
        disarm();
        CancellationException cancelled = new CancellationException("fetch of block " + slice.index() + " cancelled");
        // Failed as cancelled before the reset: the reset's own failure (a stream reset, which looks like the owner's
        // fault) must not reach the pipe and suspect an owner that did nothing wrong.
        if (piped != null) {
            piped.tryFail(cancelled);
        }
        response.tryFail(cancelled);
        response.future().onSuccess(answer -> answer.request().reset());
        if (request != null) {
            request.reset();
        }
    }

    private void finish(HttpServerResponse out) {
        finished = true;
        disarm();
        out.drainHandler(null);  // the response goes on with other blocks; this one must not be resumed by it
    }

    private void arm() {
        disarm();
        if (finished) {
            return;
        }
        watchdog = vertx.setTimer(timeoutMillis, fired -> {
            watchdog = -1;
            finished = true;
            TimeoutException slow = new TimeoutException("owner " + owner.id() + " gave nothing for "
                    + timeoutMillis + " ms");
            response.tryFail(slow);
            if (piped != null) {
                piped.tryFail(slow);
            }
            if (request != null) {
                request.reset(0, slow);
            }
        });
    }

    private void disarm() {
        if (watchdog >= 0) {
            vertx.cancelTimer(watchdog);
            watchdog = -1;
        }
    }
}
