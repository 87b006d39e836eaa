package io.granary.gateway.read;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.LocalReads;
import io.granary.contracts.worker.Worker;
import io.granary.kit.security.ClusterCredential;
import io.quarkus.scheduler.Scheduled;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads served here from a worker's block files (short-circuit) never reach that worker, yet its eviction policy
 * must see them, or it evicts the blocks read most, and so must its hit ratio. They are counted here and reported
 * to each worker every {@code report-interval}. Best effort: a report lost with its worker only ages those blocks.
 */
@ApplicationScoped
public class LocalReadReports {

    private static final Logger LOG = Logger.getLogger(LocalReadReports.class);
    /** Distinct blocks per report, so a burst cannot grow a batch without bound; reads past it go unreported. */
    static final int MAX_BLOCKS = 10_000;

    private final Map<Target, Pending> pending = new ConcurrentHashMap<>();
    private final HttpClient client;
    private final ObjectMapper json;
    private final String authorization;

    @Inject
    LocalReadReports(Vertx vertx, ObjectMapper json, ClusterCredential cluster) {
        this(vertx, json, cluster.authorization());
    }

    /** With the credential given: tests make one without the configuration. */
    LocalReadReports(Vertx vertx, ObjectMapper json, String authorization) {
        this.authorization = authorization;
        this.client = vertx.createHttpClient(new HttpClientOptions().setMaxPoolSize(4).setKeepAlive(true)
                .setConnectTimeout(2000).setIdleTimeout(30));
        this.json = json;
    }

    /**
     * A read of {@code bytes} of {@code blockId} sent from {@code owner}'s file; {@code filled}: the owner filled it
     * for this read.
     */
    void read(Worker owner, String dataset, String blockId, long bytes, boolean filled) {
        // compute: atomic with the flush's remove, so no read lands in a batch already sent
        pending.compute(new Target(owner.id(), owner.address(), dataset),
                (target, batch) -> (batch == null ? new Pending() : batch).add(blockId, bytes, filled));
    }

    @Scheduled(every = "${granary.gateway.read.report-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void flush() {
        for (Target target : List.copyOf(pending.keySet())) {
            Pending batch = pending.remove(target);
            if (batch != null) {
                send(target, new LocalReads(batch.hits, batch.misses, batch.bytes)).onFailure(failure ->
                        LOG.debugf("reads not reported to %s: %s", target.workerId(), failure.getMessage()));
            }
        }
    }

    private Future<Void> send(Target target, LocalReads reads) {
        String body;
        try {
            body = json.writeValueAsString(reads);
        } catch (JsonProcessingException e) {
            return Future.failedFuture(e);
        }
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST)
                .setAbsoluteURI(target.address() + BlockApi.readsPath(target.dataset()))
                .putHeader("Authorization", authorization).putHeader("Content-Type", "application/json");
        return client.request(options).compose(request -> request.send(Buffer.buffer(body)))
                .compose(response -> response.body().compose(answer -> response.statusCode() == 204
                        ? Future.<Void>succeededFuture()
                        : Future.failedFuture("answered " + response.statusCode() + ": " + answer)));
    }

    @PreDestroy
    void close() {
        client.close();
    }

    /** Where a batch goes; the address is kept as it was at the read (a worker that moved is a new one). */
    private record Target(String workerId, String address, String dataset) {
    }

    /** Only touched inside {@code compute} or after its removal, so never by two threads at once. */
    private static final class Pending {
        final Map<String, Integer> hits = new HashMap<>();
        int misses;
        long bytes;

        Pending add(String blockId, long read, boolean filled) {
            bytes += read;
            if (filled) {
                misses++;
            } else if (hits.size() < MAX_BLOCKS || hits.containsKey(blockId)) {
                hits.merge(blockId, 1, Integer::sum);
            }
            return this;
        }
    }
}
