package io.granary.block.store;

import io.granary.contracts.block.BlockId;
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
                BlockFiles.delete(block);
                continue;
            }
            if (other != null) {
                BlockFiles.delete(other);
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
                            found.add(new Found(block, Files.getLastModifiedTime(dir.metaFile(block.key()))));
                        }
                    }
                }
            }
        }
    }

    /** @return the block the file holds, or null when the file is not a (trustworthy) block */
    private StoredBlock scanFile(LevelDir dir, String dataset, Path file) {
        String name = file.getFileName().toString();
        if (BlockFiles.isTemporary(name)) {
            BlockFiles.deleteQuietly(file);  // an interrupted write
            return null;
        }
        if (name.endsWith(BlockMeta.SUFFIX)) {
            if (!Files.exists(file.resolveSibling(name.substring(0, name.length() - BlockMeta.SUFFIX.length())))) {
                BlockFiles.deleteQuietly(file);  // the block it described is gone
            }
            return null;
        }
        BlockId id;
        try {
            id = BlockId.parse(name);
        } catch (IllegalArgumentException e) {
            return null;  // not ours: leave it alone
        }
        BlockKey key = new BlockKey(dataset, id);
        BlockMeta meta;
        try {
            meta = BlockMeta.read(dir.metaFile(key));
        } catch (IOException e) {
            LOG.warnf("block %s in %s has no readable checksum: dropped", key, dir.path());
            BlockFiles.deleteQuietly(file);
            BlockFiles.deleteQuietly(dir.metaFile(key));
            return null;
        }
        StoredBlock block = new StoredBlock(key, meta.path(), meta.etag(), meta.length(), meta.crc32c(), dir);
        try {
            boolean sealed = BlockFiles.sealed(file);  // a file written to since its install is checked in any case
            if (Files.size(file) != meta.length() || (verify || !sealed) && Checksums.crc32c(file) != meta.crc32c()) {
                LOG.warnf("block %s in %s fails its checksum: dropped", key, dir.path());
                BlockFiles.delete(block);
                listener.corrupt(block);
                return null;
            }
            if (!sealed) {
                BlockFiles.seal(file);
            }
        } catch (IOException e) {
            BlockFiles.deleteQuietly(file);
            return null;
        }
        return block;
    }
}
