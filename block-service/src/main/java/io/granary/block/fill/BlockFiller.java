package io.granary.block.fill;

import io.granary.block.metrics.FillStages;
import io.granary.block.metrics.FillStages.Stage;
import io.granary.block.metrics.ReadStats;
import io.granary.block.store.BlockKey;
import io.granary.block.store.BlockWriter;
import io.granary.block.store.StoredBlock;
import io.granary.block.store.BlockStore;
import io.granary.contracts.block.BlockRef;
import io.granary.kit.client.HandedBlock;
import io.granary.ufs.UnderStoreUnavailableException;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * Cache-aside fills with single-flight: however many readers miss the same block at once, one {@link Filling}
 * reads it from the under-store into the store, and every reader follows its bytes as they are written or waits for
 * the whole block. {@link #fill} blocks (call it off the event loop); {@link #filling} runs it on a given thread.
 */
@ApplicationScoped
public class BlockFiller {

    private static final Logger LOG = Logger.getLogger(BlockFiller.class);
    private static final int CHUNK = 256 * 1024;
    private static final int FIRST_CHUNK = 64 * 1024;

    private final BlockStore store;
    private final BlockSource source;
    private final ReadStats stats;
    private final FillStages stages;
    private final PeerBlocks peers;
    private final Map<BlockKey, Filling> inFlight = new ConcurrentHashMap<>();

    BlockFiller(BlockStore store, BlockSource source, ReadStats stats, FillStages stages, PeerBlocks peers) {
        this.store = store;
        this.peers = peers;
        this.source = source;
        this.stats = stats;
        this.stages = stages;
    }

    /**
     * The block, from the store or filled now; empty when no level could store it, in which case the caller
     * serves it straight from the under-store (a full cache slows a read, never fails it).
     */
    public Optional<StoredBlock> fill(BlockKey key, BlockRef ref) {
        return fill(key, ref, null, false);
    }

    /**
     * @param holder the worker known to hold the block, asked before any other (null: none known)
     * @param asked  the block was asked for (a DataLoad, a hand-over), not missed by a reader: admission does not
     *               refuse it ({@link BlockStore#reserve(BlockKey, long, boolean)})
     */
    public Optional<StoredBlock> fill(BlockKey key, BlockRef ref, String holder, boolean asked) {
        Filling ended = fillOnce(key, ref, holder, asked);
        // A block asked for whose write failed on a level's disk (one full under its quota) is filled once more:
        // the next reservation looks at each file system's room, so it goes to another level if one has it.
        if (asked && ended.diskFailed()) {
            ended = fillOnce(key, ref, holder, true);
        }
        return ended.await();
    }

    /** The block's fill, ended: the one in flight, joined, or one run now on this thread. */
    private Filling fillOnce(BlockKey key, BlockRef ref, String holder, boolean asked) {
        Filling mine = new Filling();
        Filling running = inFlight.putIfAbsent(key, mine);
        if (running != null) {
            stats.singleFlightWait();
            running.await();
            return running;
        }
        run(key, ref, holder, asked, mine);
        return mine;
    }

    /**
     * The block's filling, which a reader follows as its bytes arrive: the one in flight, or one started now on
     * {@code filler} (a blocking thread).
     */
    public Filling filling(BlockKey key, BlockRef ref, Executor filler) {
        Filling mine = new Filling();
        Filling running = inFlight.putIfAbsent(key, mine);
        if (running != null) {
            stats.singleFlightWait();
            return running;
        }
        try {
            filler.execute(() -> run(key, ref, null, false, mine));
        } catch (RuntimeException e) {
            inFlight.remove(key, mine);
            mine.fail(e);
        }
        return mine;
    }

    private void run(BlockKey key, BlockRef ref, String holder, boolean asked, Filling filling) {
        try {
            // Filled by a flight that ended between the caller's lookup and ours (which counted the read).
            Optional<StoredBlock> block = store.peek(key);
            if (block.isEmpty()) {
                block = fetchAndStore(key, ref, holder, asked, filling);
            }
            filling.end(block);
        } catch (RuntimeException e) {
            filling.fail(e);
        } finally {
            inFlight.remove(key, filling);
        }
    }

    private Optional<StoredBlock> fetchAndStore(BlockKey key, BlockRef ref, String holder, boolean asked,
                                                Filling filling) {
        long started = System.nanoTime();
        long blockSize = source.blockSize(key.dataset());
        Optional<BlockWriter> room = store.reserve(key, ref.room(blockSize), asked);
        if (room.isEmpty()) {
            LOG.debugf("no level has room for %s: serving it uncached", key);
            return Optional.empty();
        }
        long reserved = System.nanoTime();
        stages.took(Stage.RESERVE, reserved - started);
        try (BlockWriter writer = room.get()) {  // aborted unless committed
            filling.writing(writer.temp(), writer.dir().level().medium(), ref.fileSize() > 0 ? writer.room() : -1);
            try {
                if (fromPeer(key, ref, holder, writer, filling)) {
                    stats.peerFill(writer.length());
                } else {
                    fromUnderStore(key, ref, blockSize, writer, reserved, filling);
                }
            } catch (LocalWriteFailed e) {
                LOG.warnf("cannot store %s in %s (%s): serving it uncached", key, writer.dir().path(),
                        e.getCause().getMessage());
                filling.diskFailed(true);
                return Optional.empty();
            } catch (IOException e) {
                // The store's stream broke (a reset, a DataNode or NameNode gone mid-read): worth another try later.
                throw new UnderStoreUnavailableException("reading block " + ref.index() + " of '" + ref.path()
                        + "' failed: " + e.getMessage(), e);
            }
            if (writer.length() == 0) {
                throw new NoSuchBlockException("'" + ref.path() + "' has no block " + ref.index());
            }
            try {
                long committing = System.nanoTime();
                StoredBlock block = writer.commit(ref.path(), ref.etag());
                stages.took(Stage.COMMIT, System.nanoTime() - committing);
                return Optional.of(block);
            } catch (IOException e) {
                LOG.warnf("cannot store %s (%s): serving it uncached", key, e.getMessage());
                filling.diskFailed(true);
                return Optional.empty();
            }
        }
    }

    /**
     * The block from a worker that holds it (its owner until membership changed); false when none does or the
     * hand-over broke off: the under-store is then read as for any miss.
     */
    private boolean fromPeer(BlockKey key, BlockRef ref, String holder, BlockWriter writer, Filling filling)
            throws LocalWriteFailed {
        Optional<HandedBlock> peer = peers.open(key, ref, holder);
        if (peer.isEmpty()) {
            return false;
        }
        try (InputStream in = peer.get().body()) {
            // Readers following the fill are shown the bytes only once they match the giver's checksum: damaged
            // bytes must not reach them, and a hand-over is a copy between workers, quick beside a store's read.
            copy(in, writer, null);
            OptionalInt expected = peer.get().crc32c();
            if (expected.isPresent() && expected.getAsInt() != writer.crc32c()) {
                LOG.warnf("hand-over of %s came with bytes its checksum does not match: reading the under-store",
                        key);
                return false;
            }
            filling.wrote(writer.length());
            return writer.length() > 0;
        } catch (LocalWriteFailed e) {
            throw e;
        } catch (IOException e) {
            LOG.debugf("hand-over of %s broke off (%s): reading the under-store", key, e.getMessage());
            return false;
        }
    }

    private void fromUnderStore(BlockKey key, BlockRef ref, long blockSize, BlockWriter writer, long reserved,
                                Filling filling) throws IOException {
        try {
            filling.restarted();
            writer.restart();  // what a hand-over that broke off wrote
        } catch (IOException e) {
            throw new LocalWriteFailed(e);
        }
        try (InputStream in = source.open(key.dataset(), ref, 0, blockSize)) {
            stages.took(Stage.FIRST_BYTE, System.nanoTime() - reserved);
            copy(in, writer, filling);
        }
    }

    /**
     * Copies the block, telling a failing under-store (IOException) from a failing local disk (LocalWriteFailed),
     * and shows each chunk to the readers following {@code filling} (null: none are shown yet).
     */
    private void copy(InputStream in, BlockWriter writer, Filling filling) throws IOException {
        byte[] chunk = new byte[CHUNK];
        long reading = 0;
        long writing = 0;
        int n;
        long mark = System.nanoTime();
        // readNBytes fills the chunk: an S3 body stream hands out a few KiB per read, one write each would cost more.
        // The first is smaller: readers following the fill get their first bytes sooner.
        int wanted = FIRST_CHUNK;
        while ((n = in.readNBytes(chunk, 0, wanted)) > 0) {
            wanted = CHUNK;
            long read = System.nanoTime();
            reading += read - mark;
            if (!writer.fits(n)) {
                throw new IOException("the under-store sent more than a block");
            }
            try {
                writer.write(chunk, 0, n);
            } catch (IOException e) {
                throw new LocalWriteFailed(e);
            }
            if (filling != null) {
                filling.wrote(writer.length());
            }
            mark = System.nanoTime();
            writing += mark - read;
        }
        reading += System.nanoTime() - mark;
        stages.took(Stage.BODY, reading);
        stages.took(Stage.WRITE, writing);
    }

    private static final class LocalWriteFailed extends IOException {
        LocalWriteFailed(IOException cause) {
            super(cause);
        }
    }
}
