package io.granary.block.fill;

import io.granary.block.metrics.FillStages;
import io.granary.block.metrics.FillStages.Stage;
import io.granary.block.metrics.ReadStats;
import io.granary.block.store.BlockKey;
import io.granary.block.store.Reservation;
import io.granary.block.store.StoredBlock;
import io.granary.block.store.TieredStore;
import io.granary.contracts.block.BlockRef;
import io.granary.ufs.UnderStoreException;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32C;

/**
 * Cache-aside fills with single-flight: however many readers miss the same block at once, one of them reads it
 * from the under-store into the store and the others wait for that block. Blocking; call it off the event loop.
 */
@ApplicationScoped
public class BlockFiller {

    private static final Logger LOG = Logger.getLogger(BlockFiller.class);
    private static final int CHUNK = 256 * 1024;

    private final TieredStore store;
    private final BlockSource source;
    private final ReadStats stats;
    private final FillStages stages;
    private final PeerBlocks peers;
    private final Map<BlockKey, CompletableFuture<Optional<StoredBlock>>> inFlight = new ConcurrentHashMap<>();

    BlockFiller(TieredStore store, BlockSource source, ReadStats stats, FillStages stages, PeerBlocks peers) {
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
            // Filled by a flight that ended between the caller's lookup and ours.
            Optional<StoredBlock> block = store.find(key);
            if (block.isEmpty()) {
                block = load(key, ref, holder);
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

    private Optional<StoredBlock> load(BlockKey key, BlockRef ref, String holder) {
        long started = System.nanoTime();
        long blockSize = source.blockSize(key.dataset());
        Optional<Reservation> room = store.reserve(key, blockSize);
        if (room.isEmpty()) {
            LOG.debugf("no level has room for %s: serving it uncached", key);
            return Optional.empty();
        }
        Reservation reservation = room.get();
        long length;
        CRC32C crc = new CRC32C();
        long reserved = System.nanoTime();
        stages.took(Stage.RESERVE, reserved - started);
        try {
            length = fromPeer(key, ref, holder, reservation, crc);
            if (length > 0) {
                stats.peerFill(length);
            } else {
                length = fromUnderStore(key, ref, blockSize, reservation, crc, reserved);
            }
        } catch (LocalWriteFailed e) {
            store.abort(reservation);
            LOG.warnf("cannot store %s in %s (%s): serving it uncached", key, reservation.dir().path(),
                    e.getCause().getMessage());
            return Optional.empty();
        } catch (IOException e) {
            store.abort(reservation);
            throw new UnderStoreException("reading block " + ref.index() + " of '" + ref.path() + "' failed: "
                    + e.getMessage(), e);
        } catch (RuntimeException e) {
            store.abort(reservation);
            throw e;
        }
        if (length == 0) {
            store.abort(reservation);
            throw new NoSuchBlockException("'" + ref.path() + "' has no block " + ref.index());
        }
        try {
            long committing = System.nanoTime();
            StoredBlock block = store.commit(reservation, length, (int) crc.getValue(), ref.path(), ref.etag());
            stages.took(Stage.COMMIT, System.nanoTime() - committing);
            return Optional.of(block);
        } catch (IOException e) {
            LOG.warnf("cannot store %s (%s): serving it uncached", key, e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * The block from a worker that holds it (its owner until membership changed), or 0 when none does or the hand-over
     * broke off: the under-store is then read as for any miss.
     */
    private long fromPeer(BlockKey key, BlockRef ref, String holder, Reservation reservation, CRC32C crc)
            throws LocalWriteFailed {
        Optional<InputStream> peer = peers.open(key, ref, holder);
        if (peer.isEmpty()) {
            return 0;
        }
        try (InputStream in = peer.get();
             FileChannel out = FileChannel.open(reservation.temp(), StandardOpenOption.WRITE)) {
            return copy(in, out, crc, reservation);
        } catch (LocalWriteFailed e) {
            throw e;
        } catch (IOException e) {
            LOG.debugf("hand-over of %s broke off (%s): reading the under-store", key, e.getMessage());
            crc.reset();
            return 0;
        }
    }

    private long fromUnderStore(BlockKey key, BlockRef ref, long blockSize, Reservation reservation, CRC32C crc,
                                long reserved) throws IOException {
        try (InputStream in = source.open(key.dataset(), ref, 0, blockSize);
             FileChannel out = FileChannel.open(reservation.temp(), StandardOpenOption.WRITE,
                     StandardOpenOption.TRUNCATE_EXISTING)) {
            stages.took(Stage.FIRST_BYTE, System.nanoTime() - reserved);
            return copy(in, out, crc, reservation);
        }
    }

    /** Copies the block, telling a failing under-store (IOException) from a failing local disk (LocalWriteFailed). */
    private long copy(InputStream in, FileChannel out, CRC32C crc, Reservation reservation) throws IOException {
        byte[] chunk = new byte[CHUNK];
        long total = 0;
        long reading = 0;
        long writing = 0;
        int n;
        long mark = System.nanoTime();
        // readNBytes fills the chunk: an S3 body stream hands out a few KiB per read, one write each would cost more.
        while ((n = in.readNBytes(chunk, 0, CHUNK)) > 0) {
            long read = System.nanoTime();
            reading += read - mark;
            total += n;
            if (total > reservation.bytes()) {
                throw new IOException("the under-store sent more than a block");
            }
            crc.update(chunk, 0, n);
            try {
                ByteBuffer buffer = ByteBuffer.wrap(chunk, 0, n);
                while (buffer.hasRemaining()) {
                    out.write(buffer);
                }
            } catch (IOException e) {
                throw new LocalWriteFailed(e);
            }
            mark = System.nanoTime();
            writing += mark - read;
        }
        reading += System.nanoTime() - mark;
        stages.took(Stage.BODY, reading);
        stages.took(Stage.WRITE, writing);
        return total;
    }

    private static final class LocalWriteFailed extends IOException {
        LocalWriteFailed(IOException cause) {
            super(cause);
        }
    }
}
