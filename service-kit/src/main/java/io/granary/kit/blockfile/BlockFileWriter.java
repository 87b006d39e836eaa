package io.granary.kit.blockfile;

import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.UUID;

/**
 * The writing side of the block-file format, the worker's: a block file becomes visible only whole, with its sidecar
 * beside it and sealed, and goes away with its sidecar. Reserving room and indexing are the worker's own.
 */
public final class BlockFileWriter {

    private static final Logger LOG = Logger.getLogger(BlockFileWriter.class);

    private BlockFileWriter() {
    }

    /** A new, empty temporary file for a block's bytes, beside where the block will be. */
    public static Path createTemp(String levelDir, String dataset, String blockId) throws IOException {
        Path datasetDir = Path.of(levelDir, dataset);
        Path temp = datasetDir.resolve("." + blockId + "." + UUID.randomUUID() + BlockFiles.TEMP_SUFFIX);
        try {
            return Files.createFile(temp);
        } catch (NoSuchFileException first) {
            // The dataset's first block here (or its directory went with an eviction): a cold small-file pass
            // spent 2.5% of the worker's CPU making sure of a directory that was there.
            Files.createDirectories(datasetDir);
            return Files.createFile(temp);
        }
    }

    /**
     * Makes the written temporary file the block file (replacing an older copy): the sidecar first, then the seal,
     * then the rename, so a visible block file always has its checksum beside it. When it fails no sidecar is left;
     * the temporary file is the caller's to delete.
     */
    public static void install(Path temp, Path blockFile, Sidecar sidecar) throws IOException {
        Path sidecarFile = BlockFiles.sidecarOf(blockFile);
        try {
            sidecar.write(sidecarFile);
            Files.setLastModifiedTime(temp, BlockFiles.SEALED);
            Files.move(temp, blockFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            deleteQuietly(sidecarFile);
            throw e;
        }
    }

    /** Marks a file whose bytes were checked against its sidecar as installed again. */
    public static void seal(Path blockFile) throws IOException {
        Files.setLastModifiedTime(blockFile, BlockFiles.SEALED);
    }

    /** The block file and its sidecar. */
    public static void delete(Path blockFile) {
        deleteQuietly(blockFile);
        deleteQuietly(BlockFiles.sidecarOf(blockFile));
    }

    /** One file of the format: a temporary file, or a sidecar whose block is gone. */
    public static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.debugf("cannot delete %s: %s", file, e.getMessage());
        }
    }
}
