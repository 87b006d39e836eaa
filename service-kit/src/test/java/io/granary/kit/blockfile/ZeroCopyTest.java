package io.granary.kit.blockfile;

import io.granary.contracts.worker.Medium;
import io.granary.contracts.worker.WorkerLevel;
import io.granary.contracts.worker.Worker;
import io.granary.kit.client.Loopback;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.StandardOpenOption;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static io.granary.kit.client.Loopback.address;
import static io.granary.kit.client.Loopback.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * File regions sent into a response that goes on after them, through a real Vert.x server to a real client; each
 * test that takes {@code inMemory} sends from a file of a disk level (sendfile) and from one in memory (mapped).
 */
class ZeroCopyTest {

    private static final String DATASET = "imagenet";
    private static Vertx vertx;
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @TempDir
    Path dir;
    private HttpServer server;
    private final BlockFileReader files = new BlockFileReader("node-1", 16, 1);

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
        if (server != null) {
            await(server.close());
        }
        files.close();
    }

    private static byte[] bytes(int length, int seed) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 31 + seed);
        }
        return bytes;
    }

    private byte[] get(Handler<HttpServerRequest> handler) throws IOException, InterruptedException {
        server = Loopback.server(vertx, handler);
        HttpRequest request = HttpRequest.newBuilder(URI.create(address(server) + "/object"))
                .timeout(Duration.ofSeconds(Loopback.PATIENCE_SECONDS)).build();
        HttpResponse<byte[]> response = CLIENT.send(request, HttpResponse.BodyHandlers.ofByteArray());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    @ParameterizedTest(name = "in memory: {0}")
    @ValueSource(booleans = {false, true})
    void regionsOfFilesFollowEachOtherInOneResponse(boolean inMemory) throws IOException, InterruptedException {
        byte[] first = bytes(300_000, 1);
        byte[] second = bytes(5_000, 2);
        installed("block-0", first);
        installed("block-1", second);
        CompletableFuture<Boolean> possible = new CompletableFuture<>();

        byte[] body = get(request -> {
            possible.complete(ZeroCopy.possible(request));
            request.response().putHeader("Content-Length", Integer.toString(200_000 + 4_000 + 10 + 4_000));
            ZeroCopy.send(request, open("block-0", inMemory), 100_000, 200_000)
                    .compose(sent -> ZeroCopy.send(request, open("block-1", inMemory), 0, 4_000))
                    .compose(sent -> request.response().write("0123456789"))  // a block sent by copy
                    .compose(sent -> ZeroCopy.send(request, open("block-1", inMemory), 1_000, 4_000))
                    .onComplete(done -> request.response().end());
        });

        assertThat(await(possible)).as("possible on HTTP/1.1").isTrue();
        byte[] expected = new byte[208_010];
        System.arraycopy(first, 100_000, expected, 0, 200_000);
        System.arraycopy(second, 0, expected, 200_000, 4_000);
        System.arraycopy("0123456789".getBytes(), 0, expected, 204_000, 10);
        System.arraycopy(second, 1_000, expected, 204_010, 4_000);
        assertThat(Arrays.equals(body, expected)).as("the body, byte for byte").isTrue();
        assertThat(files.size()).as("both files kept open for the next read, the second opened once").isEqualTo(2);
    }

    @ParameterizedTest(name = "in memory: {0}")
    @ValueSource(booleans = {false, true})
    void aFileShorterThanTheRegionFailsBeforeAnyByteIsSent(boolean inMemory) throws IOException, InterruptedException {
        installed("block", bytes(1_000, 3));
        CompletableFuture<Throwable> failure = new CompletableFuture<>();

        byte[] body = get(request -> fallback(request, ZeroCopy.send(request, open("block", inMemory), 900, 200),
                failure));

        assertThat(await(failure)).isInstanceOf(IOException.class).hasMessageContaining("shorter than expected");
        assertThat(new String(body)).as("only what the caller sent instead").isEqualTo("from elsewhere");
    }

    @ParameterizedTest(name = "in memory: {0}")
    @ValueSource(booleans = {false, true})
    void aBlockEvictedOnceItsSendBeganIsSentWhole(boolean inMemory) throws IOException, InterruptedException {
        // The worker unlinks the file between the lookup and the send: the open file is still the whole block.
        byte[] content = bytes(150_000, 4);
        Path block = installed("evicted", content);

        byte[] body = get(request -> {
            OpenBlockFile file = open("evicted", inMemory);
            BlockFileWriter.delete(block);
            request.response().putHeader("Content-Length", Integer.toString(content.length));
            ZeroCopy.send(request, file, 0, content.length).onComplete(done -> request.response().end());
        });

        assertThat(Arrays.equals(body, content)).isTrue();
        assertThat(files.open(owner(inMemory), DATASET, "evicted")).as("and never sent again").isEmpty();
    }

    @ParameterizedTest(name = "in memory: {0}")
    @ValueSource(booleans = {false, true})
    void aFileWrittenToUnderItsSendIsBrokenOffOneByteShort(boolean inMemory) throws IOException {
        // The write lands after the open and its check of the seal, as a stray writer's would during the send.
        byte[] content = bytes(200_000, 5);
        Path block = installed("damaged", content);
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        server = Loopback.server(vertx, request -> {
            OpenBlockFile file = open("damaged", inMemory);
            try (var channel = java.nio.channels.FileChannel.open(block, StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.wrap(new byte[4096]), 100_000);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            request.response().putHeader("Content-Length", Integer.toString(content.length));
            ZeroCopy.send(request, file, 0, content.length).onComplete(sent -> {
                failure.complete(sent.cause());
                if (sent.failed()) {
                    request.response().reset();  // as the gateway and the worker do: the client must see a break
                } else {
                    request.response().end();
                }
            });
        });

        byte[] received = new byte[content.length];
        int read = 0;
        try (Socket socket = new Socket("127.0.0.1", server.actualPort())) {
            socket.getOutputStream().write("GET /object HTTP/1.1\r\nHost: x\r\n\r\n".getBytes());
            InputStream in = socket.getInputStream();
            skipHead(in);
            for (int n; read < received.length && (n = in.read(received, read, received.length - read)) > 0; ) {
                read += n;
            }
        }

        assertThat(await(failure)).isInstanceOf(BlockFileChanged.class);
        assertThat(read).as("every byte but the last, then the connection closed").isEqualTo(content.length - 1);
    }

    @Test
    void aSendThatFailsPartWayFailsBrokenSoTheCallerNeverSendsTheBlockAgain() throws IOException {
        byte[] content = bytes(200_000, 6);
        installed("closed", content);
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        server = Loopback.server(vertx, request -> {
            OpenBlockFile file = open("closed", false);
            try {
                file.channel().close();  // the region's transfer fails, after the head went out
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            request.response().putHeader("Content-Length", Integer.toString(content.length));
            ZeroCopy.send(request, file, 0, content.length).onComplete(sent -> {
                failure.complete(sent.cause());
                request.response().reset();
            });
        });
        try (Socket socket = new Socket("127.0.0.1", server.actualPort())) {
            socket.getOutputStream().write("GET /object HTTP/1.1\r\nHost: x\r\n\r\n".getBytes());
            socket.getInputStream().readAllBytes();
        }

        assertThat(await(failure)).isInstanceOf(SendBroken.class).isNotInstanceOf(BlockFileChanged.class);
    }

    private static void skipHead(InputStream in) throws IOException {
        for (int matched = 0; matched < 4; ) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("no head");
            }
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
        }
    }

    /** What ObjectStream does when a file cannot be sent: the same bytes another way. */
    private static void fallback(HttpServerRequest request, Future<Void> sent, CompletableFuture<Throwable> failure) {
        request.response().putHeader("Content-Length", "14");
        sent.onComplete(done -> {
            failure.complete(done.cause());
            request.response().end(Buffer.buffer("from elsewhere"));
        });
    }

    /** A block file as its worker installs it: whole, sealed, with its sidecar. */
    private Path installed(String blockId, byte[] content) throws IOException {
        Path temp = BlockFileWriter.createTemp(dir.toString(), DATASET, blockId);
        Files.write(temp, content);
        Path file = BlockFiles.blockFile(dir.toString(), DATASET, blockId);
        BlockFileWriter.install(temp, file, new Sidecar(0, content.length, blockId, "e1"));
        return file;
    }

    /** The block's file open to be sent, as the gateway opens it for a worker on its node. */
    private OpenBlockFile open(String blockId, boolean inMemory) {
        return files.open(owner(inMemory), DATASET, blockId).orElseThrow();
    }

    /** A worker on this node with one level here: memory (its files are mapped) or disk. */
    private Worker owner(boolean inMemory) {
        WorkerLevel level = new WorkerLevel(inMemory ? Medium.MEM : Medium.SSD, dir.toString(), 1L << 30, 0);
        return new Worker("worker-1", "node-1", "http://127.0.0.1:1", Map.of(), List.of(level), Instant.now(), true,
                null, 0, 0, 0, null);
    }
}
