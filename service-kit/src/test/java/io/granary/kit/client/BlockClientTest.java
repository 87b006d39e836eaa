package io.granary.kit.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.BlockFillRequest;
import io.granary.contracts.block.BlockFillResult;
import io.granary.contracts.block.BlockRef;
import io.granary.contracts.block.LocalReads;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.worker.DrainStatus;
import io.granary.contracts.worker.Worker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.ConnectTimeoutException;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import static io.granary.kit.client.Loopback.address;
import static io.granary.kit.client.Loopback.await;
import static io.granary.kit.client.Loopback.failure;
import static org.assertj.core.api.Assertions.assertThat;

/** Every call of a worker's block API, to a real HTTP server standing in for the worker. */
class BlockClientTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long TIMEOUT_MILLIS = 300;
    private static final List<BlockRef> BLOCKS = List.of(new BlockRef("train/a b.jpg", "e1", 0),
            new BlockRef("train/a b.jpg", "e1", 1));
    private static final FileInfo FILE = new FileInfo("train/a b.jpg", 5 << 20, Instant.EPOCH, "e1");
    private static Vertx vertx;

    private Suspects suspects;
    private BlockClient blocks;
    private HttpServer server;

    @TempDir
    Path dir;

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
        blocks = new BlockClient(vertx, JSON, "Bearer test", Duration.ofMillis(TIMEOUT_MILLIS),
                new HedgeDelay(Duration.ofMillis(TIMEOUT_MILLIS), Duration.ofMillis(TIMEOUT_MILLIS)), suspects,
                new SimpleMeterRegistry());
    }

    @AfterEach
    void close() {
        blocks.close();
        stopServer();
    }

    private void stopServer() {
        if (server != null) {
            await(server.close());
            server = null;
        }
    }

    private Worker worker(Handler<HttpServerRequest> handler) {
        server = Loopback.server(vertx, handler);
        return Loopback.worker("w1", address(server));
    }

    private boolean suspected(Worker worker) {
        return suspects.trusted(List.of(worker)).isEmpty();
    }

    @Test
    void everyCallCarriesTheClusterCredential() {
        List<String> seen = new CopyOnWriteArrayList<>();
        Worker worker = worker(request -> request.body().onSuccess(body -> {
            seen.add(request.method() + " " + request.getHeader("Authorization"));
            request.response().setStatusCode(request.method().name().equals("DELETE") ? 204 : 200).end("{}");
        }));

        await(blocks.fill(worker, "imagenet", FILE, 0));
        await(blocks.rejoin(worker));

        assertThat(seen).containsExactly("HEAD Bearer test", "DELETE Bearer test");
    }

    @Test
    void aBatchIsPostedAndItsResultRead() {
        CompletableFuture<String> asked = new CompletableFuture<>();
        CompletableFuture<BlockFillRequest> body = new CompletableFuture<>();
        Worker worker = worker(request -> request.body().onSuccess(bytes -> {
            asked.complete(request.method() + " " + request.uri() + " " + request.getHeader("Content-Type"));
            try {
                body.complete(JSON.readValue(bytes.getBytes(), BlockFillRequest.class));
            } catch (IOException e) {
                body.completeExceptionally(e);
            }
            request.response().setStatusCode(200)
                    .end("{\"cached\":1,\"filled\":1,\"failed\":0,\"bytes\":2048,\"errors\":[]}");
        }));

        BlockFillResult result = await(blocks.fill(worker, new BlockFillRequest("imagenet", BLOCKS, true)));

        assertThat(await(asked)).isEqualTo("POST /blocks/fill application/json");
        assertThat(await(body)).isEqualTo(new BlockFillRequest("imagenet", BLOCKS, true));
        assertThat(result).isEqualTo(new BlockFillResult(1, 1, 0, 2048, List.of()));
    }

    @Test
    void anyAnswerButOkFailsABatchAndSuspectsNobody() {
        for (int status : new int[] {204, 400, 404, 409, 503}) {
            Worker worker = worker(request -> request.response().setStatusCode(status).end());

            assertThat(failure(blocks.fill(worker, new BlockFillRequest("imagenet", BLOCKS, true))))
                    .isInstanceOfSatisfying(WorkerCallFailed.class, failed -> assertThat(failed.status())
                            .isEqualTo(status)).hasMessage("worker w1 answered " + status);
            assertThat(suspected(worker)).as("a batch is no read: its owner is not suspected").isFalse();
            stopServer();
        }
    }

    @Test
    void aBatchForAReaderGivesUpOnASilentWorkerAfterTheOwnerTimeout() {
        Worker worker = worker(request -> { });  // never answers

        assertThat(failure(blocks.fill(worker, new BlockFillRequest("imagenet", BLOCKS, true))))
                .isInstanceOf(TimeoutException.class);
    }

    @Test
    void aFillIsTheBlocksHeadWithNoBodyAndSaysWhetherTheBlockIsHeld() {
        CompletableFuture<String> asked = new CompletableFuture<>();
        Worker worker = worker(request -> request.body().onSuccess(bytes -> {
            asked.complete(request.method() + " " + request.uri() + " " + bytes.length());
            request.response().putHeader("Content-Length", "1048576")
                    .putHeader(BlockApi.CACHE_HEADER, BlockApi.MISS).end();
        }));

        assertThat(await(blocks.fill(worker, "imagenet", FILE, 3))).isTrue();
        assertThat(await(asked)).isEqualTo("HEAD /blocks/imagenet/3?path=train%2Fa%20b.jpg&etag=e1&size=5242880 0");
        stopServer();

        Worker full = worker(request -> request.response().putHeader(BlockApi.CACHE_HEADER, BlockApi.BYPASS).end());
        assertThat(await(blocks.fill(full, "imagenet", FILE, 3))).as("read through, not stored").isFalse();
    }

    @Test
    void aFillThatFailsByTheWorkersFaultSuspectsItAndNotByOurs() throws InterruptedException {
        Worker refusing = worker(request -> request.response().setStatusCode(404).end());
        assertThat(failure(blocks.fill(refusing, "imagenet", FILE, 0))).hasMessage("worker w1 answered 404");
        assertThat(suspected(refusing)).isFalse();
        stopServer();

        Worker failing = worker(request -> request.response().setStatusCode(500).end());
        assertThat(failure(blocks.fill(failing, "imagenet", FILE, 0))).hasMessage("worker w1 answered 500");
        assertThat(suspected(failing)).isTrue();
        close();
        client();

        Worker silent = worker(request -> { });
        assertThat(failure(blocks.fill(silent, "imagenet", FILE, 0))).isInstanceOf(TimeoutException.class);
        Loopback.untilChecked(blocks, silent);
        assertThat(suspected(silent)).as("no answer to its liveness check either").isTrue();
        close();
        client();

        Worker busy = worker(request -> {
            if (request.path().equals("/q/health/live")) {
                request.response().end("{\"status\":\"UP\"}");
            }  // a block it is asked for takes longer than a reader waits
        });
        assertThat(failure(blocks.fill(busy, "imagenet", FILE, 0))).isInstanceOf(TimeoutException.class);
        Loopback.untilChecked(blocks, busy);
        assertThat(suspected(busy)).as("slow, but alive").isFalse();
        close();
        client();

        Worker gone = Loopback.worker("w0", Loopback.deadAddress(vertx));
        assertThat(failure(blocks.fill(gone, "imagenet", FILE, 0))).isNotNull();
        assertThat(suspected(gone)).isTrue();
    }

    @Test
    void anOwnerThatLostOneSynIsCheckedAndOneCutOffIsSuspected() throws Exception {
        try (LostSyns lossy = new LostSyns()) {
            Worker owner = Loopback.worker("w3", lossy.address());
            lossy.answerAfterTheNextLostSyn();
            assertThat(failure(blocks.fill(owner, "imagenet", FILE, 0))).isInstanceOf(ConnectTimeoutException.class);
            Loopback.untilChecked(blocks, owner);
            assertThat(suspected(owner)).as("its liveness check got through").isFalse();
        }
        try (LostSyns cut = new LostSyns()) {
            Worker owner = Loopback.worker("w4", cut.address());
            assertThat(failure(blocks.fill(owner, "imagenet", FILE, 0))).isInstanceOf(ConnectTimeoutException.class);
            Loopback.untilChecked(blocks, owner);
            assertThat(suspected(owner)).as("its liveness check got nothing either").isTrue();
        }
    }

    @Test
    void aWorkerGoneAndBackIsTrustedAgainOnceItAnswersItsLivenessCheck() throws InterruptedException {
        String address = Loopback.deadAddress(vertx);  // its process stopped: connections refused
        Worker restarting = Loopback.worker("w2", address);
        assertThat(failure(blocks.fill(restarting, "imagenet", FILE, 0))).isNotNull();
        assertThat(suspected(restarting)).isTrue();
        Thread.sleep(1_500);  // checked again meanwhile, refused again: still suspected, for its minute
        assertThat(suspected(restarting)).isTrue();

        int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
        server = await(vertx.createHttpServer().requestHandler(request -> request.response().end("{}"))
                .listen(port, "127.0.0.1"));  // restarted on the same address

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Loopback.PATIENCE_SECONDS);
        while (suspected(restarting)) {
            assertThat(System.nanoTime()).as("trusted again long before its suspicion ran out").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    /**
     * A cold fan-out: every node asks one owner for a block it is still filling. One that answers its liveness check
     * is asked again and waited on (reading the store instead fetched the block once more per node); one cut off, or
     * one that answers nothing at all, is given up.
     */
    @Test
    void anOwnerSilentForTheHedgeDelayButAliveIsAskedAgainAndOneGoneIsGivenUp() throws Exception {
        SimpleMeterRegistry metrics = new SimpleMeterRegistry();
        BlockClient patient = new BlockClient(vertx, JSON, "Bearer test", Duration.ofSeconds(30),
                new HedgeDelay(Duration.ofMillis(TIMEOUT_MILLIS), Duration.ofMillis(TIMEOUT_MILLIS)), suspects,
                metrics);
        byte[] block = new byte[100_000];
        block[99_999] = 7;
        AtomicInteger asked = new AtomicInteger();
        AtomicInteger checked = new AtomicInteger();
        Worker busy = worker(request -> {
            if (request.path().equals("/q/health/live")) {
                checked.incrementAndGet();
                request.response().end("{\"status\":\"UP\"}");
            } else {
                asked.incrementAndGet();  // its fill takes three hedge delays, whoever asks
                vertx.setTimer(3 * TIMEOUT_MILLIS, timer -> request.response().end(Buffer.buffer(block)));
            }
        });
        try (LostSyns cut = new LostSyns()) {
            assertThat(await(patient.block(busy, "imagenet", FILE, 0, block.length)).getBytes()).isEqualTo(block);
            assertThat(asked).as("asked again, not read elsewhere").hasValue(2);
            assertThat(checked).as("its probe and the read's verdict share one liveness check").hasValue(1);
            stopServer();

            Worker cutOff = Loopback.worker("w5", cut.address());
            assertThat(failure(patient.block(cutOff, "imagenet", FILE, 0, block.length)))
                    .isInstanceOf(ConnectTimeoutException.class);
            Worker hung = worker(request -> { });  // its kernel takes connections, nothing answers them
            assertThat(failure(patient.block(hung, "imagenet", FILE, 0, block.length)))
                    .isInstanceOf(TimeoutException.class);
            assertThat(metrics.counter(BlockClient.SILENT_OWNERS, "verdict", "busy").count()).isEqualTo(1);
            assertThat(metrics.counter(BlockClient.SILENT_OWNERS, "verdict", "gone").count()).isEqualTo(2);
        } finally {
            patient.close();
        }
    }

    @Test
    void aWholeBlockIsExactlyItsLength() {
        byte[] block = new byte[100_000];
        block[99_999] = 7;
        Worker worker = worker(request -> request.response().end(Buffer.buffer(block)));

        assertThat(await(blocks.block(worker, "imagenet", FILE, 0, block.length)).getBytes()).isEqualTo(block);
        assertThat(failure(blocks.block(worker, "imagenet", FILE, 0, block.length + 1)))
                .isInstanceOfSatisfying(WorkerCallFailed.class, short_ -> assertThat(short_.status()).isZero())
                .hasMessage("worker w1 sent 100000 of 100001 bytes of block 0 of train/a b.jpg");
        assertThat(suspected(worker)).as("a short block is the worker's fault").isTrue();
    }

    @Test
    void aHeldBlockStreamsAsItArrivesAndAnUnheldOneIsEmpty() throws IOException {
        // Larger than what may wait unread: the response is paused and resumed as the reader goes.
        byte[] block = new byte[3 * BodyStream.HIGH + 12345];
        for (int i = 0; i < block.length; i++) {
            block[i] = (byte) (i * 31);
        }
        List<String> asked = new CopyOnWriteArrayList<>();
        Worker peer = worker(request -> {
            asked.add(request.path() + " " + request.getHeader(BlockApi.HELD_ONLY_HEADER));
            if (request.path().endsWith("/0")) {
                request.response().putHeader(BlockApi.CRC32C_HEADER, "4294967295").end(Buffer.buffer(block));
            } else {
                request.response().setStatusCode(404).end();
            }
        });

        Optional<HandedBlock> held = await(blocks.heldBlock(peer, "imagenet", BLOCKS.get(0)));
        assertThat(held).isPresent();
        assertThat(held.get().crc32c()).as("the giver's checksum, unsigned").hasValue(-1);
        try (InputStream in = held.get().body()) {
            assertThat(in.readAllBytes()).isEqualTo(block);
        }
        assertThat(await(blocks.heldBlock(peer, "imagenet", BLOCKS.get(1)))).isEmpty();
        assertThat(asked).containsExactly("/blocks/imagenet/0 true", "/blocks/imagenet/1 true");
        assertThat(suspected(peer)).isFalse();
    }

    @Test
    void aPeerSilentOnAHeldBlockIsGivenUpAfterTheHeldOnlyWaitAndNotSuspectedWhenAlive() throws InterruptedException {
        Worker silent = worker(request -> {
            if (request.path().equals("/q/health/live")) {
                request.response().end("{\"status\":\"UP\"}");
            }  // a held block it never sends: a stalled peer (its node cut off, once its connection is pooled)
        });

        assertThat(failure(blocks.heldBlock(silent, "imagenet", BLOCKS.get(0))))
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining(BlockClient.HELD_ONLY_TIMEOUT.toMillis() + "ms");
        Loopback.untilChecked(blocks, silent);
        assertThat(suspected(silent)).as("alive: a hand-over given up, not a worker").isFalse();
    }

    @Test
    void aHeldBlockCutShortFailsItsReader() {
        Worker peer = worker(request -> {
            request.response().putHeader("Content-Length", "1000000").write(Buffer.buffer(new byte[1000]));
            vertx.setTimer(50, later -> request.connection().close());
        });

        InputStream in = await(blocks.heldBlock(peer, "imagenet", BLOCKS.get(0))).orElseThrow().body();
        assertThat(org.assertj.core.api.Assertions.catchThrowable(in::readAllBytes)).isInstanceOf(IOException.class);
    }

    @Test
    void heldBlockIdsAreAskedAndAnswered() {
        CompletableFuture<String> asked = new CompletableFuture<>();
        Worker worker = worker(request -> request.body().onSuccess(body -> {
            asked.complete(request.uri() + " " + body);
            request.response().end("{\"b1\":100}");
        }));

        assertThat(await(blocks.held(worker, "imagenet", List.of("b1", "b2")))).isEqualTo(Map.of("b1", 100L));
        assertThat(await(asked)).isEqualTo("/blocks/imagenet/held [\"b1\",\"b2\"]");
    }

    @Test
    void readsAreReported() {
        CompletableFuture<LocalReads> got = new CompletableFuture<>();
        Worker worker = worker(request -> request.body().onSuccess(body -> {
            try {
                got.complete(JSON.readValue(body.getBytes(), LocalReads.class));
            } catch (IOException e) {
                got.completeExceptionally(e);
            }
            request.response().setStatusCode(204).end();
        }));
        LocalReads reads = new LocalReads(Map.of("b1", 2), 1, 300);

        await(blocks.reportReads(worker, "imagenet", reads));

        assertThat(await(got)).isEqualTo(reads);
    }

    @Test
    void aDrainAnswersWhereItIsAndARefusalKeepsItsBody() {
        Worker worker = worker(request -> request.response().setStatusCode(202)
                .end("{\"phase\":\"Draining\",\"blocks\":10}"));
        DrainStatus status = await(blocks.drain(worker));
        assertThat(status.blocks()).isEqualTo(10);
        stopServer();

        String problem = "{\"status\":409,\"title\":\"Conflict\"}";
        Worker refusing = worker(request -> request.response().setStatusCode(409).end(problem));
        assertThat(failure(blocks.drain(refusing))).isInstanceOfSatisfying(WorkerCallFailed.class, refused -> {
            assertThat(refused.status()).isEqualTo(409);
            assertThat(refused.body()).isEqualTo(problem);
        });
    }

    @Test
    void aWorkerThatResetsMidBlockFailsThePutAndNothingElse() throws Exception {
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        vertx.exceptionHandler(uncaught::add);
        // The worker takes the first bytes of the block, then its process is gone: the connection is reset.
        Worker dying = worker(request -> request.handler(chunk -> request.connection().close()));
        Path staged = Files.write(dir.resolve("staged"), new byte[16 << 20]);

        for (int push = 0; push < 5; push++) {
            AsyncFile body = await(vertx.fileSystem().open(staged.toString(), new OpenOptions().setRead(true)));
            Throwable failure = failure(blocks.put(dying, "ds", FILE, 0, body.setReadPos(0).setReadLength(16 << 20),
                    16 << 20).andThen(done -> body.close()));

            assertThat(failure).as("the put fails").isNotNull();
            // A round trip through the event loop after the close: where a pipe that outlived it resumed the file.
            await(vertx.fileSystem().exists(staged.toString()));
        }
        assertThat(uncaught).as("no failure left for the event loop").isEmpty();
        vertx.exceptionHandler(null);
    }

    @Test
    void aPutSendsTheWholeBlock() throws IOException {
        CompletableFuture<String> got = new CompletableFuture<>();
        Worker worker = worker(request -> request.body().onSuccess(body -> {
            got.complete(request.method() + " " + request.uri() + " " + body.length());
            request.response().setStatusCode(201).end();
        }));
        Path staged = Files.write(dir.resolve("block"), new byte[300_000]);
        AsyncFile body = await(vertx.fileSystem().open(staged.toString(), new OpenOptions().setRead(true)));

        await(blocks.put(worker, "ds", FILE, 2, body, 300_000).andThen(done -> body.close()));

        assertThat(await(got)).isEqualTo("PUT /blocks/ds/2?path=train%2Fa%20b.jpg&etag=e1&size=5242880 300000");
    }

    @Test
    void aWorkerIsAtFaultForNoAnswerABrokenOneOrA5xxButNotForA4xxOrACancel() {
        Worker w1 = Loopback.worker("w1", "http://127.0.0.1:1");
        for (int status : new int[] {200, 404, 409, 416}) {  // a 200 to a ranged GET ignored the Range
            assertThat(BlockClient.workersFault(new WorkerCallFailed(w1, status, null))).as("%d", status).isFalse();
        }
        assertThat(BlockClient.workersFault(new java.util.concurrent.CancellationException())).isFalse();
        assertThat(BlockClient.workersFault(new WorkerCallFailed(w1, 500, null))).isTrue();
        assertThat(BlockClient.workersFault(new WorkerCallFailed(w1, 503, null))).isTrue();
        assertThat(BlockClient.workersFault(new WorkerCallFailed(w1, "sent 10 of 400 bytes"))).isTrue();
        assertThat(BlockClient.workersFault(new TimeoutException("silent"))).isTrue();
        assertThat(BlockClient.workersFault(new IOException("connection reset"))).isTrue();
    }
}
