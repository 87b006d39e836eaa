package io.granary.kit.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.block.BlockSlice;
import io.granary.contracts.block.ByteRange;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.worker.Worker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import static io.granary.kit.client.Loopback.address;
import static io.granary.kit.client.Loopback.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One block range asked of its owner and streamed into a client's response, between real servers: an owner (a
 * worker's block API) and a gateway whose handler starts the fetch and pipes it, as the gateway's ObjectStream does.
 */
class BlockFetchTest {

    private static final long TIMEOUT_MILLIS = 300;
    private static final byte[] BLOCK = new byte[1000];
    private static final FileInfo FILE = new FileInfo("train/a b&c=ü.jpg", 10_000, Instant.EPOCH, "etag+1");
    /** Block 3 of the file, bytes 100..599 of it. */
    private static final BlockSlice SLICE = new BlockSlice(3, 3000, 1000, 100, 500);
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static Vertx vertx;
    private Suspects suspects;
    private BlockClient blocks;

    private HttpServer owner;
    private HttpServer gateway;

    /** How the fetch ended, and what it wrote. */
    record Outcome(Throwable failure, long written) {
    }

    static {
        for (int i = 0; i < BLOCK.length; i++) {
            BLOCK[i] = (byte) (i * 7 + 1);
        }
    }

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() {
        await(vertx.close());
    }

    @BeforeEach
    void client() {
        suspects = new Suspects(Duration.ofMinutes(1), Clock.systemUTC());
        blocks = new BlockClient(vertx, new ObjectMapper(), "Bearer test", Duration.ofMillis(TIMEOUT_MILLIS),
                new HedgeDelay(Duration.ofMillis(TIMEOUT_MILLIS), Duration.ofMillis(TIMEOUT_MILLIS)), suspects,
                new SimpleMeterRegistry());
    }

    @AfterEach
    void closeClient() {
        blocks.close();
    }

    @AfterEach
    void close() {
        if (gateway != null) {
            await(gateway.close());
            gateway = null;
        }
        if (owner != null) {
            await(owner.close());
            owner = null;
        }
    }

    private Worker owner(Handler<HttpServerRequest> handler) {
        owner = Loopback.server(vertx, handler);
        return Loopback.worker("w1", address(owner));
    }

    /** The owner as a block API is: 206 with the range asked for. */
    private static void serveRange(HttpServerRequest request) {
        ByteRange.Slice range = ByteRange.parse(request.getHeader("Range")).resolve(BLOCK.length);
        request.response().setStatusCode(206)
                .end(Buffer.buffer(Arrays.copyOfRange(BLOCK, (int) range.offset(),
                        (int) (range.offset() + range.length()))));
    }

    /** A GET of the gateway, whose response is the fetch piped into it; the body the client got. */
    private byte[] read(Worker from, CompletableFuture<Outcome> outcome) throws IOException, InterruptedException {
        return read(() -> blocks.fetch(from, "imagenet", FILE, SLICE), outcome);
    }

    private byte[] read(Supplier<BlockFetch> fetches, CompletableFuture<Outcome> outcome)
            throws IOException, InterruptedException {
        gateway = Loopback.server(vertx, request -> {
            request.response().setChunked(true);
            BlockFetch fetch = fetches.get();
            fetch.pipeTo(request.response()).onComplete(piped -> {
                outcome.complete(new Outcome(piped.cause(), fetch.written()));
                request.response().end();
            });
        });
        HttpRequest request = HttpRequest.newBuilder(URI.create(address(gateway) + "/object"))
                .timeout(Duration.ofSeconds(Loopback.PATIENCE_SECONDS)).build();
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofByteArray()).body();
    }

    @Test
    void asksTheOwnerForTheSliceAndStreamsIt() throws IOException, InterruptedException {
        CompletableFuture<String> asked = new CompletableFuture<>();
        Worker worker = owner(request -> {
            asked.complete(request.path() + " path=" + request.getParam("path") + " etag=" + request.getParam("etag")
                    + " " + request.getHeader("Range"));
            serveRange(request);
        });
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();

        byte[] body = read(worker, outcome);

        assertThat(await(asked)).isEqualTo("/blocks/imagenet/3 path=train/a b&c=ü.jpg etag=etag+1 bytes=100-599");
        assertThat(await(outcome)).isEqualTo(new Outcome(null, 500));
        assertThat(body).isEqualTo(Arrays.copyOfRange(BLOCK, 100, 600));
    }

    @Test
    void anAnswerOtherThanTheRangeIsARefusalWithItsStatus() throws IOException, InterruptedException {
        for (int status : new int[] {200, 404, 503}) {
            Worker worker = owner(request -> request.response().setStatusCode(status).end("not the range"));
            CompletableFuture<Outcome> outcome = new CompletableFuture<>();

            byte[] body = read(worker, outcome);

            Outcome ended = await(outcome);
            assertThat(ended.failure()).isInstanceOfSatisfying(WorkerCallFailed.class,
                    refused -> assertThat(refused.status()).isEqualTo(status));
            assertThat(suspects.trusted(List.of(worker))).as("suspected only for a 5xx")
                    .hasSize(status >= 500 ? 0 : 1);
            assertThat(ended.written()).isZero();
            assertThat(body).as("nothing of the owner's answer reaches the client").isEmpty();
            close();
        }
    }

    @Test
    void moreThanTheSliceIsCutAtTheSlice() throws IOException, InterruptedException {
        Worker worker = owner(request -> request.response().setStatusCode(206).end(Buffer.buffer(BLOCK)));
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();

        byte[] body = read(worker, outcome);

        assertThat(await(outcome)).isEqualTo(new Outcome(null, 500));
        assertThat(body).isEqualTo(Arrays.copyOf(BLOCK, 500));
    }

    @Test
    void aShortBodyFailsAndSaysHowMuchWentOut() throws IOException, InterruptedException {
        Worker worker = owner(request -> request.response().setStatusCode(206)
                .end(Buffer.buffer(Arrays.copyOfRange(BLOCK, 100, 300))));
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();

        byte[] body = read(worker, outcome);

        Outcome ended = await(outcome);
        assertThat(ended.failure()).isInstanceOf(WorkerCallFailed.class)
                .hasMessage("worker w1 sent 200 of 500 bytes");
        assertThat(suspects.trusted(List.of(worker))).as("suspected").isEmpty();
        assertThat(ended.written()).as("what a fallback must skip").isEqualTo(200);
        assertThat(body).isEqualTo(Arrays.copyOfRange(BLOCK, 100, 300));
    }

    @Test
    void anOwnerSilentPastTheTimeoutFailsTheFetch() throws IOException, InterruptedException {
        Worker worker = owner(request -> { });  // never answers
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();

        read(worker, outcome);

        Outcome ended = await(outcome);
        assertThat(ended.failure()).isInstanceOf(TimeoutException.class).hasMessageContaining("owner w1 gave nothing");
        assertThat(ended.written()).isZero();
        Loopback.untilChecked(blocks, worker);
        assertThat(suspects.trusted(List.of(worker))).as("suspected: no answer to its liveness check").isEmpty();
    }

    /**
     * A busy owner (its fill waits on the store) gives nothing for the hedge delay but answers its liveness check:
     * asked again, it is waited on and its bytes stream. A cut owner, or a refusal, is no busy owner.
     */
    @Test
    void anOwnerBusyPastTheHedgeDelayIsWaitedOnWhenAskedAgain() throws Exception {
        BlockClient patient = new BlockClient(vertx, new ObjectMapper(), "Bearer test", Duration.ofSeconds(30),
                new HedgeDelay(Duration.ofMillis(TIMEOUT_MILLIS), Duration.ofMillis(TIMEOUT_MILLIS)), suspects,
                new SimpleMeterRegistry());
        Worker busy = owner(request -> {
            if (request.path().equals("/q/health/live")) {
                request.response().end("{\"status\":\"UP\"}");
            } else {
                vertx.setTimer(3 * TIMEOUT_MILLIS, timer -> serveRange(request));
            }
        });
        try (LostSyns cut = new LostSyns()) {
            CompletableFuture<Outcome> first = new CompletableFuture<>();
            assertThat(read(() -> patient.fetch(busy, "imagenet", FILE, SLICE), first)).isEmpty();
            Throwable silence = await(first).failure();
            assertThat(silence).isInstanceOf(TimeoutException.class);
            assertThat(await(patient.busy(busy, silence))).isTrue();
            await(gateway.close());

            CompletableFuture<Outcome> again = new CompletableFuture<>();
            byte[] body = read(() -> patient.fetchAgain(busy, "imagenet", FILE, SLICE), again);
            assertThat(await(again)).isEqualTo(new Outcome(null, 500));
            assertThat(body).isEqualTo(Arrays.copyOfRange(BLOCK, 100, 600));

            assertThat(await(patient.busy(busy, new WorkerCallFailed(busy, 503, null)))).as("a refusal").isFalse();
            Worker cutOff = Loopback.worker("w5", cut.address());
            assertThat(await(patient.busy(cutOff, silence))).as("no liveness check gets through").isFalse();
        } finally {
            patient.close();
        }
    }

    @Test
    void anOwnerThatStopsMidBodyFailsTheFetchAfterWhatItSent() throws IOException, InterruptedException {
        Worker worker = owner(request -> request.response().setStatusCode(206).setChunked(true)
                .write(Buffer.buffer(Arrays.copyOfRange(BLOCK, 100, 200))));  // and then nothing
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();

        byte[] body = read(worker, outcome);

        Outcome ended = await(outcome);
        assertThat(ended.failure()).isInstanceOf(TimeoutException.class);
        assertThat(ended.written()).isEqualTo(100);
        assertThat(body).isEqualTo(Arrays.copyOfRange(BLOCK, 100, 200));
    }

    @Test
    void anOwnerThatIsGoneFailsTheFetch() throws IOException, InterruptedException {
        Worker gone = Loopback.worker("w0", Loopback.deadAddress(vertx));
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();

        read(gone, outcome);

        Outcome ended = await(outcome);
        assertThat(ended.failure()).isNotNull().isNotInstanceOf(WorkerCallFailed.class);
        assertThat(suspects.trusted(List.of(gone))).as("suspected").isEmpty();
        assertThat(ended.written()).isZero();
    }

    @Test
    void aFetchCancelledBeforeItIsSentNeverAsksTheOwner() {
        List<String> asked = new CopyOnWriteArrayList<>();
        Worker silent = owner(request -> {
            asked.add(request.method() + " " + request.path());
            if (request.method() == io.vertx.core.http.HttpMethod.HEAD) {
                request.response().end();
            }  // a GET is never answered: a request sent would hold its connection until the owner dies
        });
        CompletableFuture<BlockFetch> started = new CompletableFuture<>();

        // As ObjectStream does when the client goes away right after the fetch was started: on the event loop,
        // before the connection to the owner is even there.
        vertx.runOnContext(now -> {
            BlockFetch fetch = blocks.fetch(silent, "imagenet", FILE, SLICE);
            fetch.cancel();
            started.complete(fetch);
        });
        Throwable failure = Loopback.failure(await(started).pipeTo(null));
        // A fill sent after it through the same pool: when it is answered, the fetch would have gone out.
        await(blocks.fill(silent, "imagenet", FILE, 4));

        assertThat(failure).isInstanceOf(CancellationException.class);
        assertThat(asked).as("only the fill reached the owner").containsExactly("HEAD /blocks/imagenet/4");
        assertThat(suspects.trusted(List.of(silent))).as("a fetch given up is no failure of its owner").hasSize(1);
    }
    @Test
    void aFetchCancelledMidBodyIsNoFailureOfItsOwner() throws IOException, InterruptedException {
        Worker worker = owner(request -> request.response().setStatusCode(206).setChunked(true)
                .write(Buffer.buffer(Arrays.copyOfRange(BLOCK, 100, 200))));  // the rest is still coming
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        // As ObjectStream does when its client goes away while a block is being piped to it.
        gateway = Loopback.server(vertx, request -> {
            request.response().setChunked(true);
            BlockFetch fetch = blocks.fetch(worker, "imagenet", FILE, SLICE);
            fetch.pipeTo(request.response()).onComplete(piped -> {
                outcome.complete(new Outcome(piped.cause(), fetch.written()));
                request.response().end();
            });
            vertx.setPeriodic(5, timer -> {
                if (fetch.written() > 0) {
                    vertx.cancelTimer(timer);
                    fetch.cancel();
                }
            });
        });
        HttpRequest request = HttpRequest.newBuilder(URI.create(address(gateway) + "/object"))
                .timeout(Duration.ofSeconds(Loopback.PATIENCE_SECONDS)).build();
        CLIENT.send(request, HttpResponse.BodyHandlers.discarding());

        Outcome ended = await(outcome);
        assertThat(ended.failure()).isInstanceOf(CancellationException.class);
        assertThat(ended.written()).isEqualTo(100);
        assertThat(suspects.trusted(List.of(worker))).as("the reset that cancels it is not the owner's fault").hasSize(1);
    }
}
