package io.granary.metadata.store;

import org.infinispan.Cache;

import java.util.Map;
import java.util.TreeMap;

/**
 * Bytes of each dataset cached by each worker ({@code dataset/node/worker} → bytes). Block events move them as they
 * happen; each heartbeat then sets the worker's totals outright, so a lost or redelivered block event is wrong for
 * a heartbeat interval at most. Updates are compare-and-set loops: a clustered cache cannot ship a merge lambda.
 */
public final class CachedBytes {

    private final Cache<String, Long> stats;

    public CachedBytes(Cache<String, Long> stats) {
        this.stats = stats;
    }

    /** Adds {@code delta} (negative for evictions), never going below zero. */
    public void add(String dataset, String node, String worker, long delta) {
        String key = key(dataset, node, worker);
        while (true) {
            Long old = stats.get(key);
            long updated = Math.max(0, (old == null ? 0 : old) + delta);
            boolean written = old == null ? stats.putIfAbsent(key, updated) == null : stats.replace(key, old, updated);
            if (written) {
                return;
            }
        }
    }

    /** The worker's own account of what it holds: every dataset it does not name holds nothing there. */
    public void set(String node, String worker, Map<String, Long> bytesByDataset) {
        String suffix = '/' + node + '/' + worker;
        for (String key : stats.keySet().stream().filter(key -> key.endsWith(suffix)).toList()) {
            if (!bytesByDataset.containsKey(key.substring(0, key.length() - suffix.length()))) {
                stats.remove(key);
            }
        }
        bytesByDataset.forEach((dataset, bytes) -> {
            if (!bytes.equals(stats.get(key(dataset, node, worker)))) {
                stats.put(key(dataset, node, worker), bytes);
            }
        });
    }

    /** A worker that left: its cache cannot be read, so it no longer counts (its next heartbeat restores it). */
    public void dropWorker(String node, String worker) {
        set(node, worker, Map.of());
    }

    /** Bytes per node for one dataset, by node name. */
    public Map<String, Long> byNode(String dataset) {
        String prefix = dataset + '/';
        Map<String, Long> nodes = new TreeMap<>();
        stats.forEach((key, bytes) -> {
            if (key.startsWith(prefix) && bytes > 0) {
                String rest = key.substring(prefix.length());
                nodes.merge(rest.substring(0, rest.lastIndexOf('/')), bytes, Long::sum);
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

    private static String key(String dataset, String node, String worker) {
        return dataset + '/' + node + '/' + worker;
    }
}
