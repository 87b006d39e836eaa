package io.granary.block.store;

/**
 * The share of the worker's cache each dataset keeps against the others ({@code cacheShare} of its spec): a newcomer
 * of another dataset never pushes its blocks below it, and its own newcomers take room from datasets above theirs.
 * Asked under the store's eviction lock, so it must answer from memory.
 */
@FunctionalInterface
public interface DatasetShares {

    /** The dataset's share, 0 to 1; 0 when it has none. */
    double of(String dataset);

    /** No dataset keeps a share: every block competes for the whole cache. */
    DatasetShares NONE = dataset -> 0;
}
