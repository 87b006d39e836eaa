package io.granary.block.store;

import io.granary.contracts.block.BlockId;
import io.granary.kit.blockfile.BlockFileWriter;
import io.granary.kit.blockfile.BlockFiles;
import io.granary.kit.blockfile.Sidecar;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a restarted worker finds in its level directories: every whole block whose sidecar can be read (and, with
 * {@code verify}, whose bytes match it). Temporary files of interrupted writes, sidecars of vanished blocks and
 * damaged blocks are deleted on the way, the damaged ones reported as corrupt; files that are not ours are left alone.
 */
final class LevelScan {

    private static final Logger LOG = Logger.getLogger(LevelScan.class);

    private final boolean verify;
    private final BlockListener listener;

    private LevelScan(boolean verify, BlockListener listener) {
        this.verify = verify;
        this.listener = listener;
    }

    /**
     * @return one copy of each block, least recently written first (so eviction after a restart starts where it
     *         would have); where a move interrupted by a crash left two copies, the one in the faster level
     */
    static List<StoredBlock> scan(List<Level> levels, boolean verify, BlockListener listener) {
        LevelScan scan = new LevelScan(verify, listener);
        List<Found> found = new ArrayList<>();
        for (Level level : levels) {
            for (LevelDir dir : level.dirs()) {
                try {
                    Files.createDirectories(dir.path());
                    scan.scanDir(dir, found);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot open cache level directory " + dir.path(), e);
                }
            }
        }
        found.sort(Comparator.comparing(Found::modified));
        Map<BlockKey, StoredBlock> kept = new LinkedHashMap<>();
        for (Found entry : found) {
            StoredBlock block = entry.block();
            StoredBlock other = kept.get(block.key());
            if (other != null && other.dir().level().rank() <= block.dir().level().rank()) {
                BlockFileWriter.delete(block.file());
                continue;
            }
            if (other != null) {
                BlockFileWriter.delete(other.file());
                kept.remove(block.key());
            }
            kept.put(block.key(), block);
        }
        return List.copyOf(kept.values());
    }

    private record Found(StoredBlock block, FileTime modified) {
    }

    private void scanDir(LevelDir dir, List<Found> found) throws IOException {
        try (DirectoryStream<Path> datasets = Files.newDirectoryStream(dir.path(), Files::isDirectory)) {
            for (Path datasetDir : datasets) {
                String dataset = datasetDir.getFileName().toString();
                try (DirectoryStream<Path> files = Files.newDirectoryStream(datasetDir)) {
                    for (Path file : files) {
                        StoredBlock block = scanFile(dir, dataset, file);
                        if (block != null) {
                            // The sidecar's time is the install's: the block file's own is SEALED.
                            found.add(new Found(block, Files.getLastModifiedTime(BlockFiles.sidecarOf(file))));
                        }
                    }
                }
            }
        }
    }

    /** @return the block the file holds, or null when the file is not a (trustworthy) block */
    private StoredBlock scanFile(LevelDir dir, String dataset, Path file) {
        if (BlockFiles.isTemporary(file)) {
            BlockFileWriter.deleteQuietly(file);  // an interrupted write
            return null;
        }
        if (BlockFiles.isSidecar(file)) {
            if (!Files.exists(BlockFiles.blockFileOf(file))) {
                BlockFileWriter.deleteQuietly(file);  // the block it described is gone
            }
            return null;
        }
        BlockId id;
        try {
            id = BlockId.parse(file.getFileName().toString());
        } catch (IllegalArgumentException e) {
            return null;  // not ours: leave it alone
        }
        BlockKey key = new BlockKey(dataset, id);
        Sidecar sidecar;
        try {
            sidecar = Sidecar.read(BlockFiles.sidecarOf(file));
        } catch (IOException e) {
            LOG.warnf("block %s in %s has no readable checksum: dropped", key, dir.path());
            BlockFileWriter.delete(file);
            return null;
        }
        StoredBlock block = new StoredBlock(key, sidecar.path(), sidecar.etag(), sidecar.length(), sidecar.crc32c(),
                dir);
        try {
            boolean sealed = BlockFiles.sealed(file);  // a file written to since its install is checked in any case
            if (Files.size(file) != sidecar.length()
                    || (verify || !sealed) && Checksums.crc32c(file) != sidecar.crc32c()) {
                LOG.warnf("block %s in %s fails its checksum: dropped", key, dir.path());
                BlockFileWriter.delete(file);
                listener.corrupt(block);
                return null;
            }
            if (!sealed) {
                BlockFileWriter.seal(file);
            }
        } catch (IOException e) {
            BlockFileWriter.deleteQuietly(file);
            return null;
        }
        return block;
    }
}
