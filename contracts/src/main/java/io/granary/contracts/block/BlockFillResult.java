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
 * @param unavailable blocks it could not load because the under-store could not be reached (down, restarting,
 *                    in safe mode): not failed, worth asking for again after a pause
 */
public record BlockFillResult(int cached, int filled, int failed, long bytes, List<FileError> errors,
                              List<BlockRef> unavailable) {

    public BlockFillResult {
        errors = errors == null ? List.of() : List.copyOf(errors);
        unavailable = unavailable == null ? List.of() : List.copyOf(unavailable);
    }

    /** A result with every block either held or failed. */
    public BlockFillResult(int cached, int filled, int failed, long bytes, List<FileError> errors) {
        this(cached, filled, failed, bytes, errors, List.of());
    }
}
