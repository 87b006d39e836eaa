package io.granary.contracts.block;

import io.granary.contracts.dataload.FileError;

import java.util.List;

/**
 * What a worker did with a {@link BlockFillRequest}.
 *
 * @param cached blocks it already held (cheap: no under-store read)
 * @param filled blocks it read from the under-store and stored
 * @param failed blocks it could not load; the first few are in {@code errors}
 * @param bytes  bytes of the blocks it holds now among those asked for (cached + filled)
 */
public record BlockFillResult(int cached, int filled, int failed, long bytes, List<FileError> errors) {

    public BlockFillResult {
        errors = errors == null ? List.of() : List.copyOf(errors);
    }
}
