package io.granary.contracts.block;

/**
 * One block of one version of a file, as callers of a worker name it: the worker derives the {@link BlockId} and,
 * on a miss, reads exactly that version's bytes from the under-store.
 *
 * @param path  normalised path inside the dataset
 * @param etag  the file version (from the metadata cache); a changed object is never cached under an old etag
 * @param index the block's index in the file
 */
public record BlockRef(String path, String etag, int index) {

    public BlockId id(String dataset) {
        return BlockId.of(dataset, path, etag, index);
    }
}
