package io.granary.block.store;

import io.granary.contracts.block.BlockId;

/** A block as the store indexes it: ids are unique per dataset, and a dataset is a directory of each level. */
public record BlockKey(String dataset, BlockId id) {

    @Override
    public String toString() {
        return dataset + '/' + id;
    }
}
