package io.granary.hook.metadata;

import io.granary.contracts.dataset.NodeCache;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.WebApplicationException;
import org.eclipse.microprofile.rest.client.inject.RestClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** Asks the metadata-service, for all of a pod's datasets at once, which nodes cache how much of them. */
@ApplicationScoped
public class CacheLocator {

    private final MetadataClient metadata;

    CacheLocator(@RestClient MetadataClient metadata) {
        this.metadata = metadata;
    }

    /** Completes exceptionally when the metadata-service fails for any dataset; an unknown dataset is no failure. */
    public CompletableFuture<CachedBytes> locate(List<String> datasets) {
        List<CompletableFuture<Lookup>> lookups = datasets.stream().map(this::lookup).toList();
        return CompletableFuture.allOf(lookups.toArray(CompletableFuture[]::new)).thenApply(done -> {
            Map<String, Long> byNode = new TreeMap<>();
            List<String> unknown = new ArrayList<>();
            for (CompletableFuture<Lookup> lookup : lookups) {
                Lookup found = lookup.join();
                if (found.nodes() == null) {
                    unknown.add(found.dataset());
                } else {
                    found.nodes().forEach(node -> byNode.merge(node.node(), node.cachedBytes(), Long::sum));
                }
            }
            return new CachedBytes(byNode, unknown);
        });
    }

    private CompletableFuture<Lookup> lookup(String dataset) {
        return metadata.nodes(dataset).toCompletableFuture()
                .thenApply(nodes -> new Lookup(dataset, nodes))
                .exceptionallyCompose(failure -> {
                    Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
                    return cause instanceof WebApplicationException web && web.getResponse().getStatus() == 404
                            ? CompletableFuture.completedFuture(new Lookup(dataset, null))
                            : CompletableFuture.failedFuture(cause);
                });
    }

    private record Lookup(String dataset, List<NodeCache> nodes) {
    }
}
