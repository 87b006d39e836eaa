package io.granary.block.store;

import java.nio.file.Path;

/**
 * Room for one block in one level, held while its bytes are written to {@link #temp()}: the state of a
 * {@link BlockWriter}, which ends it.
 *
 * @param bytes room reserved; the block may turn out shorter (the last block of a file), never longer
 */
record Reservation(BlockKey key, LevelDir dir, Path temp, long bytes) {
}
