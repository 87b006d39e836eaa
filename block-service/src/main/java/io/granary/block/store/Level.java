package io.granary.block.store;

import io.granary.contracts.worker.Medium;
import io.granary.kit.blockfile.BlockFileWriter;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A cache level at run time: its directories, what they hold, and room reserved by blocks being written. Room is
 * reserved before a byte is written, so the level never holds more than its quota.
 */
public final class Level {

    private static final Logger LOG = Logger.getLogger(Level.class);

    private final LevelSpec spec;
    private final int rank;
    private final List<LevelDir> dirs;
    private final EvictionPolicy policy;
    private final AtomicLong reserved = new AtomicLong();

    Level(LevelSpec spec, int rank, EvictionPolicy policy) {
        this.spec = spec;
        this.rank = rank;
        this.policy = policy;
        this.dirs = spec.paths().stream().map(path -> new LevelDir(this, path.toAbsolutePath())).toList();
    }

    public Medium medium() {
        return spec.medium();
    }

    /** 0 for the fastest level. */
    public int rank() {
        return rank;
    }

    public long quota() {
        return spec.quota();
    }

    public List<LevelDir> dirs() {
        return dirs;
    }

    /** Bytes held plus bytes reserved by writes in progress. */
    public long used() {
        long used = reserved.get();
        for (LevelDir dir : dirs) {
            used += dir.used();
        }
        return used;
    }

    EvictionPolicy policy() {
        return policy;
    }

    /**
     * @param dir where the block goes: its filesystem must have room for it and for the writes in progress here
     *            too (each reserved its block's room, but has not written it all yet)
     */
    private synchronized boolean tryReserve(long bytes, LevelDir dir) {
        if (used() + bytes > spec.quota() || !dir.fits(bytes + reserved.get())) {
            return false;
        }
        reserved.addAndGet(bytes);
        return true;
    }

    /**
     * Room for a block of at most {@code bytes} here, and the temporary file its bytes go to; empty when the level
     * is full, its directory's filesystem has not the room (a disk filled by something else: the block would fail
     * half way, served uncached, where another level could have held it), or its directory cannot be written (the
     * caller tries the next level).
     */
    Optional<Reservation> reserve(BlockKey key, long bytes) {
        LevelDir dir = dirFor(key);
        if (!tryReserve(bytes, dir)) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Reservation(key, dir,
                    BlockFileWriter.createTemp(dir.path().toString(), key.dataset(), key.id().toString()), bytes));
        } catch (IOException e) {
            release(bytes);
            LOG.warnf("cannot write in %s (%s): trying the next level", dir.path(), e.getMessage());
            return Optional.empty();
        }
    }

    void release(long bytes) {
        reserved.addAndGet(-bytes);
    }

    boolean aboveHigh() {
        return used() > highBytes();
    }

    long highBytes() {
        return (long) (spec.quota() * spec.high());
    }

    long lowBytes() {
        return (long) (spec.quota() * spec.low());
    }

    /** A block always lands in the same directory of a level, so the quota spreads evenly over the paths. */
    LevelDir dirFor(BlockKey key) {
        return dirs.get(Math.floorMod(key.id().hashCode(), dirs.size()));
    }

    @Override
    public String toString() {
        return spec.medium() + "(" + spec.paths() + ")";
    }
}
