package io.granary.block.store;

import io.granary.contracts.worker.Medium;

import java.nio.file.Path;

/**
 * A whole, checksummed block file in one level directory.
 *
 * @param path   the file's path in the dataset, kept so blocks can be evicted by path prefix
 * @param etag   the file version the bytes belong to
 * @param crc32c checksum of the whole block, also in the sidecar beside the file
 */
public record StoredBlock(BlockKey key, String path, String etag, long length, int crc32c, LevelDir dir) {

    public Path file() {
        return dir.blockFile(key);
    }

    public Medium medium() {
        return dir.level().medium();
    }
}
