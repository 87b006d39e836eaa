package io.granary.block.store;

import io.granary.contracts.worker.WorkerLevel;
import io.granary.kit.blockfile.BlockFileWriter;
import io.granary.kit.blockfile.BlockFiles;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The blocks of one worker in its levels, fastest first. New blocks go to the fastest level with room. When no level
 * has room, {@link Admission} decides whether the newcomer may replace the block that would leave the node (the last
 * level's victim); refused, it is read through uncached. Admitted always, a level that passes its high watermark is
 * brought down to its low watermark by its eviction policy; judged by an admission that can refuse, a level fills to
 * its quota and gives up only what a newcomer needs. Victims move to the next level (spilling MEM to SSD) and leave
 * the node only from the last one. Every block file is whole
 * (written under a temporary name, then renamed) and has a CRC32C sidecar, checked on open and on demand: the
 * block-file format ({@link BlockFiles}) that short-circuit readers rely on.
 */
public final class BlockStore {

    private static final Logger LOG = Logger.getLogger(BlockStore.class);

    private final List<Level> levels;
    private final Map<BlockKey, StoredBlock> index = new ConcurrentHashMap<>();
    private final BlockListener listener;
    private final Admission admission;
    private final ReentrantLock evicting = new ReentrantLock();

    private BlockStore(List<Level> levels, Admission admission, BlockListener listener) {
        this.levels = levels;
        this.admission = admission;
        this.listener = listener;
    }

    /**
     * Opens the levels and indexes every block already in them: a restarted worker keeps its cache. Temporary files
     * of interrupted writes and blocks without a readable sidecar are removed; with {@code verify}, so is every
     * block whose bytes fail their checksum (reported as corrupt).
     */
    public static BlockStore open(List<LevelSpec> specs, EvictionPolicy.Factory policies, Admission admission,
                                   BlockListener listener, boolean verify) {
        if (specs.isEmpty()) {
            throw new IllegalArgumentException("a worker needs at least one cache level");
        }
        List<Level> levels = new ArrayList<>();
        for (LevelSpec spec : specs) {
            levels.add(new Level(spec, levels.size(), policies.create()));
        }
        BlockStore store = new BlockStore(List.copyOf(levels), admission, listener);
        for (StoredBlock block : LevelScan.scan(store.levels, verify, listener)) {
            store.index.put(block.key(), block);
            block.dir().add(block.length());
            block.dir().level().policy().admitted(block.key());
        }
        LOG.infof("cache levels hold %d blocks: %s", store.index.size(), store.workerLevels());
        for (Level level : levels) {
            store.evictIfAboveHigh(level);
        }
        return store;
    }

    public List<Level> levels() {
        return levels;
    }

    /** The block if it is held; a reader's read of it either way, counted for eviction and admission. */
    public Optional<StoredBlock> find(BlockKey key) {
        admission.recorded(key);
        listener.read(key);
        StoredBlock block = index.get(key);
        if (block != null) {
            block.dir().level().policy().accessed(key);
        }
        return Optional.ofNullable(block);
    }

    /**
     * Reads a reader on this node made of the block from its file itself (short-circuit), reported afterwards: each
     * is counted as {@link #find} counts one, the block's recency once.
     */
    public Optional<StoredBlock> reportedReads(BlockKey key, int count) {
        for (int i = 1; i < count; i++) {
            admission.recorded(key);
            listener.read(key);
        }
        return find(key);
    }

    /** Whether the block's file is as it was installed (no write since); one stat. */
    public boolean sealed(StoredBlock block) {
        return BlockFiles.sealed(block.file());
    }

    /** True when the block is held; no access is counted. */
    public boolean holds(BlockKey key) {
        return index.containsKey(key);
    }

    /** The block if it is held, looked at without counting an access (a listing is not a read). */
    public Optional<StoredBlock> peek(BlockKey key) {
        return Optional.ofNullable(index.get(key));
    }

    /**
     * Room for a block of at most {@code bytes} in the fastest level that has it, evicting if no level has, and the
     * writer its bytes go through; empty when no level can take it at all (the caller serves the block without
     * storing it).
     */
    public Optional<BlockWriter> reserve(BlockKey key, long bytes) {
        Optional<Reservation> reservation = tryReserve(key, bytes, 0);
        if (reservation.isEmpty()) {
            if (!admits(key)) {
                return Optional.empty();
            }
            for (Level level : levels) {
                if (bytes <= level.quota()) {
                    evictTo(level, admission == Admission.ALWAYS ? Math.min(level.lowBytes(), level.quota() - bytes)
                            : level.quota() - bytes);
                    reservation = tryReserve(key, bytes, level.rank());
                    if (reservation.isPresent()) {
                        break;
                    }
                }
            }
        }
        return reservation.map(room -> new BlockWriter(this, room));
    }

    /** Whether a newcomer may take the place of the block that would leave the node for it: the last level's victim. */
    private boolean admits(BlockKey key) {
        if (admission == Admission.ALWAYS) {
            return true;
        }
        BlockKey leaving = levels.get(levels.size() - 1).policy().victim();
        return leaving == null || admission.admits(key, leaving);
    }

    /** Indexes a block a {@link BlockWriter} installed: held from now on, and its level evicted from if need be. */
    void admit(StoredBlock block) {
        index.put(block.key(), block);
        block.dir().level().policy().admitted(block.key());
        listener.cached(block);
        evictIfAboveHigh(block.dir().level());
    }

    /**
     * Reads the block file and compares its checksum; a block that fails is dropped and reported as corrupt.
     *
     * @return false when the block is damaged (or gone)
     */
    public boolean verify(StoredBlock block) {
        try {
            if (Checksums.crc32c(block.file()) == block.crc32c() && Files.size(block.file()) == block.length()) {
                if (!BlockFiles.sealed(block.file())) {
                    // Touched, not damaged: short-circuit readers may read it again.
                    BlockFileWriter.seal(block.file());
                }
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

    /** Drops this copy of a block (not a newer one filled meanwhile); false when it is no longer held. */
    public boolean drop(StoredBlock block) {
        if (index.remove(block.key(), block)) {
            forget(block);
            listener.evicted(block);
            return true;
        }
        return false;
    }

    /** How many blocks and bytes an eviction dropped. */
    public record Eviction(int blocks, long bytes) {
    }

    /** Every block held now, in no order. */
    public List<StoredBlock> blocks() {
        return List.copyOf(index.values());
    }

    public int blockCount() {
        return index.size();
    }

    /** Per configured path: medium, quota share and bytes held, as heartbeats report them. */
    public List<WorkerLevel> workerLevels() {
        List<WorkerLevel> reported = new ArrayList<>();
        for (Level level : levels) {
            long share = level.quota() / level.dirs().size();
            for (LevelDir dir : level.dirs()) {
                reported.add(new WorkerLevel(level.medium(), dir.path().toString(), share, dir.used()));
            }
        }
        return reported;
    }

    /** Bytes held per dataset. */
    public Map<String, Long> bytesByDataset() {
        Map<String, Long> bytes = new TreeMap<>();
        index.values().forEach(block -> bytes.merge(block.key().dataset(), block.length(), Long::sum));
        return bytes;
    }

    private Optional<Reservation> tryReserve(BlockKey key, long bytes, int fromRank) {
        for (Level level : levels.subList(fromRank, levels.size())) {
            Optional<Reservation> reservation = level.reserve(key, bytes);
            if (reservation.isPresent()) {
                return reservation;
            }
        }
        return Optional.empty();
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

    /** Drops the block's copy held now, if any: a new one is about to take its place. */
    void remove(BlockKey key) {
        StoredBlock old = index.remove(key);
        if (old != null) {
            forget(old);
        }
    }

    /** Deletes an unindexed block's files and gives its room back. */
    private void forget(StoredBlock block) {
        block.dir().level().policy().removed(block.key());
        block.dir().add(-block.length());
        BlockFileWriter.delete(block.file());
    }

    /** Down to the low watermark past the high one, when every newcomer is admitted; else down to the quota. */
    private void evictIfAboveHigh(Level level) {
        if (admission == Admission.ALWAYS) {
            if (level.aboveHigh()) {
                evictTo(level, level.lowBytes());
            }
        } else if (level.used() > level.quota()) {
            evictTo(level, level.quota());
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
     * Moves a block to the next level: copied there ({@link BlockWriter#copy}), indexed there, then removed here, so
     * a reader always finds a whole file. False when there is no next level or it has no room even after its own
     * eviction.
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
        Optional<Reservation> reservation = lower.reserve(block.key(), block.length());
        if (reservation.isEmpty()) {
            evictTo(lower, admission == Admission.ALWAYS ? Math.min(lower.lowBytes(), lower.quota() - block.length())
                    : lower.quota() - block.length());
            reservation = lower.reserve(block.key(), block.length());
            if (reservation.isEmpty()) {
                return false;
            }
        }
        StoredBlock moved;
        try {
            moved = new BlockWriter(this, reservation.get()).copy(block);
        } catch (IOException e) {
            LOG.warnf("cannot move block %s to %s (%s): evicting it", block.key(), lower, e.getMessage());
            return false;
        }
        if (!index.replace(block.key(), block, moved)) {
            // Replaced or dropped while we copied: the copy is not needed.
            moved.dir().add(-block.length());
            BlockFileWriter.delete(moved.file());
            return true;
        }
        lower.policy().admitted(block.key());
        block.dir().level().policy().removed(block.key());
        block.dir().add(-block.length());
        BlockFileWriter.delete(block.file());
        return true;
    }
}
