package io.granary.fuse.read;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.granary.contracts.block.BlockId;
import io.granary.contracts.block.BlockSlice;
import io.granary.contracts.block.Blocks;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.worker.Worker;
import io.granary.fuse.metrics.FuseMetrics;
import io.granary.kit.blockfile.BlockFileReader;
import io.granary.kit.blockfile.OpenBlockFile;
import io.granary.kit.client.BlockClient;
import io.granary.kit.client.LiveWorkers;
import io.granary.kit.client.LocalReadReports;
import io.granary.kit.client.WorkerCallFailed;
import io.granary.ufs.MountedStores;
import io.vertx.core.buffer.Buffer;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;

/**
 * Reads a file's bytes block by block, each from the first of: its file on this node when an owner runs here (a
 * short-circuit read, no copy through any process), or, not held there, from the file that owner fills it in, as
 * soon as the bytes read are in it (or, failing that, asked of the owner, which streams a miss as it fills it);
 * the blocks held in memory; its owners over HTTP, which fill it on a miss; the under-store itself. Reads of one
 * block by many threads share one fetch, and a file read in sequence fetches the next blocks ahead. A worker that fails is passed over (the {@link BlockClient} suspects it):
 * a dead worker slows a read, never fails it. Reads of a worker's files are reported to it ({@link LocalReadReports}):
 * they never reach it otherwise, and its eviction and admission must see them.
 */
public final class BlockReads {

    private static final Logger LOG = Logger.getLogger(BlockReads.class);
    /** Block files of workers on this node kept open between reads: a block read by many requests is opened once. */
    private static final int OPEN_FILES = 4_096;
    /** How often a block file being filled is looked at until a read's bytes are in it: a fill writes 64-256 KiB. */
    private static final long FOLLOW_POLL_NANOS = 200_000;

    private final LiveWorkers workers;
    private final BlockClient blocks;
    private final BlockFileReader local;
    private final MountedStores stores;
    private final FuseMetrics metrics;
    private final int readAhead;
    /** Whole blocks read from owners on other nodes (or the under-store), by dataset and block id. */
    private final AsyncCache<BlockKey, byte[]> remote;
    private final LocalReadReports reports;
    /** Blocks a local owner filled ahead of their reader: the fill counted the read, the reader reports a miss. */
    private final Cache<BlockKey, Boolean> filledAhead = Caffeine.newBuilder().maximumSize(10_000).build();

    private record BlockKey(String dataset, String blockId) {
    }

    public BlockReads(LiveWorkers workers, BlockClient blocks, LocalReadReports reports, String node,
                      MountedStores stores, FuseMetrics metrics, long cacheBytes, int readAhead, Executor fetchers) {
        this.workers = workers;
        this.blocks = blocks;
        this.reports = reports;
        this.local = new BlockFileReader(node, OPEN_FILES, Long.MAX_VALUE);
        this.stores = stores;
        this.metrics = metrics;
        this.readAhead = readAhead;
        this.remote = Caffeine.newBuilder().maximumWeight(cacheBytes)
                .<BlockKey, byte[]>weigher((key, bytes) -> bytes.length).executor(fetchers).buildAsync();
    }

    /**
     * Reads up to {@code dst.remaining()} bytes of the file from {@code offset} into {@code dst}.
     *
     * @return the bytes read: fewer only at the end of the file, 0 at or past it
     */
    public int read(Dataset dataset, FileInfo file, long offset, ByteBuffer dst, OpenFile reader)
            throws IOException, InterruptedException {
        long started = System.nanoTime();
        long blockSize = dataset.spec().blockSizeBytes();
        List<BlockSlice> slices = Blocks.covering(file.size(), blockSize, offset, dst.remaining());
        int read = 0;
        for (BlockSlice slice : slices) {
            readSlice(dataset, file, slice, dst, reader);
            read += (int) slice.length();
        }
        if (!slices.isEmpty() && reader.continues(offset, read)) {
            BlockSlice last = slices.get(slices.size() - 1);
            readAhead(dataset, file, blockSize, last.index() + 1);
        }
        metrics.readTook(System.nanoTime() - started);
        return read;
    }

    /** Forgets the blocks held in memory of a dataset (its cache was freed, or it changed). */
    public void forget(String dataset) {
        remote.synchronous().asMap().keySet().removeIf(key -> key.dataset().equals(dataset));
    }

    /** Closes the kept block files whose block was evicted or freed since: their space is given back. */
    public void closeStale() {
        local.closeStale();
    }

    public void close() {
        local.close();
    }

    private void readSlice(Dataset dataset, FileInfo file, BlockSlice slice, ByteBuffer dst, OpenFile reader)
            throws IOException, InterruptedException {
        String blockId = BlockId.of(dataset.name(), file.path(), file.etag(), slice.index()).toString();
        List<Worker> owners = workers.owners(blockId, dataset.spec().nodeSelector(), dataset.spec().replicas());
        for (Worker owner : owners) {
            if (!local.reaches(owner)) {
                continue;
            }
            Optional<OpenBlockFile> opened = local.open(owner, dataset.name(), blockId);
            if (opened.isPresent() && readWhole(opened.get(), slice, dst)) {
                metrics.served(FuseMetrics.LOCAL, slice.length());
                boolean filled = filledAhead.asMap().remove(new BlockKey(dataset.name(), blockId)) != null;
                if (reader.entersBlock(slice.index()) || filled) {
                    reports.read(owner, dataset.name(), blockId, slice.length(), filled);
                }
                return;
            }
            if (followHere(owner, dataset, file, slice, blockId, dst)) {
                reader.entersBlock(slice.index());
                return;
            }
            if (rangeHere(owner, dataset, file, slice, dst)) {
                reader.entersBlock(slice.index());  // the owner counted this read: the block's next reads are not new
                return;
            }
        }
        byte[] block = block(dataset, file, slice, blockId, owners);
        dst.put(block, (int) slice.offsetInBlock(), (int) slice.length());
    }

    /**
     * The slice of a block not held on this node's owner, read from the file the owner fills it in as soon as the
     * slice's bytes are there: the owner fills the block (joining a fill in flight) and names its temporary file
     * once the store's first bytes are in it, so the reader waits for its bytes, not for the block, and no byte
     * passes through the worker's HTTP. False when the owner could not (no room, a failed fill, a fill that wrote
     * nothing for the hedge delay): read another way.
     */
    private boolean followHere(Worker owner, Dataset dataset, FileInfo file, BlockSlice slice, String blockId,
                               ByteBuffer dst) throws IOException, InterruptedException {
        BlockClient.Following following;
        try {
            following = BlockClient.await(blocks.follow(owner, dataset.name(), file, slice.index()));
        } catch (WorkerCallFailed e) {
            if (e.status() == 412 || e.status() == 404) {
                throw new StaleFileException(file.path(), e);
            }
            return false;
        } catch (RuntimeException e) {
            return false;
        }
        if (following.bypassed()) {
            return false;
        }
        Optional<Path> temp = following.filling() == null ? Optional.empty()
                : local.filling(owner, dataset.name(), blockId, following.level(), following.filling());
        if (temp.isEmpty()) {
            return readInstalled(owner, dataset, blockId, slice, dst);
        }
        long end = slice.offsetInBlock() + slice.length();
        long stall = blocks.hedgeDelay().toNanos();
        try (FileChannel channel = FileChannel.open(temp.get())) {
            long size = channel.size();
            long grewAt = System.nanoTime();
            while (size < end) {
                if (!Files.exists(temp.get()) && channel.size() < end) {
                    return readInstalled(owner, dataset, blockId, slice, dst);  // it ended: installed, or failed
                }
                long now = System.nanoTime();
                long grown = channel.size();
                if (grown > size) {
                    size = grown;
                    grewAt = now;
                } else if (now - grewAt > stall) {
                    return false;  // the fill wrote nothing for as long as an owner may be silent
                } else {
                    LockSupport.parkNanos(FOLLOW_POLL_NANOS);
                }
            }
            ByteBuffer into = dst.duplicate();
            into.limit(into.position() + (int) slice.length());
            long position = slice.offsetInBlock();
            while (into.hasRemaining()) {
                int n = channel.read(into, position);
                if (n < 0) {
                    return false;
                }
                position += n;
            }
            dst.position(dst.position() + (int) slice.length());
        } catch (NoSuchFileException e) {
            return readInstalled(owner, dataset, blockId, slice, dst);
        }
        metrics.served(FuseMetrics.LOCAL, slice.length());
        reports.read(owner, dataset.name(), blockId, slice.length(), true);
        return true;
    }

    /**
     * The slice read from a block file, released after; false, with {@code dst} as it was, when the file was written
     * to meanwhile (its bytes may be damaged): the worker, which checks such a file, is asked instead.
     */
    private static boolean readWhole(OpenBlockFile file, BlockSlice slice, ByteBuffer dst) throws IOException {
        int start = dst.position();
        try {
            file.read(slice.offsetInBlock(), (int) slice.length(), dst);
            if (file.unchanged()) {
                return true;
            }
        } finally {
            file.release();
        }
        LOG.warnf("block file %s was written to while it was read: asking its worker", file.path());
        dst.position(start);
        return false;
    }

    /** The slice from the block file its owner on this node installed, reported as a read it filled. */
    private boolean readInstalled(Worker owner, Dataset dataset, String blockId, BlockSlice slice, ByteBuffer dst)
            throws IOException {
        Optional<OpenBlockFile> opened = local.open(owner, dataset.name(), blockId);
        if (opened.isEmpty() || !readWhole(opened.get(), slice, dst)) {
            return false;
        }
        metrics.served(FuseMetrics.LOCAL, slice.length());
        reports.read(owner, dataset.name(), blockId, slice.length(), true);
        return true;
    }

    /**
     * The slice of a block not held on this node's owner, asked of that owner, which streams a miss as it fills the
     * block (and stores it for the next reads, which go to its file): the reader waits for its bytes, not for the
     * block. False when the owner failed: read elsewhere.
     */
    private boolean rangeHere(Worker owner, Dataset dataset, FileInfo file, BlockSlice slice, ByteBuffer dst)
            throws IOException, InterruptedException {
        try {
            Buffer bytes = BlockClient.await(blocks.range(owner, dataset.name(), file, slice));
            dst.put(bytes.getByteBuf().nioBuffer());
            metrics.served(FuseMetrics.OWNER, slice.length());
            return true;
        } catch (WorkerCallFailed e) {
            if (e.status() == 412 || e.status() == 404) {
                throw new StaleFileException(file.path(), e);
            }
            LOG.debugf("block %d of %s from %s failed: %s", slice.index(), file.path(), owner.id(), e.getMessage());
            return false;
        } catch (RuntimeException e) {
            LOG.debugf("block %d of %s from %s failed: %s", slice.index(), file.path(), owner.id(), e.getMessage());
            return false;
        }
    }

    private byte[] block(Dataset dataset, FileInfo file, BlockSlice slice, String blockId, List<Worker> owners)
            throws IOException, InterruptedException {
        boolean[] fetched = {false};
        CompletableFuture<byte[]> loading = remote.get(new BlockKey(dataset.name(), blockId), (key, executor) -> {
            fetched[0] = true;
            return CompletableFuture.supplyAsync(() -> fetch(dataset, file, slice, owners), executor);
        });
        try {
            byte[] block = loading.get();
            if (!fetched[0]) {
                metrics.served(FuseMetrics.MEMORY, slice.length());
            }
            return block;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof CompletionException ? e.getCause().getCause() : e.getCause();
            throw cause instanceof IOException io ? io : new IOException(cause);
        }
    }

    /** The whole block from its owners in turn, then from the under-store. Runs on a fetcher thread. */
    private byte[] fetch(Dataset dataset, FileInfo file, BlockSlice slice, List<Worker> owners) {
        int length = Math.toIntExact(slice.blockLength());
        long started = System.nanoTime();
        for (Worker owner : owners) {
            try {
                byte[] block = BlockClient.await(blocks.block(owner, dataset.name(), file, slice.index(), length))
                        .getBytes();
                metrics.served(FuseMetrics.OWNER, length);
                return block;
            } catch (WorkerCallFailed e) {
                if (e.status() == 412 || e.status() == 404) {
                    throw new CompletionException(new StaleFileException(file.path(), e));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CompletionException(e);
            } catch (RuntimeException e) {
                LOG.debugf("block %d of %s from %s failed after %d ms: %s", slice.index(), file.path(), owner.id(),
                        (System.nanoTime() - started) / 1_000_000, e.getMessage());
            }
        }
        long fromStore = System.nanoTime();
        try {
            MountedStores.Located located = stores.locate(dataset.spec().mounts(), file.path());
            try (InputStream in = located.store().read(located.key(), file.etag(), slice.blockOffset(), length)) {
                byte[] block = in.readNBytes(length);
                if (block.length != length) {
                    throw new IOException("the under-store ended block " + slice.index() + " of " + file.path()
                            + " after " + block.length + " of " + length + " bytes");
                }
                metrics.served(FuseMetrics.UNDER_STORE, length);
                LOG.debugf("block %d of %s read from the under-store in %d ms (%d ms after the fetch began)",
                        slice.index(), file.path(), (System.nanoTime() - fromStore) / 1_000_000,
                        (System.nanoTime() - started) / 1_000_000);
                return block;
            }
        } catch (IOException | RuntimeException e) {
            throw new CompletionException(e instanceof IOException ? e : new IOException(e.getMessage(), e));
        }
    }

    /** The next blocks of a file read in sequence, fetched before they are asked for. */
    private void readAhead(Dataset dataset, FileInfo file, long blockSize, int from) {
        int last = Math.min(Blocks.count(file.size(), blockSize) - 1, from + readAhead - 1);
        for (int index = from; index <= last; index++) {
            BlockSlice slice = Blocks.covering(file.size(), blockSize, index * blockSize, blockSize).get(0);
            String blockId = BlockId.of(dataset.name(), file.path(), file.etag(), index).toString();
            List<Worker> owners = workers.owners(blockId, dataset.spec().nodeSelector(), dataset.spec().replicas());
            Optional<Worker> here = owners.stream().filter(local::reaches).findFirst();
            if (here.isPresent()) {
                if (local.find(here.get(), dataset.name(), blockId).isEmpty()) {
                    blocks.fill(here.get(), dataset.name(), file, slice.index()).onComplete(filled -> {
                        if (filled.succeeded() && filled.result()) {
                            filledAhead.put(new BlockKey(dataset.name(), blockId), Boolean.TRUE);
                        } else if (filled.failed()) {
                            LOG.debugf("read-ahead fill of block %d of %s failed: %s", slice.index(), file.path(),
                                    filled.cause().getMessage());
                        }
                    });
                }
            } else {
                remote.get(new BlockKey(dataset.name(), blockId), (key, executor) -> CompletableFuture.supplyAsync(
                        () -> fetch(dataset, file, slice, owners), executor)).exceptionally(failure -> {
                            LOG.debugf("read-ahead of block %d of %s failed: %s", slice.index(), file.path(),
                                    failure.getMessage());
                            return null;
                        });
            }
        }
    }

    /** The file changed in the under-store since its metadata was read: the caller must look it up again. */
    public static final class StaleFileException extends IOException {
        StaleFileException(String path, Throwable cause) {
            super("'" + path + "' changed in the under-store", cause);
        }
    }
}
