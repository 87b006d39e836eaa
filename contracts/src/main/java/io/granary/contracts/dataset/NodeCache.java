package io.granary.contracts.dataset;

import java.util.List;

/** How much of one dataset one node caches; what the scheduler-hook weighs node affinity by. */
public record NodeCache(String node, long cachedBytes, List<String> workers) {

    public NodeCache {
        workers = workers == null ? List.of() : List.copyOf(workers);
    }
}
