package io.granary.gateway.write;

import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.BlockId;
import io.granary.contracts.block.Blocks;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.worker.Worker;
import io.granary.gateway.metrics.GatewayMetrics;
import io.granary.kit.client.LiveWorkers;
import io.granary.kit.security.ClusterCredential;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Write-through into the cache: each block of a just-written object goes from the staged file to its owners
 * ({@code PUT /blocks/...}), so the next reader (a restarted job loading its checkpoint) hits the cache. Best
 * effort: a block that cannot be placed is only a later miss, never a failed write.
 */
@ApplicationScoped
public class CachePush {

    private static final Logger LOG = Logger.getLogger(CachePush.class);
    /** A worker that takes no bytes and says nothing for this long is given up on: that block fills on first read. */
    private static final int IDLE_TIMEOUT_SECONDS = 30;

    private final Vertx vertx;
    private final HttpClient client;
    private final LiveWorkers liveWorkers;
    private final GatewayMetrics metrics;
    private final String authorization;

    CachePush(Vertx vertx, LiveWorkers liveWorkers, GatewayMetrics metrics, ClusterCredential cluster) {
        this.vertx = vertx;
        this.authorization = cluster.authorization();
        // Idle on the connection, either way: a request's own idle timeout only counts response bytes, and a
        // large block takes a while to send before the worker answers.
        this.client = vertx.createHttpClient(new HttpClientOptions().setMaxPoolSize(16).setKeepAlive(true)
                .setConnectTimeout(2000).setIdleTimeout(IDLE_TIMEOUT_SECONDS));
        this.liveWorkers = liveWorkers;
        this.metrics = metrics;
    }

    /** Pushes the blocks one after another (their replicas at once); completes, never fails, when all are tried. */
    Future<Void> push(Dataset dataset, FileInfo file, Path staged) {
        long blockSize = dataset.spec().blockSizeBytes();
        int count = Blocks.count(file.size(), blockSize);
        Future<Void> chain = Future.succeededFuture();
        for (int index = 0; index < count; index++) {
            int block = index;
            chain = chain.compose(previous -> pushBlock(dataset, file, staged, block, blockSize));
        }
        return chain;
    }

    private Future<Void> pushBlock(Dataset dataset, FileInfo file, Path staged, int index, long blockSize) {
        String blockId = BlockId.of(dataset.name(), file.path(), file.etag(), index).toString();
        long offset = index * blockSize;
        long length = Blocks.length(file.size(), blockSize, index);
        List<Future<Void>> copies = new ArrayList<>();
        for (Worker owner : liveWorkers.owners(blockId, dataset.spec().nodeSelector(), dataset.spec().replicas())) {
            copies.add(put(owner, dataset.name(), file, staged, index, offset, length).recover(failure -> {
                LOG.warnf("block %d of %s not written to %s: %s", index, file.path(), owner.id(), failure.getMessage());
                metrics.writeThrough("failed", length);
                return Future.succeededFuture();
            }));
        }
        return Future.join(copies).mapEmpty();
    }

    private Future<Void> put(Worker owner, String dataset, FileInfo file, Path staged, int index, long offset,
                             long length) {
        URI base = URI.create(owner.address());
        String uri = BlockApi.blockUri(dataset, index, file.path(), file.etag());
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.PUT).setHost(base.getHost())
                .putHeader("Authorization", authorization)
                .setPort(base.getPort() < 0 ? 80 : base.getPort()).setURI(uri)
                .putHeader("Content-Length", Long.toString(length));
        return vertx.fileSystem().open(staged.toString(), new OpenOptions().setRead(true)).compose(body -> {
            AsyncFile region = body.setReadPos(offset).setReadLength(length);
            return client.request(options).compose(request -> send(request, region)).andThen(sent -> body.close())
                    .compose(response -> response.body().<Void>compose(answer -> response.statusCode() == 201
                            ? Future.succeededFuture()
                            : Future.failedFuture("answered " + response.statusCode() + ": " + answer)));
        }).onSuccess(done -> metrics.writeThrough("stored", length));
    }

    /**
     * Sends the file region as the request's body; its answer, once the pipe is done with the file too: a worker
     * that dies answers (a reset) before the pipe's last read, and a pipe that resumes a file closed meanwhile
     * throws on the event loop.
     */
    static Future<HttpClientResponse> send(HttpClientRequest request, AsyncFile region) {
        Future<Void> piped = region.pipeTo(request);
        Future<HttpClientResponse> answered = request.response();
        return Future.join(piped, answered).transform(both -> answered);
    }

    @PreDestroy
    void close() {
        client.close();
    }
}
