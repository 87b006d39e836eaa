package io.granary.hook.client;

import io.granary.contracts.dataset.NodeCache;
import io.granary.kit.client.MetadataClient;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.rest.client.inject.RestClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/** Asks the metadata-service, for all of a pod's datasets at once, which nodes cache how much of them. */
@ApplicationScoped
public class CacheLocator {

    private final MetadataClient metadata;

    CacheLocator(@RestClient MetadataClient metadata) {
        this.metadata = metadata;
    }

    /** Completes exceptionally when the metadata-service fails for any dataset; an unknown dataset is no failure. */
    public CompletableFuture<CacheLocation> locate(List<String> datasets) {
        List<CompletableFuture<Lookup>> lookups = datasets.stream().map(this::lookup).toList();
        return CompletableFuture.allOf(lookups.toArray(CompletableFuture[]::new)).thenApply(done -> {
            Map<String, Long> byNode = new TreeMap<>();
            List<String> unknown = new ArrayList<>();
            for (CompletableFuture<Lookup> lookup : lookups) {
                Lookup found = lookup.join();
                if (found.nodes().isEmpty()) {
                    unknown.add(found.dataset());
                } else {
                    found.nodes().get().forEach(node -> byNode.merge(node.node(), node.cachedBytes(), Long::sum));
                }
            }
            return new CacheLocation(byNode, unknown);
        });
    }

    private CompletableFuture<Lookup> lookup(String dataset) {
        return metadata.findNodes(dataset).toCompletableFuture().thenApply(nodes -> new Lookup(dataset, nodes));
    }

    private record Lookup(String dataset, Optional<List<NodeCache>> nodes) {
    }
}
