package io.granary.gateway.read;

import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.BlockSlice;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.worker.Worker;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.RequestOptions;

import java.net.URI;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;

/**
 * One block range asked of its owner. It is sent as soon as it is made (read-ahead makes them early) and its
 * response waits, paused, until {@link #pipeTo} streams it into the client's response. A watchdog fails it when
 * the owner gives nothing for {@code timeout} while we wait on it: for its head, or for the next bytes of its body
 * (never while we hold it paused ourselves).
 */
final class BlockFetch {

    private final Vertx vertx;
    private final Worker owner;
    private final BlockSlice slice;
    private final long timeoutMillis;
    private final Promise<HttpClientResponse> response = Promise.promise();
    private HttpClientRequest request;
    private Promise<Void> piped;
    /** Ended, failed or cancelled: no timer may be armed for it again (a stale one would reset a pooled connection). */
    private boolean finished;
    private long watchdog = -1;
    private long written;

    private BlockFetch(Vertx vertx, Worker owner, BlockSlice slice, long timeoutMillis) {
        this.vertx = vertx;
        this.owner = owner;
        this.slice = slice;
        this.timeoutMillis = timeoutMillis;
    }

    static BlockFetch start(Vertx vertx, HttpClient client, Worker owner, String dataset, FileInfo file,
                            BlockSlice slice, long timeoutMillis, String authorization) {
        BlockFetch fetch = new BlockFetch(vertx, owner, slice, timeoutMillis);
        URI base = URI.create(owner.address());
        String uri = BlockApi.blockUri(dataset, slice.index(), file.path(), file.etag());
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET)
                .setHost(base.getHost()).setPort(base.getPort() < 0 ? 80 : base.getPort()).setURI(uri)
                .putHeader("Authorization", authorization)
                .putHeader("Range", "bytes=" + slice.offsetInBlock() + '-' + (slice.offsetInBlock() + slice.length() - 1));
        fetch.arm();
        client.request(options).compose(request -> {
            fetch.request = request;
            if (fetch.finished) {
                // Cancelled (or timed out) while the connection was being got: never sent, the connection freed.
                request.reset();
                return Future.failedFuture(new CancellationException("fetch of block " + slice.index()
                        + " cancelled before it was sent"));
            }
            return request.send();
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
            answer.pause();
            if (answer.statusCode() != 206) {
                answer.body();  // drain it: the connection goes back to the pool
                answer.resume();
                fetch.response.tryFail(new OwnerRefused(answer.statusCode()));
            } else {
                fetch.response.tryComplete(answer);
            }
        });
        return fetch;
    }

    Worker owner() {
        return owner;
    }

    /** Bytes of the slice written to the client so far: what a fallback must skip. */
    long written() {
        return written;
    }

    /** Streams the slice into {@code out} (not ending it), with back-pressure; fails on any short or broken body. */
    Future<Void> pipeTo(HttpServerResponse out) {
        Promise<Void> piped = Promise.promise();
        this.piped = piped;
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
                finish(out);
                if (written == slice.length()) {
                    piped.tryComplete();
                } else {
                    piped.tryFail(new IllegalStateException("owner " + owner.id() + " sent " + written + " of "
                            + slice.length() + " bytes"));
                }
            });
            answer.resume();
            arm();  // a head and then nothing is as dead as no answer at all
        });
        return piped.future();
    }

    /** Not wanted any more (the client went away, or the response failed before reaching this block). */
    void cancel() {
        finished = true;
        disarm();
        response.tryFail(new CancellationException("fetch of block " + slice.index() + " cancelled"));
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

    /** The owner answered, but not with the range: a 4xx says the request is wrong, a 5xx that the owner is. */
    static final class OwnerRefused extends RuntimeException {

        private final int status;

        OwnerRefused(int status) {
            super("owner answered " + status);
            this.status = status;
        }

        int status() {
            return status;
        }
    }
}
