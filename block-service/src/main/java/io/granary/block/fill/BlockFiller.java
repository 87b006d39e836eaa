package io.granary.block.fill;

import io.granary.block.metrics.FillStages;
import io.granary.block.metrics.FillStages.Stage;
import io.granary.block.metrics.ReadStats;
import io.granary.block.store.BlockKey;
import io.granary.block.store.BlockWriter;
import io.granary.block.store.StoredBlock;
import io.granary.block.store.BlockStore;
import io.granary.contracts.block.BlockRef;
import io.granary.ufs.UnderStoreException;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Cache-aside fills with single-flight: however many readers miss the same block at once, one of them reads it
 * from the under-store into the store and the others wait for that block. Blocking; call it off the event loop.
 */
@ApplicationScoped
public class BlockFiller {

    private static final Logger LOG = Logger.getLogger(BlockFiller.class);
    private static final int CHUNK = 256 * 1024;

    private final BlockStore store;
    private final BlockSource source;
    private final ReadStats stats;
    private final FillStages stages;
    private final PeerBlocks peers;
    private final Map<BlockKey, CompletableFuture<Optional<StoredBlock>>> inFlight = new ConcurrentHashMap<>();

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
        return fill(key, ref, null);
    }

    /** @param holder the worker known to hold the block, asked before any other (null: none known) */
    public Optional<StoredBlock> fill(BlockKey key, BlockRef ref, String holder) {
        CompletableFuture<Optional<StoredBlock>> mine = new CompletableFuture<>();
        CompletableFuture<Optional<StoredBlock>> running = inFlight.putIfAbsent(key, mine);
        if (running != null) {
            stats.singleFlightWait();
            try {
                return running.join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException cause ? cause : e;
            }
        }
        try {
            // Filled by a flight that ended between the caller's lookup and ours (which counted the read).
            Optional<StoredBlock> block = store.peek(key);
            if (block.isEmpty()) {
                block = fetchAndStore(key, ref, holder);
            }
            mine.complete(block);
            return block;
        } catch (RuntimeException e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            inFlight.remove(key, mine);
        }
    }

    private Optional<StoredBlock> fetchAndStore(BlockKey key, BlockRef ref, String holder) {
        long started = System.nanoTime();
        long blockSize = source.blockSize(key.dataset());
        Optional<BlockWriter> room = store.reserve(key, ref.room(blockSize));
        if (room.isEmpty()) {
            LOG.debugf("no level has room for %s: serving it uncached", key);
            return Optional.empty();
        }
        long reserved = System.nanoTime();
        stages.took(Stage.RESERVE, reserved - started);
        try (BlockWriter writer = room.get()) {  // aborted unless committed
            try {
                if (fromPeer(key, ref, holder, writer)) {
                    stats.peerFill(writer.length());
                } else {
                    fromUnderStore(key, ref, blockSize, writer, reserved);
                }
            } catch (LocalWriteFailed e) {
                LOG.warnf("cannot store %s in %s (%s): serving it uncached", key, writer.dir().path(),
                        e.getCause().getMessage());
                return Optional.empty();
            } catch (IOException e) {
                throw new UnderStoreException("reading block " + ref.index() + " of '" + ref.path() + "' failed: "
                        + e.getMessage(), e);
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
                return Optional.empty();
            }
        }
    }

    /**
     * The block from a worker that holds it (its owner until membership changed); false when none does or the
     * hand-over broke off: the under-store is then read as for any miss.
     */
    private boolean fromPeer(BlockKey key, BlockRef ref, String holder, BlockWriter writer) throws LocalWriteFailed {
        Optional<InputStream> peer = peers.open(key, ref, holder);
        if (peer.isEmpty()) {
            return false;
        }
        try (InputStream in = peer.get()) {
            copy(in, writer);
            return writer.length() > 0;
        } catch (LocalWriteFailed e) {
            throw e;
        } catch (IOException e) {
            LOG.debugf("hand-over of %s broke off (%s): reading the under-store", key, e.getMessage());
            return false;
        }
    }

    private void fromUnderStore(BlockKey key, BlockRef ref, long blockSize, BlockWriter writer, long reserved)
            throws IOException {
        try {
            writer.restart();  // what a hand-over that broke off wrote
        } catch (IOException e) {
            throw new LocalWriteFailed(e);
        }
        try (InputStream in = source.open(key.dataset(), ref, 0, blockSize)) {
            stages.took(Stage.FIRST_BYTE, System.nanoTime() - reserved);
            copy(in, writer);
        }
    }

    /** Copies the block, telling a failing under-store (IOException) from a failing local disk (LocalWriteFailed). */
    private void copy(InputStream in, BlockWriter writer) throws IOException {
        byte[] chunk = new byte[CHUNK];
        long reading = 0;
        long writing = 0;
        int n;
        long mark = System.nanoTime();
        // readNBytes fills the chunk: an S3 body stream hands out a few KiB per read, one write each would cost more.
        while ((n = in.readNBytes(chunk, 0, CHUNK)) > 0) {
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
