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
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The blocks of one worker in its levels, fastest first. New blocks go to the fastest level with room. When no level
 * has room, {@link Admission} decides whether the newcomer may replace the block that would leave the node (the last
 * level's victim); refused, it is read through uncached. Admitted always, a level that passes its high watermark is
 * brought down to its low watermark by its eviction policy; judged by an admission that can refuse, a level fills to
 * its quota and gives up only what a newcomer needs. Victims move to the next level (spilling MEM to SSD) and leave
 * the node only from the last one, and never for another dataset's newcomer when that would take its dataset below
 * its share ({@link DatasetShares}); a dataset below its share may take a block of one above its own, whatever
 * admission says. A block every epoch plan on this worker has read this epoch ({@link PlannedReads}) leaves first,
 * and straight off the node (no plan reads it again this epoch); a block a plan reads later is admitted for its room.
 * Every block file is whole
 * (written under a temporary name, then renamed) and has a CRC32C sidecar, checked on open and on demand: the
 * block-file format ({@link BlockFiles}) that short-circuit readers rely on.
 */
public final class BlockStore {

    private static final Logger LOG = Logger.getLogger(BlockStore.class);

    private final List<Level> levels;
    private final Map<BlockKey, StoredBlock> index = new ConcurrentHashMap<>();
    private final BlockListener listener;
    private final Admission admission;
    private final DatasetShares shares;
    private final PlannedReads plans;
    /** Per level, blocks a read spent ({@link PlannedReads#spent}), oldest first; entries gone stale are dropped. */
    private final List<ConcurrentLinkedDeque<Spent>> spent;

    /** A block a read spent, and when. */
    private record Spent(BlockKey key, long at) {
    }
    /** Bytes held per dataset, in every level: what its share is measured against. */
    private final Map<String, AtomicLong> heldBytes = new ConcurrentHashMap<>();
    private final long capacity;
    private final ReentrantLock evicting = new ReentrantLock();

    private BlockStore(List<Level> levels, Admission admission, DatasetShares shares, PlannedReads plans,
                       BlockListener listener) {
        this.levels = levels;
        this.admission = admission;
        this.shares = shares;
        this.plans = plans;
        this.spent = levels.stream().map(level -> new ConcurrentLinkedDeque<Spent>()).toList();
        this.listener = listener;
        this.capacity = levels.stream().mapToLong(Level::quota).sum();
    }

    /**
     * Opens the levels and indexes every block already in them: a restarted worker keeps its cache. Temporary files
     * of interrupted writes and blocks without a readable sidecar are removed; with {@code verify}, so is every
     * block whose bytes fail their checksum (reported as corrupt).
     */
    public static BlockStore open(List<LevelSpec> specs, EvictionPolicy.Factory policies, Admission admission,
                                   BlockListener listener, boolean verify) {
        return open(specs, policies, admission, DatasetShares.NONE, listener, verify);
    }

    /** As {@link #open(List, EvictionPolicy.Factory, Admission, BlockListener, boolean)}, datasets keeping shares. */
    public static BlockStore open(List<LevelSpec> specs, EvictionPolicy.Factory policies, Admission admission,
                                   DatasetShares shares, BlockListener listener, boolean verify) {
        return open(specs, policies, admission, shares, PlannedReads.NONE, listener, verify);
    }

    /** As {@link #open(List, EvictionPolicy.Factory, Admission, DatasetShares, BlockListener, boolean)}, with plans. */
    public static BlockStore open(List<LevelSpec> specs, EvictionPolicy.Factory policies, Admission admission,
                                   DatasetShares shares, PlannedReads plans, BlockListener listener, boolean verify) {
        if (specs.isEmpty()) {
            throw new IllegalArgumentException("a worker needs at least one cache level");
        }
        List<Level> levels = new ArrayList<>();
        for (LevelSpec spec : specs) {
            levels.add(new Level(spec, levels.size(), policies.create()));
        }
        BlockStore store = new BlockStore(List.copyOf(levels), admission, shares, plans, listener);
        for (StoredBlock block : LevelScan.scan(store.levels, verify, listener)) {
            store.index.put(block.key(), block);
            store.held(block, block.length());
            block.dir().add(block.length());
            block.dir().level().policy().admitted(block.key());
        }
        LOG.infof("cache levels hold %d blocks: %s", store.index.size(), store.workerLevels());
        for (Level level : levels) {
            store.evictIfAboveHigh(level, null);
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
        if (plans.read(key) && block != null) {
            spent.get(block.dir().level().rank()).add(new Spent(key, System.nanoTime()));  // a block filled for this
            // read is added on its admission
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
        return reserve(key, bytes, false);
    }

    /**
     * As {@link #reserve(BlockKey, long)}; {@code asked}: someone asked for this block to be cached (a DataLoad, a
     * hand-over), so admission, which judges what readers' misses bring in, does not refuse it: a preload into a
     * cache full of blocks read more often failed with no room otherwise. Eviction still chooses what leaves.
     */
    public Optional<BlockWriter> reserve(BlockKey key, long bytes, boolean asked) {
        Optional<Reservation> reservation = tryReserve(key, bytes, 0);
        if (reservation.isEmpty()) {
            if (!asked && !admits(key, bytes)) {
                return Optional.empty();
            }
            for (Level level : levels) {
                if (bytes <= level.quota()) {
                    evictTo(level, admission == Admission.ALWAYS ? Math.min(level.lowBytes(), level.quota() - bytes)
                            : level.quota() - bytes, key.dataset());
                    reservation = tryReserve(key, bytes, level.rank());
                    if (reservation.isPresent()) {
                        break;
                    }
                }
            }
        }
        return reservation.map(room -> new BlockWriter(this, room));
    }

    /**
     * Whether a newcomer may take the place of the block that would leave the node for it: the last level's first
     * victim not kept for its dataset's share. A newcomer whose dataset is below its own share takes it whatever
     * admission says; when every block there is kept, none.
     */
    private boolean admits(BlockKey key, long bytes) {
        if (admission == Admission.ALWAYS) {
            return true;
        }
        if (plans.ahead(key) && anySpent(key.dataset())) {
            return true;  // a block read later this epoch takes the room of one the epoch read
        }
        Level last = levels.get(levels.size() - 1);
        if (last.policy().victim() == null) {
            return true;  // nothing held there: the room is reserved by writes in progress
        }
        evicting.lock();
        try {
            BlockKey leaving = leaving(last, key.dataset());
            if (leaving == null) {
                return false;
            }
            boolean belowShare = !leaving.dataset().equals(key.dataset())
                    && held(key.dataset()) + bytes <= shares.of(key.dataset()) * capacity;
            return belowShare || admission.admits(key, leaving);
        } finally {
            evicting.unlock();
        }
    }

    /**
     * The level's next victim that may leave the node for a newcomer of {@code dataset} (null: none is waiting, as
     * when the store evicts on its own): the victims kept for their dataset's share are passed over as read.
     */
    private BlockKey leaving(Level level, String dataset) {
        if (!anyMayLeave(dataset)) {
            return null;  // asked per dataset, not per block: a full cache of kept blocks costs no scan per miss
        }
        BlockKey spentOne = spentVictim(level, dataset);
        if (spentOne != null) {
            return spentOne;
        }
        for (int passed = 0; passed <= index.size(); passed++) {
            BlockKey victim = level.policy().victim();
            if (victim == null) {
                return null;
            }
            StoredBlock block = index.get(victim);
            if (block == null || block.dir().level() != level) {
                level.policy().removed(victim);
            } else if (kept(block, dataset)) {
                level.policy().accessed(victim);
            } else {
                return victim;
            }
        }
        return null;  // every block there is kept for its dataset's share
    }

    /** Whether some level holds a spent block that may leave for a newcomer of {@code dataset}. */
    private boolean anySpent(String dataset) {
        evicting.lock();
        try {
            for (Level level : levels) {
                if (spentVictim(level, dataset) != null) {
                    return true;
                }
            }
            return false;
        } finally {
            evicting.unlock();
        }
    }

    /**
     * The level's oldest spent block that may leave for a newcomer of {@code dataset}, left in place; null when none.
     * A block spent less than {@link PlannedReads#graceNanos} ago stays: the read that spent it may not have opened
     * its file yet (a fill's reader opens it after the fill). Entries no longer spent or held are dropped, and ones
     * whose block moved level go to that level's list.
     */
    private BlockKey spentVictim(Level level, String dataset) {
        ConcurrentLinkedDeque<Spent> here = spent.get(level.rank());
        for (Spent oldest; (oldest = here.peekFirst()) != null; ) {
            BlockKey key = oldest.key();
            StoredBlock block = index.get(key);
            if (block == null || !plans.spent(key)) {
                here.remove(oldest);
            } else if (block.dir().level() != level) {
                here.remove(oldest);
                spent.get(block.dir().level().rank()).add(oldest);
            } else if (kept(block, dataset) || System.nanoTime() - oldest.at() < plans.graceNanos()) {
                return null;  // kept for its dataset's share, or just read: the policy chooses among the others
            } else {
                return key;
            }
        }
        return null;
    }

    /** Whether any block may leave the node for a newcomer of {@code dataset}: some dataset holds more than it keeps. */
    private boolean anyMayLeave(String newcomer) {
        for (Map.Entry<String, AtomicLong> held : heldBytes.entrySet()) {
            String dataset = held.getKey();
            double share = dataset.equals(newcomer) || admission.idle(dataset) ? 0 : shares.of(dataset);
            if (held.getValue().get() > share * capacity) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the block stays for its dataset's share: leaving for a newcomer of another would take it below. A
     * dataset nobody read lately ({@link Admission#idle}) keeps no share.
     */
    private boolean kept(StoredBlock block, String newcomer) {
        String dataset = block.key().dataset();
        double share = shares.of(dataset);
        return share > 0 && !dataset.equals(newcomer) && held(dataset) - block.length() < share * capacity
                && !admission.idle(dataset);
    }

    private long held(String dataset) {
        AtomicLong bytes = heldBytes.get(dataset);
        return bytes == null ? 0 : bytes.get();
    }

    private void held(StoredBlock block, long bytes) {
        heldBytes.computeIfAbsent(block.key().dataset(), dataset -> new AtomicLong()).addAndGet(bytes);
    }

    /** Indexes a block a {@link BlockWriter} installed: held from now on, and its level evicted from if need be. */
    void admit(StoredBlock block) {
        index.put(block.key(), block);
        held(block, block.length());
        block.dir().level().policy().admitted(block.key());
        if (plans.spent(block.key())) {
            spent.get(block.dir().level().rank()).add(new Spent(block.key(), System.nanoTime()));  // filled for the
            // read that spent it
        }
        listener.cached(block);
        evictIfAboveHigh(block.dir().level(), block.key().dataset());
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
        held(block, -block.length());
        block.dir().level().policy().removed(block.key());
        block.dir().add(-block.length());
        BlockFileWriter.delete(block.file());
    }

    /**
     * Down to the low watermark past the high one, when every newcomer is admitted; else down to the quota. For a
     * newcomer of {@code dataset} (null: none).
     */
    private void evictIfAboveHigh(Level level, String dataset) {
        if (admission == Admission.ALWAYS) {
            if (level.aboveHigh()) {
                evictTo(level, level.lowBytes(), dataset);
            }
        } else if (level.used() > level.quota()) {
            evictTo(level, level.quota(), dataset);
        }
    }

    /**
     * Evicts the level's victims until it holds at most {@code target} bytes, for a newcomer of {@code dataset} (null:
     * none): a victim moves a level down, or leaves the node unless it is kept for its dataset's share. One eviction
     * runs at a time.
     */
    private void evictTo(Level level, long target, String dataset) {
        evicting.lock();
        try {
            if (level.rank() == levels.size() - 1 && !anyMayLeave(dataset)) {
                return;  // nothing here may leave the node, and there is no level below
            }
            int passed = 0;
            while (level.used() > target) {
                BlockKey spentOne = spentVictim(level, dataset);
                BlockKey victim = spentOne != null ? spentOne : level.policy().victim();
                if (victim == null) {
                    return;  // what is left is reserved by writes in progress
                }
                StoredBlock block = index.get(victim);
                if (block == null || block.dir().level() != level) {
                    level.policy().removed(victim);
                    continue;
                }
                if (spentOne == null && demote(block, dataset)) {
                    continue;  // a spent block leaves the node: no level needs it before the next epoch
                }
                if (kept(block, dataset)) {
                    level.policy().accessed(victim);
                    if (++passed > index.size()) {
                        return;  // every block left is kept for its dataset's share
                    }
                    continue;
                }
                if (index.remove(victim, block)) {
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
    private boolean demote(StoredBlock block, String dataset) {
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
                    : lower.quota() - block.length(), dataset);
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
