package io.granary.metadata.store;

import org.infinispan.Cache;

import java.util.Map;
import java.util.TreeMap;

/**
 * Bytes of each dataset cached on each node ({@code dataset/node} → bytes), moved by block events. Updates are
 * compare-and-set loops: a clustered cache cannot ship a merge lambda to the other replicas.
 */
public final class CachedBytes {

    private final Cache<String, Long> stats;

    public CachedBytes(Cache<String, Long> stats) {
        this.stats = stats;
    }

    /** Adds {@code delta} (negative for evictions), never going below zero. */
    public void add(String dataset, String node, long delta) {
        String key = dataset + '/' + node;
        while (true) {
            Long old = stats.get(key);
            long updated = Math.max(0, (old == null ? 0 : old) + delta);
            boolean written = old == null ? stats.putIfAbsent(key, updated) == null : stats.replace(key, old, updated);
            if (written) {
                return;
            }
        }
    }

    /** Bytes per node for one dataset, by node name. */
    public Map<String, Long> byNode(String dataset) {
        String prefix = dataset + '/';
        Map<String, Long> nodes = new TreeMap<>();
        stats.forEach((key, bytes) -> {
            if (key.startsWith(prefix) && bytes > 0) {
                nodes.put(key.substring(prefix.length()), bytes);
            }
        });
        return nodes;
    }

    public long total(String dataset) {
        return byNode(dataset).values().stream().mapToLong(Long::longValue).sum();
    }

    public void drop(String dataset) {
        String prefix = dataset + '/';
        stats.keySet().stream().filter(key -> key.startsWith(prefix)).toList().forEach(stats::remove);
    }
}
