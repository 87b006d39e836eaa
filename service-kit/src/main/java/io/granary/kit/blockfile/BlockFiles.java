package io.granary.kit.blockfile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.Optional;

/**
 * The block-file format: how a worker keeps its blocks in a level directory, the contract a short-circuit reader on
 * its node (the gateway, the FUSE client) relies on. A block lives at {@code <level dir>/<dataset>/<blockId>}, a
 * whole file once it has that name: its bytes are written under a hidden temporary name beside it
 * ({@code .<blockId>.<uuid>.tmp}), its {@link Sidecar} {@code <blockId>.meta} is written, the file is sealed, then
 * renamed into place ({@link BlockFileWriter}). A reader finds and opens it with {@link BlockFileReader}.
 */
public final class BlockFiles {

    /**
     * The modification time a worker gives a block file as it installs it (the Unix epoch): any later write to the
     * file moves it, so a file with another one was changed on disk after its checksum was taken. A short-circuit
     * reader passes such a file over and asks the worker, which checks it against its checksum before it sends it.
     */
    public static final FileTime SEALED = FileTime.fromMillis(0);
    static final String TEMP_SUFFIX = ".tmp";
    private static final String SIDECAR_SUFFIX = ".meta";

    private BlockFiles() {
    }

    /** Where a worker keeps a block: {@code <level dir>/<dataset>/<blockId>}. */
    public static Path blockFile(String levelDir, String dataset, String blockId) {
        return Path.of(levelDir, dataset, blockId);
    }

    /** The sidecar beside a block file: {@code <blockId>.meta}. */
    public static Path sidecarOf(Path blockFile) {
        return blockFile.resolveSibling(blockFile.getFileName() + SIDECAR_SUFFIX);
    }

    public static boolean isSidecar(Path file) {
        return file.getFileName().toString().endsWith(SIDECAR_SUFFIX);
    }

    /** The block file a sidecar describes. */
    public static Path blockFileOf(Path sidecar) {
        String name = sidecar.getFileName().toString();
        return sidecar.resolveSibling(name.substring(0, name.length() - SIDECAR_SUFFIX.length()));
    }

    /**
     * The temporary file named {@code name} a block is being filled in, in {@code levelDir}; empty when the name is
     * not one of that block's temporary files (a reader is told the name by the worker: it opens nothing else).
     */
    public static Optional<Path> fillingFile(String levelDir, String dataset, String blockId, String name) {
        if (name == null || !name.startsWith("." + blockId + ".") || !name.endsWith(TEMP_SUFFIX)
                || name.indexOf('/') >= 0 || name.indexOf('\\') >= 0) {
            return Optional.empty();
        }
        return Optional.of(Path.of(levelDir, dataset, name));
    }

    /** Whether the file is the temporary file of a block being written (or of a write a crash interrupted). */
    public static boolean isTemporary(Path file) {
        String name = file.getFileName().toString();
        return name.startsWith(".") && name.endsWith(TEMP_SUFFIX);
    }

    /** Whether a block file is as its worker installed it (see {@link #SEALED}); one stat a reader makes anyway. */
    public static boolean sealed(BasicFileAttributes attributes) {
        return SEALED.equals(attributes.lastModifiedTime());
    }

    /** Whether the block file is as it was installed; false when it is gone or was written to since. */
    public static boolean sealed(Path file) {
        try {
            return SEALED.equals(Files.getLastModifiedTime(file));
        } catch (IOException e) {
            return false;
        }
    }
}
