package io.granary.block.rest;

import io.granary.block.store.BlockKey;
import io.granary.contracts.block.BlockRef;
import io.granary.contracts.dataset.DatasetPaths;
import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.ValidationException;

/** A block named in a request: {@code /blocks/{dataset}/{index}?path=&etag=}, checked field by field. */
record BlockRequest(String dataset, BlockRef ref, BlockKey key) {

    static BlockRequest of(String dataset, String index, String path, String etag) {
        Check.datasetName("dataset", dataset);
        int blockIndex;
        try {
            blockIndex = Integer.parseInt(Check.required("index", index));
        } catch (NumberFormatException e) {
            throw new ValidationException("index", "'" + index + "' is not a block index");
        }
        if (blockIndex < 0) {
            throw new ValidationException("index", "must not be negative");
        }
        String normalised = DatasetPaths.normalize("path", Check.required("path", path));
        if (normalised.isEmpty() || normalised.endsWith("/")) {
            throw new ValidationException("path", "must name a file");
        }
        Check.required("etag", etag);
        BlockRef ref = new BlockRef(normalised, etag, blockIndex);
        return new BlockRequest(dataset, ref, new BlockKey(dataset, ref.id(dataset)));
    }
}
