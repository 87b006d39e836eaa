package io.granary.contracts.block;

/**
 * One block of one version of a file, as callers of a worker name it: the worker derives the {@link BlockId} and,
 * on a miss, reads exactly that version's bytes from the under-store.
 *
 * @param path     normalised path inside the dataset
 * @param etag     the file version (from the metadata cache); a changed object is never cached under an old etag
 * @param index    the block's index in the file
 * @param fileSize the version's size, when the caller knows it (0: unknown), so a miss reserves the block's own
 *                 length and not the dataset's block size: a file of 128 KiB in a dataset of 64 MiB blocks would
 *                 otherwise push 64 MiB of other blocks out of a full cache
 */
public record BlockRef(String path, String etag, int index, long fileSize) {

    public BlockRef(String path, String etag, int index) {
        this(path, etag, index, 0);
    }

    /** The room a miss of this block needs in a dataset of {@code blockSize} blocks: its length when known. */
    public long room(long blockSize) {
        long rest = fileSize - (long) index * blockSize;
        return fileSize > 0 && rest > 0 ? Math.min(rest, blockSize) : blockSize;
    }

    public BlockId id(String dataset) {
        return BlockId.of(dataset, path, etag, index);
    }
}
