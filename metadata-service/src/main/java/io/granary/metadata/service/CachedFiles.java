package io.granary.metadata.service;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.BlockId;
import io.granary.contracts.block.Blocks;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.worker.Worker;
import io.granary.kit.security.ClusterCredential;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * How much of each file of a listing page the workers hold, as {@code ls} and the console show it: the page's block
 * ids are asked of every live worker the dataset may use, and a block counts once however many replicas hold it.
 * A worker that does not answer holds nothing, for this answer: a listing never fails for a worker.
 */
@ApplicationScoped
public class CachedFiles {

    private static final Logger LOG = Logger.getLogger(CachedFiles.class);
    private static final TypeReference<Map<String, Long>> HELD = new TypeReference<>() {
    };

    private final Membership membership;
    private final ObjectMapper json;
    private final String authorization;
    private final HttpClient client;

    CachedFiles(Membership membership, ObjectMapper json, ClusterCredential cluster, Vertx vertx) {
        this.membership = membership;
        this.json = json;
        this.authorization = cluster.authorization();
        this.client = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout(2000).setIdleTimeout(30));
    }

    /** path → cached bytes, for every file given. */
    public CompletionStage<Map<String, Long>> of(DatasetSpec dataset, List<FileInfo> files) {
        long blockSize = dataset.blockSizeBytes();
        Map<String, String> fileOfBlock = new HashMap<>();
        for (FileInfo file : files) {
            int count = Blocks.count(file.size(), blockSize);
            for (int index = 0; index < count; index++) {
                fileOfBlock.put(BlockId.of(dataset.name(), file.path(), file.etag(), index).toString(), file.path());
            }
        }
        List<List<String>> batches = batches(new ArrayList<>(fileOfBlock.keySet()));
        List<Future<Map<String, Long>>> asked = new ArrayList<>();
        for (Worker worker : membership.workers()) {
            if (worker.live() && worker.matches(dataset.nodeSelector())) {
                batches.forEach(batch -> asked.add(held(worker, dataset.name(), batch)));
            }
        }
        return Future.join(asked).transform(done -> {
            Map<String, Long> blocks = new HashMap<>();
            asked.stream().filter(Future::succeeded).forEach(answer -> blocks.putAll(answer.result()));
            Map<String, Long> cached = new HashMap<>();
            files.forEach(file -> cached.put(file.path(), 0L));
            blocks.forEach((id, length) -> {
                String path = fileOfBlock.get(id);
                if (path != null) {
                    cached.merge(path, length, Long::sum);
                }
            });
            return Future.succeededFuture(cached);
        }).toCompletionStage();
    }

    private static List<List<String>> batches(List<String> ids) {
        List<List<String>> batches = new ArrayList<>();
        for (int from = 0; from < ids.size(); from += BlockApi.MAX_HELD_QUERY) {
            batches.add(ids.subList(from, Math.min(ids.size(), from + BlockApi.MAX_HELD_QUERY)));
        }
        return batches;
    }

    private Future<Map<String, Long>> held(Worker worker, String dataset, List<String> ids) {
        Buffer body;
        try {
            body = Buffer.buffer(json.writeValueAsBytes(ids));
        } catch (JsonProcessingException e) {
            return Future.failedFuture(e);
        }
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setTimeout(5000)
                .setAbsoluteURI(worker.address() + BlockApi.heldPath(dataset))
                .putHeader("Authorization", authorization).putHeader("Content-Type", "application/json");
        return client.request(options).compose(request -> request.send(body))
                .compose(response -> response.body().compose(answer -> {
                    if (response.statusCode() != 200) {
                        return Future.failedFuture("answered " + response.statusCode() + ": " + answer);
                    }
                    try {
                        return Future.succeededFuture(json.readValue(answer.getBytes(), HELD));
                    } catch (java.io.IOException e) {
                        return Future.failedFuture(e);
                    }
                }))
                .onFailure(failure -> LOG.debugf("worker %s did not say what it holds: %s", worker.id(),
                        failure.getMessage()));
    }

    @PreDestroy
    void close() {
        client.close();
    }
}
