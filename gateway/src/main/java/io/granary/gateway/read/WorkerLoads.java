package io.granary.gateway.read;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.BlockLoadRequest;
import io.granary.contracts.block.BlockRef;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.worker.Worker;
import io.granary.kit.config.ReadConfig;
import io.granary.kit.security.ClusterCredential;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.net.URI;
import java.util.List;

/**
 * Asks a worker to hold blocks; completes when it answered. {@link #fill} has one block filled on this node so it
 * is then sent from its file (no second copy through the worker's HTTP); {@link #load} loads blocks ahead.
 */
@ApplicationScoped
public class WorkerLoads {

    private final HttpClient client;
    private final ObjectMapper json;
    private final long timeoutMillis;
    private final String authorization;

    @Inject
    WorkerLoads(Vertx vertx, ObjectMapper json, ReadConfig read, ClusterCredential cluster) {
        this(vertx, json, read.ownerTimeout().toMillis(), cluster.authorization());
    }

    /** With the owner timeout and credential given: tests make one without the configuration. */
    WorkerLoads(Vertx vertx, ObjectMapper json, long timeoutMillis, String authorization) {
        this.client = vertx.createHttpClient(new HttpClientOptions().setMaxPoolSize(16).setKeepAlive(true)
                .setTcpNoDelay(true).setConnectTimeout(2000));
        this.json = json;
        this.timeoutMillis = timeoutMillis;
        this.authorization = authorization;
    }

    /** @return fails when the worker cannot be reached, is silent past the owner timeout, or answers an error */
    public Future<Void> load(Worker owner, String dataset, List<BlockRef> blocks) {
        String body;
        try {
            body = json.writeValueAsString(new BlockLoadRequest(dataset, blocks, true));
        } catch (JsonProcessingException e) {
            return Future.failedFuture(e);
        }
        URI base = URI.create(owner.address());
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost(base.getHost())
                .putHeader("Authorization", authorization)
                .setPort(base.getPort() < 0 ? 80 : base.getPort()).setURI(BlockApi.ROOT + "/load")
                .setIdleTimeout(timeoutMillis).putHeader("Content-Type", "application/json");
        return client.request(options).compose(request -> request.send(body))
                .compose(response -> response.body().compose(answer -> response.statusCode() == 200
                        ? Future.<Void>succeededFuture()
                        : Future.failedFuture("worker " + owner.id() + " answered " + response.statusCode())));
    }

    /**
     * {@code HEAD} of the block: the worker fills it first on a miss. No body either way, so a cold small file
     * costs the worker no JSON and no REST resource.
     *
     * @return fails as {@link #load} does; succeeds also when the worker could not store the block (its file is
     * then not there, and the caller reads around it)
     */
    public Future<Void> fill(Worker owner, String dataset, FileInfo file, int index) {
        URI base = URI.create(owner.address());
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.HEAD).setHost(base.getHost())
                .putHeader("Authorization", authorization)
                .setPort(base.getPort() < 0 ? 80 : base.getPort())
                .setURI(BlockApi.blockUri(dataset, index, file.path(), file.etag())).setIdleTimeout(timeoutMillis);
        return client.request(options).compose(HttpClientRequest::send)
                .compose(response -> response.body().compose(answer -> response.statusCode() == 200
                        ? Future.<Void>succeededFuture()
                        : Future.failedFuture("worker " + owner.id() + " answered " + response.statusCode())));
    }

    @PreDestroy
    void close() {
        client.close();
    }
}
