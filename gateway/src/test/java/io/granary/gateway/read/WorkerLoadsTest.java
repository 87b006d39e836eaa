package io.granary.gateway.read;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.block.BlockLoadRequest;
import io.granary.contracts.block.BlockRef;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.worker.Worker;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import static io.granary.gateway.read.Local.address;
import static io.granary.gateway.read.Local.await;
import static io.granary.gateway.read.Local.failure;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code POST /blocks/load} and a block's {@code HEAD} to a real HTTP server standing in for a worker. */
class WorkerLoadsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long TIMEOUT_MILLIS = 300;
    private static final List<BlockRef> BLOCKS = List.of(new BlockRef("train/a b.jpg", "e1", 0),
            new BlockRef("train/a b.jpg", "e1", 1));
    private static Vertx vertx;

    private final WorkerLoads loads = new WorkerLoads(vertx, JSON, TIMEOUT_MILLIS, "Bearer test");
    private HttpServer server;

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() {
        await(vertx.close());
    }

    @AfterEach
    void close() {
        loads.close();
        if (server != null) {
            await(server.close());
        }
    }

    private Worker worker(Handler<HttpServerRequest> handler) {
        server = Local.server(vertx, handler);
        return Local.worker("w1", address(server));
    }

    @Test
    void asksTheWorkerToFillTheBlocksForAReader() throws IOException {
        CompletableFuture<String> asked = new CompletableFuture<>();
        CompletableFuture<BlockLoadRequest> body = new CompletableFuture<>();
        Worker worker = worker(request -> request.body().onSuccess(bytes -> {
            asked.complete(request.method() + " " + request.uri() + " " + request.getHeader("Content-Type"));
            try {
                body.complete(JSON.readValue(bytes.getBytes(), BlockLoadRequest.class));
            } catch (IOException e) {
                body.completeExceptionally(e);
            }
            request.response().setStatusCode(200).end("{\"loaded\":2}");
        }));

        await(loads.load(worker, "imagenet", BLOCKS));

        assertThat(await(asked)).isEqualTo("POST /blocks/load application/json");
        assertThat(await(body)).isEqualTo(new BlockLoadRequest("imagenet", BLOCKS, true));
    }

    @Test
    void aFillForAReaderIsTheBlocksHeadWithNoBody() {
        CompletableFuture<String> asked = new CompletableFuture<>();
        Worker worker = worker(request -> request.body().onSuccess(bytes -> {
            asked.complete(request.method() + " " + request.uri() + " " + bytes.length());
            request.response().putHeader("Content-Length", "1048576").end();
        }));

        await(loads.fill(worker, "imagenet", new FileInfo("train/a b.jpg", 5 << 20, Instant.EPOCH, "e1"), 3));

        assertThat(await(asked)).isEqualTo("HEAD /blocks/imagenet/3?path=train%2Fa%20b.jpg&etag=e1 0");
    }

    @Test
    void aFillFailsOnAnyAnswerButOkAndOnSilence() {
        FileInfo file = new FileInfo("a.jpg", 10, Instant.EPOCH, "e1");
        Worker refusing = worker(request -> request.response().setStatusCode(404).end());
        assertThat(failure(loads.fill(refusing, "imagenet", file, 0))).hasMessage("worker w1 answered 404");
        await(server.close());

        Worker silent = worker(request -> { });
        assertThat(failure(loads.fill(silent, "imagenet", file, 0))).isInstanceOf(TimeoutException.class);
    }

    @Test
    void anyAnswerButOkFailsTheLoad() {
        for (int status : new int[] {204, 400, 404, 503}) {
            Worker worker = worker(request -> request.response().setStatusCode(status).end());

            assertThat(failure(loads.load(worker, "imagenet", BLOCKS)))
                    .hasMessage("worker w1 answered " + status);
            await(server.close());
            server = null;
        }
    }

    @Test
    void aWorkerSilentPastTheTimeoutFailsTheLoad() {
        Worker worker = worker(request -> { });  // never answers

        assertThat(failure(loads.load(worker, "imagenet", BLOCKS))).isInstanceOf(TimeoutException.class);
    }

    @Test
    void aWorkerThatIsGoneFailsTheLoad() {
        Worker gone = Local.worker("w0", Local.deadAddress(vertx));

        assertThat(failure(loads.load(gone, "imagenet", BLOCKS))).isNotNull();
    }
}
