package io.granary.block.store;

import io.granary.contracts.block.BlockApi;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * How a block file becomes visible and goes away, the contract a short-circuit reader relies on: the bytes are
 * written under a temporary name, the sidecar is written, then the file is renamed into place, so a visible block
 * file is always whole and has its checksum beside it. Its modification time is set to {@link BlockApi#SEALED} before
 * it gets its name: a write to it afterwards (damage) moves it.
 */
final class BlockFiles {

    private static final Logger LOG = Logger.getLogger(BlockFiles.class);
    static final String TEMP_SUFFIX = ".tmp";

    private BlockFiles() {
    }

    /** Writes the sidecar, then renames the temporary file to the block file (replacing an older copy). */
    static void install(Path temp, LevelDir dir, BlockKey key, BlockMeta meta) throws IOException {
        meta.write(dir.metaFile(key));
        Files.setLastModifiedTime(temp, BlockApi.SEALED);
        Files.move(temp, dir.blockFile(key), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** A copy of the block in another level's reserved temporary file, installed there. */
    static StoredBlock copy(StoredBlock block, Reservation into) throws IOException {
        Files.copy(block.file(), into.temp(), StandardCopyOption.REPLACE_EXISTING);
        install(into.temp(), into.dir(), block.key(),
                new BlockMeta(block.crc32c(), block.length(), block.path(), block.etag()));
        return new StoredBlock(block.key(), block.path(), block.etag(), block.length(), block.crc32c(), into.dir());
    }

    /** The block file and its sidecar. */
    static void delete(StoredBlock block) {
        deleteQuietly(block.file());
        deleteQuietly(block.dir().metaFile(block.key()));
    }

    /** Whether the block file is as it was installed; false when it is gone or was written to since. */
    static boolean sealed(Path file) {
        try {
            return BlockApi.SEALED.equals(Files.getLastModifiedTime(file));
        } catch (IOException e) {
            return false;
        }
    }

    /** Marks a file whose bytes were checked against its checksum as installed again. */
    static void seal(Path file) throws IOException {
        Files.setLastModifiedTime(file, BlockApi.SEALED);
    }

    static boolean isTemporary(String name) {
        return name.startsWith(".") && name.endsWith(TEMP_SUFFIX);
    }

    static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.debugf("cannot delete %s: %s", file, e.getMessage());
        }
    }
}
