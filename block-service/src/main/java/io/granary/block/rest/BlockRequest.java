package io.granary.block.rest;

import io.granary.block.store.BlockKey;
import io.granary.contracts.block.BlockRef;
import io.granary.contracts.dataset.DatasetPaths;
import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.ValidationException;

/**
 * A block named in a request: {@code /blocks/{dataset}/{index}?path=&etag=[&size=]}, checked field by field; the
 * file's size, when given, sizes the room a miss reserves.
 */
record BlockRequest(String dataset, BlockRef ref, BlockKey key) {

    static BlockRequest of(String dataset, String index, String path, String etag, String size) {
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
        long fileSize = 0;
        if (size != null) {
            try {
                fileSize = Long.parseLong(size);
            } catch (NumberFormatException e) {
                throw new ValidationException("size", "'" + size + "' is not a size in bytes");
            }
            if (fileSize < 0) {
                throw new ValidationException("size", "must not be negative");
            }
        }
        BlockRef ref = new BlockRef(normalised, etag, blockIndex, fileSize);
        return new BlockRequest(dataset, ref, new BlockKey(dataset, ref.id(dataset)));
    }
}
