package io.granary.kit.client;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.BlockFillRequest;
import io.granary.contracts.block.BlockFillResult;
import io.granary.contracts.block.BlockRef;
import io.granary.contracts.block.BlockSlice;
import io.granary.contracts.block.LocalReads;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.plan.PlanProgress;
import io.granary.contracts.plan.WorkerPlan;
import io.granary.contracts.worker.DrainStatus;
import io.granary.contracts.worker.Medium;
import io.granary.contracts.worker.Worker;
import io.granary.kit.config.ReadConfig;
import io.granary.kit.security.ClusterCredential;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.ConnectTimeoutException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.streams.ReadStream;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The one client of a worker's block API ({@code contracts} {@link BlockApi}), for every service that calls it: one
 * Vert.x HTTP client, the cluster credential on every call, a time limit on every call, and the owner of a block
 * being read suspected ({@link Suspects}) when it fails the read by its own fault, so placement passes it over.
 * A call that does not get the answer it asked for fails with {@link WorkerCallFailed}, or with the connection's
 * own failure.
 */
@ApplicationScoped
public class BlockClient implements AutoCloseable {

    /**
     * A worker on a live node accepts a connection in a network round trip: its kernel answers, however busy the JVM
     * is. A node cut off answers nothing, and every first read from it (each client's, each worker's hand-over)
     * waits this long before it goes around it.
     */
    static final int CONNECT_TIMEOUT_MILLIS = 500;
    /**
     * A worker asked for a block it may hold (a hand-over) answers from its files or not at all: it never fills for
     * it. The asker's reader waits on this with its own hedge delay (1-1.5 s) running: a cut peer waited 2 s here
     * made the reader give up on the asker too and read the store itself. A hand-over given up is a store read.
     */
    static final Duration HELD_ONLY_TIMEOUT = Duration.ofMillis(500);
    /** How long a worker's liveness check (`/q/health/live`) is waited for before the worker is suspected. */
    static final Duration LIVENESS_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration RECHECK_EVERY = Duration.ofSeconds(1);
    /** How long a liveness check's answer stands for every read that asks; shorter than {@link #RECHECK_EVERY}. */
    private static final Duration CHECK_FRESH = Duration.ofMillis(500);
    /** Small calls: which blocks are held, a report of reads, a drain started or given up. */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(3);
    /** A batch nobody waits on (a preload's, a hand-over's) is answered once filled: large blocks from a slow store. */
    static final Duration BATCH_TIMEOUT = Duration.ofMinutes(10);
    /** A write-through block the worker takes nothing of for this long is given up: it fills on first read instead. */
    static final Duration PUT_IDLE_TIMEOUT = Duration.ofSeconds(30);
    private static final String LIVENESS = "/q/health/live";
    /** Owners a read found silent, by {@link #busy}'s verdict: "busy" ones were asked again, "gone" ones read around. */
    static final String SILENT_OWNERS = "granary.read.silent.owners";
    private static final TypeReference<Map<String, Long>> HELD = new TypeReference<>() {
    };

    private final Vertx vertx;
    private final ObjectMapper json;
    private final String authorization;
    private final Duration ownerTimeout;
    private final HedgeDelay hedge;
    private final Suspects suspects;
    private final long recheck;
    /** Block bytes: a response may wait paused behind another for as long as its reader takes, so no idle limit. */
    private final HttpClient reads;
    /**
     * Everything else. Idle on the connection, either way: a request's own idle timeout counts only response bytes,
     * and a write-through block takes a while to send before the worker answers.
     */
    private final HttpClient calls;
    /**
     * Liveness checks, each on a new connection: a cut node then fails it by the connect timeout, where a connection
     * kept from before would wait the whole {@link #LIVENESS_TIMEOUT} (on top of a reader's hedge delay).
     */
    private final HttpClient checks;
    /**
     * The liveness check per worker id, running or just answered: a silent owner's probe, the reader's {@link #busy}
     * and the recheck of a suspect ask it once between them.
     */
    private final Map<String, Future<Boolean>> checking = new ConcurrentHashMap<>();
    private final Counter busyOwners;
    private final Counter goneOwners;

    @Inject
    BlockClient(Vertx vertx, ObjectMapper json, ClusterCredential cluster, ReadConfig read, Suspects suspects,
                MeterRegistry metrics) {
        this(vertx, json, cluster.authorization(), read.ownerTimeout(),
                new HedgeDelay(read.hedgeMin(), read.hedgeMax()), suspects, metrics);
    }

    public BlockClient(Vertx vertx, ObjectMapper json, String authorization, Duration ownerTimeout, HedgeDelay hedge,
                       Suspects suspects, MeterRegistry metrics) {
        this.vertx = vertx;
        this.busyOwners = metrics.counter(SILENT_OWNERS, "verdict", "busy");
        this.goneOwners = metrics.counter(SILENT_OWNERS, "verdict", "gone");
        this.json = json;
        this.authorization = authorization;
        this.ownerTimeout = ownerTimeout;
        this.hedge = hedge;
        this.suspects = suspects;
        this.reads = vertx.createHttpClient(new HttpClientOptions().setMaxPoolSize(64).setKeepAlive(true)
                .setTcpNoDelay(true).setConnectTimeout(CONNECT_TIMEOUT_MILLIS));
        this.calls = vertx.createHttpClient(new HttpClientOptions().setMaxPoolSize(16).setKeepAlive(true)
                .setTcpNoDelay(true).setConnectTimeout(CONNECT_TIMEOUT_MILLIS)
                .setIdleTimeout((int) PUT_IDLE_TIMEOUT.toSeconds()));
        this.checks = vertx.createHttpClient(new HttpClientOptions().setMaxPoolSize(16).setKeepAlive(false)
                .setConnectTimeout(CONNECT_TIMEOUT_MILLIS));
        // A restarted worker is back in seconds, the metadata-service's view of it a heartbeat or two later.
        this.recheck = vertx.setPeriodic(RECHECK_EVERY.toMillis(), tick -> suspects.silent().forEach(this::recheck));
    }

    /**
     * A byte range of a block, asked for now ({@code GET} with {@code Range}); its answer waits, paused, until the
     * fetch is piped into a response. A miss fills it on the owner.
     */
    public BlockFetch fetch(Worker owner, String dataset, FileInfo file, BlockSlice slice) {
        return BlockFetch.start(vertx, reads, rangeOptions(owner, dataset, file, slice), owner, slice, hedge,
                hedge.millis(), this::suspectOnFault);
    }

    /**
     * The range asked again of an owner {@link #busy} on it, waited on for the owner timeout: its fill goes on, and
     * this joins it.
     */
    public BlockFetch fetchAgain(Worker owner, String dataset, FileInfo file, BlockSlice slice) {
        return BlockFetch.start(vertx, reads, rangeOptions(owner, dataset, file, slice), owner, slice, hedge,
                ownerTimeout.toMillis(), this::suspectOnFault);
    }

    /**
     * Whether a read failed on a busy owner, not a gone one: it gave nothing for as long as it was waited on (or
     * closed on it), and answers its liveness check (on a new connection, so a cut node fails it by the connect
     * timeout). Its fill waits on the store or on its node's cores, and goes on: ask it again. In a cold fan-out every
     * node asks one owner for the same block at once; reading the store instead fetched it once more per node.
     */
    public Future<Boolean> busy(Worker owner, Throwable failure) {
        if (!silent(failure)) {
            return Future.succeededFuture(false);
        }
        return alive(owner).onSuccess(busy -> (busy ? busyOwners : goneOwners).increment());
    }

    /** How long a read waits on an owner that gives nothing, learned from the owners' recent answers. */
    public Duration hedgeDelay() {
        return hedge.delay();
    }

    /**
     * A whole block ({@code GET}), exactly {@code length} bytes; a miss fills it on the owner. An owner {@link #busy}
     * on it is asked again, and waited on for the owner timeout.
     */
    public Future<Buffer> block(Worker owner, String dataset, FileInfo file, int index, int length) {
        return block(owner, dataset, file, index, length, hedge.millis()).recover(failure -> busy(owner, failure)
                .compose(busy -> busy ? block(owner, dataset, file, index, length, ownerTimeout.toMillis())
                        : Future.failedFuture(failure)));
    }

    private Future<Buffer> block(Worker owner, String dataset, FileInfo file, int index, int length, long idleMillis) {
        RequestOptions options = options(owner, HttpMethod.GET, BlockApi.blockUri(dataset, index, file.path(),
                file.etag(), file.size())).setIdleTimeout(idleMillis);
        return firstByteTimed(options, response -> response.body().compose(body -> {
            if (response.statusCode() != 200) {
                return Future.failedFuture(new WorkerCallFailed(owner, response.statusCode(), body));
            }
            if (body.length() != length) {
                return Future.failedFuture(new WorkerCallFailed(owner, "sent " + body.length() + " of " + length
                        + " bytes of block " + index + " of " + file.path()));
            }
            return Future.succeededFuture(body);
        })).onFailure(failure -> suspectOnFault(owner, failure));
    }

    /**
     * A byte range of a block, whole in memory ({@code GET} with {@code Range}): for a reader that wants the bytes
     * now, not the block. A miss is streamed by the owner as it fills the block, so the range comes as soon as the
     * store's bytes for it do.
     */
    public Future<Buffer> range(Worker owner, String dataset, FileInfo file, BlockSlice slice) {
        RequestOptions options = rangeOptions(owner, dataset, file, slice).setIdleTimeout(hedge.millis());
        return firstByteTimed(options, response -> response.body().compose(body -> {
            if (response.statusCode() != 206) {
                return Future.failedFuture(new WorkerCallFailed(owner, response.statusCode(), body));
            }
            if (body.length() != slice.length()) {
                return Future.failedFuture(new WorkerCallFailed(owner, "sent " + body.length() + " of "
                        + slice.length() + " bytes of block " + slice.index() + " of " + file.path()));
            }
            return Future.succeededFuture(body);
        })).onFailure(failure -> suspectOnFault(owner, failure));
    }

    /**
     * Has the owner on this node hold the block, as {@link #fill}, but on a miss answered as soon as the fill has its
     * first bytes: the reader then follows the block's temporary file as it grows ({@link Following#filling}), and
     * never waits for the whole block.
     */
    public Future<Following> follow(Worker owner, String dataset, FileInfo file, int index) {
        RequestOptions options = options(owner, HttpMethod.HEAD, BlockApi.blockUri(dataset, index, file.path(),
                file.etag(), file.size())).putHeader(BlockApi.FOLLOW_HEADER, "true")
                .setIdleTimeout(hedge.millis());
        return firstByteTimed(options, response -> response.body().compose(none -> {
            if (response.statusCode() != 200) {
                return Future.failedFuture(new WorkerCallFailed(owner, response.statusCode(), none));
            }
            String level = response.getHeader(BlockApi.LEVEL_HEADER);
            String length = response.getHeader(BlockApi.BLOCK_LENGTH_HEADER);
            return Future.succeededFuture(new Following(response.getHeader(BlockApi.CACHE_HEADER),
                    level == null ? null : Medium.valueOf(level), length == null ? -1 : Long.parseLong(length),
                    response.getHeader(BlockApi.FILLING_HEADER)));
        })).onFailure(failure -> suspectOnFault(owner, failure));
    }

    /**
     * How an owner answered {@link #follow}: {@code how} is {@link BlockApi#HIT} or {@link BlockApi#MISS} (held:
     * read its block file, unless {@code filling} names the temporary file it is being filled in, in the level of
     * {@code level}) or {@link BlockApi#BYPASS} (no level could store it: read it another way).
     */
    public record Following(String how, Medium level, long blockLength, String filling) {

        public boolean bypassed() {
            return BlockApi.BYPASS.equals(how);
        }
    }

    /**
     * Has the owner hold the block: its {@code HEAD}, which fills it first on a miss (at once, not queued behind
     * preloads), with no body either way, so it can then be read from its file on the owner's node.
     *
     * @return whether the owner holds it now (false: it read it through without storing it, no level had room)
     */
    public Future<Boolean> fill(Worker owner, String dataset, FileInfo file, int index) {
        RequestOptions options = options(owner, HttpMethod.HEAD, BlockApi.blockUri(dataset, index, file.path(),
                file.etag(), file.size())).setIdleTimeout(ownerTimeout.toMillis());
        return exchange(reads, options, response -> response.body().compose(none -> response.statusCode() == 200
                        ? Future.succeededFuture(!BlockApi.BYPASS.equals(response.getHeader(BlockApi.CACHE_HEADER)))
                        : Future.failedFuture(new WorkerCallFailed(owner, response.statusCode(), none))))
                .onFailure(failure -> suspectOnFault(owner, failure));
    }

    /**
     * The block's bytes from a worker that holds it already ({@code X-Granary-Held-Only}: it never fills for
     * this), as a stream the caller reads and closes; empty when it does not hold it.
     */
    public Future<Optional<HandedBlock>> heldBlock(Worker peer, String dataset, BlockRef block) {
        RequestOptions options = options(peer, HttpMethod.GET, BlockApi.blockUri(dataset, block.index(), block.path(),
                block.etag())).putHeader(BlockApi.HELD_ONLY_HEADER, "true")
                .setIdleTimeout(HELD_ONLY_TIMEOUT.toMillis());
        return exchange(reads, options, response -> {
            if (response.statusCode() != 200) {
                return response.body().map(ignored -> Optional.<HandedBlock>empty());
            }
            String crc32c = response.getHeader(BlockApi.CRC32C_HEADER);
            try {
                return Future.succeededFuture(Optional.of(new HandedBlock(BodyStream.of(response), crc32c == null
                        ? OptionalInt.empty() : OptionalInt.of(Integer.parseUnsignedInt(crc32c)))));
            } catch (NumberFormatException e) {
                return Future.failedFuture(new WorkerCallFailed(peer, "sent a checksum that is no number: "
                        + crc32c));
            }
        }).onFailure(failure -> suspectOnFault(peer, failure));
    }

    /**
     * A batch of blocks the worker should hold ({@code POST /blocks/fill}), answered once it holds them: within
     * the owner timeout when a reader waits on them, within {@link #BATCH_TIMEOUT} otherwise.
     */
    public Future<BlockFillResult> fill(Worker owner, BlockFillRequest batch) {
        Duration timeout = batch.forReader() ? ownerTimeout : BATCH_TIMEOUT;
        return call(owner, options(owner, HttpMethod.POST, BlockApi.FILL).setIdleTimeout(timeout.toMillis()),
                batch, 200).map(body -> read(body, BlockFillResult.class));
    }

    /**
     * Writes a block through into the worker's cache ({@code PUT}): {@code body}, its {@code length} bytes, is
     * streamed to it. Completes once the worker answered and the body is done with, so its source may be closed.
     */
    public Future<Void> put(Worker owner, String dataset, FileInfo file, int index, ReadStream<Buffer> body,
                            long length) {
        RequestOptions options = options(owner, HttpMethod.PUT, BlockApi.blockUri(dataset, index, file.path(),
                file.etag(), file.size())).putHeader("Content-Length", Long.toString(length));
        return calls.request(options).compose(request -> {
            // A worker that dies answers (a reset) before the pipe's last read; the body's source must outlive both.
            Future<Void> piped = body.pipeTo(request);
            Future<Void> answered = request.response().compose(response -> response.body().compose(answer ->
                    response.statusCode() == 201 ? Future.<Void>succeededFuture()
                            : Future.failedFuture(new WorkerCallFailed(owner, response.statusCode(), answer))));
            return Future.join(piped, answered).transform(both -> answered);
        });
    }

    /** Reports the reads a gateway served from the worker's block files ({@code POST /blocks/{dataset}/reads}). */
    public Future<Void> reportReads(Worker worker, String dataset, LocalReads reads) {
        return call(worker, options(worker, HttpMethod.POST, BlockApi.readsPath(dataset))
                .setIdleTimeout(CALL_TIMEOUT.toMillis()), reads, 204).mapEmpty();
    }

    /** Which of these block ids the worker holds, with their lengths ({@code POST /blocks/{dataset}/held}). */
    public Future<Map<String, Long>> held(Worker worker, String dataset, List<String> blockIds) {
        return call(worker, options(worker, HttpMethod.POST, BlockApi.heldPath(dataset))
                .setTimeout(CALL_TIMEOUT.toMillis()), blockIds, 200).map(body -> read(body, HELD));
    }

    /** Gives the worker its part of an epoch plan ({@code PUT /worker/plans/{id}}), in place of the one it had. */
    public Future<Void> putPlan(Worker worker, String id, WorkerPlan part) {
        return call(worker, options(worker, HttpMethod.PUT, BlockApi.planPath(id))
                .setIdleTimeout(CALL_TIMEOUT.toMillis()), part, 204).mapEmpty();
    }

    /** How far the plan's reader got on the worker; empty when it holds no part of the plan (a restart lost it). */
    public Future<Optional<PlanProgress>> planProgress(Worker worker, String id) {
        return calls.request(options(worker, HttpMethod.GET, BlockApi.planPath(id))
                        .setTimeout(CALL_TIMEOUT.toMillis()))
                .compose(request -> request.send().compose(response -> response.body().compose(answer ->
                        switch (response.statusCode()) {
                            case 200 -> Future.succeededFuture(Optional.of(read(answer, PlanProgress.class)));
                            case 404 -> Future.succeededFuture(Optional.<PlanProgress>empty());
                            default -> Future.failedFuture(new WorkerCallFailed(worker, response.statusCode(), answer));
                        })));
    }

    /** Drops the worker's part of the plan: its blocks are left to the eviction policy again. */
    public Future<Void> endPlan(Worker worker, String id) {
        return call(worker, options(worker, HttpMethod.DELETE, BlockApi.planPath(id))
                .setTimeout(CALL_TIMEOUT.toMillis()), null, 204).mapEmpty();
    }

    /** Starts the worker's drain; answers where it is. */
    public Future<DrainStatus> drain(Worker worker) {
        return call(worker, options(worker, HttpMethod.POST, BlockApi.DRAIN).setTimeout(CALL_TIMEOUT.toMillis()),
                null, 202).map(body -> read(body, DrainStatus.class));
    }

    /** Makes the worker an owner of blocks again (a drain under way stops). */
    public Future<Void> rejoin(Worker worker) {
        return call(worker, options(worker, HttpMethod.DELETE, BlockApi.DRAIN).setTimeout(CALL_TIMEOUT.toMillis()),
                null, 204).mapEmpty();
    }

    /**
     * Whether a failed call was the worker's fault (it gave no answer, a broken one, or a 5xx), not ours: a 4xx says
     * our request was wrong, and a cancelled call was given up by its caller.
     */
    public static boolean workersFault(Throwable failure) {
        if (failure instanceof CancellationException) {
            return false;
        }
        return !(failure instanceof WorkerCallFailed failed) || failed.status() == 0 || failed.status() >= 500;
    }

    /**
     * Waits for a call on a thread that may block (never an event loop); a failure is thrown as the call failed, a
     * checked one wrapped in a {@link CompletionException}.
     */
    public static <T> T await(Future<T> call) throws InterruptedException {
        try {
            return call.toCompletionStage().toCompletableFuture().get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime
                    : new CompletionException(e.getCause());
        }
    }

    @PreDestroy
    @Override
    public void close() {
        vertx.cancelTimer(recheck);
        reads.close();
        calls.close();
        checks.close();
    }

    private void suspectOnFault(Worker owner, Throwable failure) {
        if (!workersFault(failure)) {
            return;
        }
        if (silent(failure)) {
            probe(owner, failure);
        } else {
            suspects.suspect(owner, failure);
        }
    }

    /**
     * An owner that only gave nothing for the hedge delay may be busy (a miss waits on the store; its node's cores
     * are taken), and one whose connection closed may have broken a miss the store broke, or closed an idle
     * connection as it was reused, and one that did not accept a connection within the connect timeout may have lost
     * one SYN; none is gone: it is suspected when it does not answer its liveness check within
     * {@link #LIVENESS_TIMEOUT} either (its node cut off, its process stopped), and only passed over while the check
     * runs. Suspecting every slow owner moved its blocks to the others, whose misses were slow in turn, until every
     * owner was suspected.
     */
    private void probe(Worker owner, Throwable why) {
        if (suspects.doubt(owner)) {
            alive(owner).onSuccess(alive -> suspects.checked(owner, alive, why));
        }
    }

    /** A worker suspected for its silence, asked whether it is alive again: trusted again when it answers. */
    private void recheck(Worker suspect) {
        if (suspects.doubt(suspect)) {
            alive(suspect).onSuccess(alive -> suspects.checked(suspect, alive, null));
        }
    }

    /** Whether a read failed because its owner gave nothing for as long as it was waited on, or closed on it. */
    private static boolean silent(Throwable failure) {
        return failure instanceof TimeoutException || failure instanceof HttpClosedException
                || failure instanceof ConnectTimeoutException;
    }

    /**
     * Whether the worker answers its liveness check: the one running now or answered within {@link #CHECK_FRESH}, or
     * a new one. A failed read's listeners may run as separate tasks, and a check on loopback can answer between them.
     */
    private Future<Boolean> alive(Worker worker) {
        return checking.computeIfAbsent(worker.id(), id -> {
            Future<Boolean> started = live(worker).map(true).otherwise(false);
            started.onComplete(done -> vertx.setTimer(CHECK_FRESH.toMillis(), timer -> checking.remove(id, started)));
            return started;
        });
    }

    private Future<Integer> live(Worker worker) {
        return checks.request(options(worker, HttpMethod.GET, LIVENESS).setTimeout(LIVENESS_TIMEOUT.toMillis()))
                .compose(request -> request.send().compose(response -> response.statusCode() == 200
                        ? response.body().map(body -> response.statusCode())
                        : Future.failedFuture(new WorkerCallFailed(worker, response.statusCode(), null))));
    }

    /** Whether the owner's liveness is being checked now (for tests: suspected or cleared once this is false). */
    boolean checking(Worker owner) {
        return suspects.doubted(owner);
    }

    private Future<Buffer> call(Worker worker, RequestOptions options, Object body, int expected) {
        Buffer sent;
        try {
            sent = body == null ? Buffer.buffer() : Buffer.buffer(json.writeValueAsBytes(body));
        } catch (IOException e) {
            return Future.failedFuture(e);
        }
        if (body != null) {
            options.putHeader("Content-Type", "application/json");
        }
        return calls.request(options).compose(request -> request.send(sent).compose(response -> response.body()
                .compose(answer -> response.statusCode() == expected ? Future.succeededFuture(answer)
                        : Future.failedFuture(new WorkerCallFailed(worker, response.statusCode(), answer)))));
    }

    /**
     * Sends a request without a body and handles its answer in the same turn of the event loop as its head arrives:
     * composed later (as a chain of futures does when it was started off the event loop), the body may be gone.
     */
    private static <T> Future<T> exchange(HttpClient client, RequestOptions options,
                                          Function<HttpClientResponse, Future<T>> answer) {
        return client.request(options).compose(request -> request.send().compose(answer));
    }

    /**
     * A read of block bytes ({@link #exchange}), whose answer's head is its first byte: how long it took teaches the
     * hedge delay. A silent owner fails it by the idle timeout the options set, and is suspected.
     */
    private <T> Future<T> firstByteTimed(RequestOptions options, Function<HttpClientResponse, Future<T>> answer) {
        return reads.request(options).compose(request -> {
            long sent = System.nanoTime();
            return request.send().compose(response -> {
                hedge.firstByte(System.nanoTime() - sent);
                return answer.apply(response);
            });
        });
    }

    private RequestOptions rangeOptions(Worker owner, String dataset, FileInfo file, BlockSlice slice) {
        return options(owner, HttpMethod.GET,
                BlockApi.blockUri(dataset, slice.index(), file.path(), file.etag(), file.size()))
                .putHeader("Range", "bytes=" + slice.offsetInBlock() + '-'
                        + (slice.offsetInBlock() + slice.length() - 1));
    }

    private RequestOptions options(Worker worker, HttpMethod method, String uri) {
        URI base = URI.create(worker.address());
        return new RequestOptions().setMethod(method).setHost(base.getHost())
                .setPort(base.getPort() < 0 ? 80 : base.getPort()).setURI(uri)
                .putHeader("Authorization", authorization);
    }

    private <T> T read(Buffer body, Class<T> type) {
        try {
            return json.readValue(body.getBytes(), type);
        } catch (IOException e) {
            throw new IllegalStateException("a worker answered what is not a " + type.getSimpleName(), e);
        }
    }

    private <T> T read(Buffer body, TypeReference<T> type) {
        try {
            return json.readValue(body.getBytes(), type);
        } catch (IOException e) {
            throw new IllegalStateException("a worker answered what is not a list of held blocks", e);
        }
    }
}
