package io.granary.gateway.read;

import io.granary.contracts.block.BlockSlice;
import io.granary.contracts.block.ByteRange;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.worker.Worker;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;

import static io.granary.gateway.read.Local.address;
import static io.granary.gateway.read.Local.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One block range asked of its owner and streamed into a client's response, between real servers: an owner (a
 * worker's block API) and a gateway whose handler starts the fetch and pipes it, as ObjectStream does.
 */
class BlockFetchTest {

    private static final long TIMEOUT_MILLIS = 300;
    private static final byte[] BLOCK = new byte[1000];
    private static final FileInfo FILE = new FileInfo("train/a b&c=ü.jpg", 10_000, Instant.EPOCH, "etag+1");
    /** Block 3 of the file, bytes 100..599 of it. */
    private static final BlockSlice SLICE = new BlockSlice(3, 3000, 1000, 100, 500);
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static Vertx vertx;
    private static io.vertx.core.http.HttpClient workers;

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
        workers = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true));
    }

    @AfterAll
    static void stop() {
        await(workers.close());
        await(vertx.close());
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
        owner = Local.server(vertx, handler);
        return Local.worker("w1", address(owner));
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
        gateway = Local.server(vertx, request -> {
            request.response().setChunked(true);
            BlockFetch fetch = BlockFetch.start(vertx, workers, from, "imagenet", FILE, SLICE, TIMEOUT_MILLIS, "Bearer test");
            fetch.pipeTo(request.response()).onComplete(piped -> {
                outcome.complete(new Outcome(piped.cause(), fetch.written()));
                request.response().end();
            });
        });
        HttpRequest request = HttpRequest.newBuilder(URI.create(address(gateway) + "/object"))
                .timeout(Duration.ofSeconds(Local.PATIENCE_SECONDS)).build();
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
            assertThat(ended.failure()).isInstanceOfSatisfying(BlockFetch.OwnerRefused.class,
                    refused -> assertThat(refused.status()).isEqualTo(status));
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
        assertThat(ended.failure()).isInstanceOf(IllegalStateException.class)
                .hasMessage("owner w1 sent 200 of 500 bytes");
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
        Worker gone = Local.worker("w0", Local.deadAddress(vertx));
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();

        read(gone, outcome);

        Outcome ended = await(outcome);
        assertThat(ended.failure()).isNotNull().isNotInstanceOf(BlockFetch.OwnerRefused.class);
        assertThat(ended.written()).isZero();
    }

    @Test
    void aFetchCancelledBeforeItIsSentNeverAsksTheOwner() {
        List<String> asked = new CopyOnWriteArrayList<>();
        Worker silent = owner(request -> {
            asked.add(request.path());
            if (request.path().equals("/probe")) {
                request.response().end();
            }  // a block is never answered: a request sent would hold its connection until the owner dies
        });
        CompletableFuture<BlockFetch> started = new CompletableFuture<>();

        // As ObjectStream does when the client goes away right after the fetch was started: on the event loop,
        // before the connection to the owner is even there.
        vertx.runOnContext(now -> {
            BlockFetch fetch = BlockFetch.start(vertx, workers, silent, "imagenet", FILE, SLICE, TIMEOUT_MILLIS, "Bearer test");
            fetch.cancel();
            started.complete(fetch);
        });
        Throwable failure = Local.failure(await(started).pipeTo(null));
        // Sent after it through the same client: when the probe is answered, the fetch would have gone out.
        await(workers.request(HttpMethod.GET, owner.actualPort(), "127.0.0.1", "/probe")
                .compose(request -> request.send()).compose(response -> response.body()));

        assertThat(failure).isInstanceOf(CancellationException.class);
        assertThat(asked).as("only the probe reached the owner").containsExactly("/probe");
    }
}
