package io.granary.hook.client;

import java.util.List;
import java.util.Map;

/**
 * Where a pod's datasets are cached.
 *
 * @param byNode  cached bytes of all of them, per node
 * @param unknown the datasets the metadata-service does not know
 */
public record CacheLocation(Map<String, Long> byNode, List<String> unknown) {

    public CacheLocation {
        byNode = Map.copyOf(byNode);
        unknown = List.copyOf(unknown);
    }

    public boolean none() {
        return byNode.values().stream().noneMatch(bytes -> bytes > 0);
    }
}
