package io.granary.gateway.write;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.RequestOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A block pushed to a worker that dies while the block is on its way, on real sockets. */
class CachePushTest {

    private final Vertx vertx = Vertx.vertx();

    @TempDir
    Path dir;

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void aWorkerThatResetsMidBlockFailsThePushAndNothingElse() throws Exception {
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        vertx.exceptionHandler(uncaught::add);
        // The worker takes the first bytes of the block, then its process is gone: the connection is reset.
        HttpServer worker = vertx.createHttpServer().requestHandler(request -> request.handler(chunk ->
                request.connection().close()));
        int port = worker.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS)
                .actualPort();
        Path staged = Files.write(dir.resolve("staged"), new byte[16 << 20]);
        HttpClient client = vertx.createHttpClient();

        for (int push = 0; push < 5; push++) {
            AsyncFile body = vertx.fileSystem().open(staged.toString(), new OpenOptions().setRead(true))
                    .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
            RequestOptions options = new RequestOptions().setMethod(HttpMethod.PUT).setHost("127.0.0.1").setPort(port)
                    .setURI("/blocks/ds/0").putHeader("Content-Length", Long.toString(16 << 20));
            Future<HttpClientResponse> sent = client.request(options)
                    .compose(request -> CachePush.send(request, body.setReadPos(0).setReadLength(16 << 20)))
                    .andThen(done -> body.close());
            Throwable failure = sent.toCompletionStage().toCompletableFuture().handle((ok, e) -> e)
                    .get(30, TimeUnit.SECONDS);

            assertThat(failure).as("the push fails").isNotNull();
            // A round trip through the event loop after the close: where a pipe that outlived it resumed the file.
            vertx.fileSystem().exists(staged.toString()).toCompletionStage().toCompletableFuture()
                    .get(30, TimeUnit.SECONDS);
        }
        assertThat(uncaught).as("no failure left for the event loop").isEmpty();
    }
}
