package io.granary.block.store;

import io.granary.contracts.block.BlockId;
import io.granary.contracts.worker.Tier;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The blocks of one worker in its levels, fastest first. New blocks go to the fastest level with room; a level
 * that passes its high watermark is brought down to its low watermark by its eviction policy, its victims moving
 * to the next level (spilling MEM to SSD) and leaving the node only from the last one. Every block file is whole
 * (written under a temporary name, then renamed) and has a CRC32C sidecar, checked on open and on demand.
 */
public final class TieredStore {

    private static final Logger LOG = Logger.getLogger(TieredStore.class);
    private static final String TEMP_SUFFIX = ".tmp";

    private final List<Level> levels;
    private final Map<BlockKey, StoredBlock> index = new ConcurrentHashMap<>();
    private final BlockListener listener;
    private final ReentrantLock evicting = new ReentrantLock();

    private TieredStore(List<Level> levels, BlockListener listener) {
        this.levels = levels;
        this.listener = listener;
    }

    /**
     * Opens the levels and indexes every block already in them: a restarted worker keeps its cache. Temporary files
     * of interrupted writes and blocks without a readable sidecar are removed; with {@code verify}, so is every
     * block whose bytes fail their checksum (reported as corrupt).
     */
    public static TieredStore open(List<LevelSpec> specs, EvictionPolicy.Factory policies, BlockListener listener,
                                   boolean verify) {
        if (specs.isEmpty()) {
            throw new IllegalArgumentException("a worker needs at least one cache level");
        }
        List<Level> levels = new ArrayList<>();
        for (LevelSpec spec : specs) {
            levels.add(new Level(spec, levels.size(), policies.create()));
        }
        TieredStore store = new TieredStore(List.copyOf(levels), listener);
        store.rescan(verify);
        for (Level level : levels) {
            store.evictIfAboveHigh(level);
        }
        return store;
    }

    public List<Level> levels() {
        return levels;
    }

    /** The block if it is held, counted as an access for eviction. */
    public Optional<StoredBlock> find(BlockKey key) {
        StoredBlock block = index.get(key);
        if (block != null) {
            block.dir().level().policy().accessed(key);
        }
        return Optional.ofNullable(block);
    }

    /** True when the block is held; no access is counted. */
    public boolean holds(BlockKey key) {
        return index.containsKey(key);
    }

    /**
     * Room for a block of at most {@code bytes} in the fastest level that has it, evicting if no level has; empty
     * when no level can take it at all (the caller serves the block without storing it).
     */
    public Optional<Reservation> reserve(BlockKey key, long bytes) {
        Optional<Reservation> reservation = tryReserve(key, bytes, 0);
        if (reservation.isEmpty()) {
            for (Level level : levels) {
                if (bytes <= level.quota()) {
                    evictTo(level, Math.min(level.lowBytes(), level.quota() - bytes));
                    reservation = tryReserve(key, bytes, level.rank());
                    if (reservation.isPresent()) {
                        break;
                    }
                }
            }
        }
        return reservation;
    }

    /**
     * Makes the written temporary file the block: sidecar first, then the rename, so a visible block file always
     * has its checksum beside it. Replaces an older copy of the same block.
     */
    public StoredBlock commit(Reservation reservation, long length, int crc32c, String path, String etag)
            throws IOException {
        if (length > reservation.bytes()) {
            abort(reservation);
            throw new IllegalArgumentException("block " + reservation.key() + " has " + length
                    + " bytes, more than the " + reservation.bytes() + " reserved");
        }
        BlockKey key = reservation.key();
        LevelDir dir = reservation.dir();
        try {
            remove(key);
            new BlockMeta(crc32c, length, path, etag).write(dir.metaFile(key));
            Files.move(reservation.temp(), dir.blockFile(key), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            abort(reservation);
            Files.deleteIfExists(dir.metaFile(key));
            throw e;
        }
        StoredBlock block = new StoredBlock(key, path, etag, length, crc32c, dir);
        dir.add(length);
        dir.level().release(reservation.bytes());
        index.put(key, block);
        dir.level().policy().admitted(key);
        listener.cached(block);
        evictIfAboveHigh(dir.level());
        return block;
    }

    public void abort(Reservation reservation) {
        deleteQuietly(reservation.temp());
        reservation.dir().level().release(reservation.bytes());
    }

    /**
     * Reads the block file and compares its checksum; a block that fails is dropped and reported as corrupt.
     *
     * @return false when the block is damaged (or gone)
     */
    public boolean verify(StoredBlock block) {
        try {
            if (Checksums.crc32c(block.file()) == block.crc32c() && Files.size(block.file()) == block.length()) {
                return true;
            }
        } catch (NoSuchFileException e) {
            return false;  // moved to another level or evicted meanwhile: not damage
        } catch (IOException e) {
            LOG.warnf("cannot read block %s in %s: %s", block.key(), block.dir().path(), e.getMessage());
        }
        LOG.warnf("block %s in %s fails its checksum: dropped, it will be read again", block.key(), block.dir().path());
        if (index.remove(block.key(), block)) {
            forget(block);
            listener.corrupt(block);
        }
        return false;
    }

    /** Drops a dataset's blocks whose path starts with {@code prefix} (all of them for an empty prefix). */
    public Eviction evict(String dataset, String prefix) {
        return evictWhere(block -> block.key().dataset().equals(dataset) && block.path().startsWith(prefix));
    }

    /**
     * Drops a dataset's blocks of the file {@code path} or of files in the directory {@code path} (all of them for an
     * empty path): freeing {@code train/a} keeps {@code train/ab.jpg}, which a plain prefix would take.
     */
    public Eviction evictUnder(String dataset, String path) {
        String directory = path.isEmpty() || path.endsWith("/") ? path : path + "/";
        return evictWhere(block -> block.key().dataset().equals(dataset)
                && (block.path().equals(path) || block.path().startsWith(directory)));
    }

    /** Drops the blocks of other versions of a file that changed in the under-store. */
    public Eviction evictStale(String dataset, String path, String currentEtag) {
        return evictWhere(block -> block.key().dataset().equals(dataset) && block.path().equals(path)
                && !block.etag().equals(currentEtag));
    }

    /** How many blocks and bytes an eviction dropped. */
    public record Eviction(int blocks, long bytes) {
    }

    public int blockCount() {
        return index.size();
    }

    /** Per configured path: medium, quota share and bytes held, as heartbeats report them. */
    public List<Tier> tiers() {
        List<Tier> tiers = new ArrayList<>();
        for (Level level : levels) {
            long share = level.quota() / level.dirs().size();
            for (LevelDir dir : level.dirs()) {
                tiers.add(new Tier(level.medium(), dir.path().toString(), share, dir.used()));
            }
        }
        return tiers;
    }

    /** Bytes held per dataset. */
    public Map<String, Long> bytesByDataset() {
        Map<String, Long> bytes = new TreeMap<>();
        index.values().forEach(block -> bytes.merge(block.key().dataset(), block.length(), Long::sum));
        return bytes;
    }

    private Optional<Reservation> tryReserve(BlockKey key, long bytes, int fromRank) {
        for (Level level : levels.subList(fromRank, levels.size())) {
            Optional<Reservation> reservation = reserveIn(level, key, bytes);
            if (reservation.isPresent()) {
                return reservation;
            }
        }
        return Optional.empty();
    }

    private Optional<Reservation> reserveIn(Level level, BlockKey key, long bytes) {
        if (!level.tryReserve(bytes)) {
            return Optional.empty();
        }
        LevelDir dir = level.dirFor(key);
        try {
            Path datasetDir = Files.createDirectories(dir.path().resolve(key.dataset()));
            Path temp = datasetDir.resolve("." + key.id() + "." + UUID.randomUUID() + TEMP_SUFFIX);
            return Optional.of(new Reservation(key, dir, Files.createFile(temp), bytes));
        } catch (IOException e) {
            level.release(bytes);
            LOG.warnf("cannot write in %s (%s): trying the next level", dir.path(), e.getMessage());
            return Optional.empty();
        }
    }

    private Eviction evictWhere(java.util.function.Predicate<StoredBlock> which) {
        int blocks = 0;
        long bytes = 0;
        for (StoredBlock block : List.copyOf(index.values())) {
            if (which.test(block) && index.remove(block.key(), block)) {
                forget(block);
                listener.evicted(block);
                blocks++;
                bytes += block.length();
            }
        }
        return new Eviction(blocks, bytes);
    }

    private void remove(BlockKey key) {
        StoredBlock old = index.remove(key);
        if (old != null) {
            forget(old);
        }
    }

    /** Deletes an unindexed block's files and gives its room back. */
    private void forget(StoredBlock block) {
        block.dir().level().policy().removed(block.key());
        block.dir().add(-block.length());
        deleteQuietly(block.file());
        deleteQuietly(block.dir().metaFile(block.key()));
    }

    private void evictIfAboveHigh(Level level) {
        if (level.aboveHigh()) {
            evictTo(level, level.lowBytes());
        }
    }

    /** Evicts the level's victims until it holds at most {@code target} bytes; one eviction runs at a time. */
    private void evictTo(Level level, long target) {
        evicting.lock();
        try {
            while (level.used() > target) {
                BlockKey victim = level.policy().victim();
                if (victim == null) {
                    return;  // what is left is reserved by writes in progress
                }
                StoredBlock block = index.get(victim);
                if (block == null || block.dir().level() != level) {
                    level.policy().removed(victim);
                    continue;
                }
                if (!demote(block) && index.remove(victim, block)) {
                    forget(block);
                    listener.evicted(block);
                }
            }
        } finally {
            evicting.unlock();
        }
    }

    /**
     * Moves a block to the next level: copied under a temporary name, indexed there, then removed here, so a reader
     * always finds a whole file. False when there is no next level or it has no room even after its own eviction.
     */
    private boolean demote(StoredBlock block) {
        int next = block.dir().level().rank() + 1;
        if (next >= levels.size()) {
            return false;
        }
        Level lower = levels.get(next);
        if (block.length() > lower.quota()) {
            return false;
        }
        Optional<Reservation> reservation = reserveIn(lower, block.key(), block.length());
        if (reservation.isEmpty()) {
            evictTo(lower, Math.min(lower.lowBytes(), lower.quota() - block.length()));
            reservation = reserveIn(lower, block.key(), block.length());
            if (reservation.isEmpty()) {
                return false;
            }
        }
        Reservation moving = reservation.get();
        try {
            Files.copy(block.file(), moving.temp(), StandardCopyOption.REPLACE_EXISTING);
            new BlockMeta(block.crc32c(), block.length(), block.path(), block.etag())
                    .write(moving.dir().metaFile(block.key()));
            Files.move(moving.temp(), moving.dir().blockFile(block.key()), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            abort(moving);
            LOG.warnf("cannot move block %s to %s (%s): evicting it", block.key(), lower, e.getMessage());
            return false;
        }
        StoredBlock moved = new StoredBlock(block.key(), block.path(), block.etag(), block.length(), block.crc32c(),
                moving.dir());
        moving.dir().add(block.length());
        lower.release(moving.bytes());
        if (!index.replace(block.key(), block, moved)) {
            // Replaced or dropped while we copied: the copy is not needed.
            moving.dir().add(-block.length());
            deleteQuietly(moved.file());
            deleteQuietly(moved.dir().metaFile(block.key()));
            return true;
        }
        lower.policy().admitted(block.key());
        block.dir().level().policy().removed(block.key());
        block.dir().add(-block.length());
        deleteQuietly(block.file());
        deleteQuietly(block.dir().metaFile(block.key()));
        return true;
    }

    private void rescan(boolean verify) {
        List<Found> found = new ArrayList<>();
        for (Level level : levels) {
            for (LevelDir dir : level.dirs()) {
                try {
                    Files.createDirectories(dir.path());
                    scanDir(dir, verify, found);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot open cache level directory " + dir.path(), e);
                }
            }
        }
        // Least recently written first, so eviction after a restart starts where it would have.
        found.sort(Comparator.comparing(Found::modified));
        for (Found entry : found) {
            StoredBlock block = entry.block();
            StoredBlock other = index.get(block.key());
            if (other != null) {
                // A copy left by a move that a crash interrupted: keep the one in the faster level.
                if (other.dir().level().rank() <= block.dir().level().rank()) {
                    deleteQuietly(block.file());
                    deleteQuietly(block.dir().metaFile(block.key()));
                    continue;
                }
                index.remove(other.key());
                forget(other);
            }
            index.put(block.key(), block);
            block.dir().add(block.length());
            block.dir().level().policy().admitted(block.key());
        }
        LOG.infof("cache levels hold %d blocks: %s", index.size(), tiers());
    }

    private record Found(StoredBlock block, FileTime modified) {
    }

    private void scanDir(LevelDir dir, boolean verify, List<Found> found) throws IOException {
        try (DirectoryStream<Path> datasets = Files.newDirectoryStream(dir.path(), Files::isDirectory)) {
            for (Path datasetDir : datasets) {
                String dataset = datasetDir.getFileName().toString();
                try (DirectoryStream<Path> files = Files.newDirectoryStream(datasetDir)) {
                    for (Path file : files) {
                        StoredBlock block = scanFile(dir, dataset, file, verify);
                        if (block != null) {
                            found.add(new Found(block, Files.getLastModifiedTime(file)));
                        }
                    }
                }
            }
        }
    }

    /** @return the block the file holds, or null when the file is not a (trustworthy) block */
    private StoredBlock scanFile(LevelDir dir, String dataset, Path file, boolean verify) {
        String name = file.getFileName().toString();
        if (name.startsWith(".") && name.endsWith(TEMP_SUFFIX)) {
            deleteQuietly(file);  // an interrupted write
            return null;
        }
        if (name.endsWith(BlockMeta.SUFFIX)) {
            if (!Files.exists(file.resolveSibling(name.substring(0, name.length() - BlockMeta.SUFFIX.length())))) {
                deleteQuietly(file);  // the block it described is gone
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
            deleteQuietly(file);
            deleteQuietly(dir.metaFile(key));
            return null;
        }
        StoredBlock block = new StoredBlock(key, meta.path(), meta.etag(), meta.length(), meta.crc32c(), dir);
        try {
            if (Files.size(file) != meta.length() || verify && Checksums.crc32c(file) != meta.crc32c()) {
                LOG.warnf("block %s in %s fails its checksum: dropped", key, dir.path());
                deleteQuietly(file);
                deleteQuietly(dir.metaFile(key));
                listener.corrupt(block);
                return null;
            }
        } catch (IOException e) {
            deleteQuietly(file);
            return null;
        }
        return block;
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.debugf("cannot delete %s: %s", file, e.getMessage());
        }
    }
}
