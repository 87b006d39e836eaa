package io.granary.block.fill;

import io.granary.block.client.DatasetDirectory;
import io.granary.kit.rest.DatasetNotFoundException;
import io.granary.block.metrics.ReadStats;
import io.granary.contracts.block.BlockRef;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.ufs.MountedStores;
import io.granary.ufs.ObjectChangedException;
import io.granary.ufs.ObjectInfo;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;

/**
 * Reads blocks from the under-store their dataset's mount points at, only from the file version the caller named.
 */
@ApplicationScoped
public class BlockSource {

    private final DatasetDirectory datasets;
    private final MountedStores stores;
    private final ReadStats stats;

    BlockSource(DatasetDirectory datasets, MountedStores stores, ReadStats stats) {
        this.datasets = datasets;
        this.stores = stores;
        this.stats = stats;
    }

    public long blockSize(String dataset) {
        return datasets.spec(dataset).blockSizeBytes();
    }

    /** The length of a block of the file as the under-store has it now (a stat: the last block may be short). */
    public long blockLength(String dataset, BlockRef block) {
        DatasetSpec spec = datasets.spec(dataset);
        MountedStores.Located located = stores.locate(spec.mounts(), block.path());
        ObjectInfo info = located.store().stat(located.key());
        if (!info.etag().equals(block.etag())) {
            throw new ObjectChangedException("'" + block.path() + "' is no longer version " + block.etag());
        }
        long length = Math.min(spec.blockSizeBytes(), info.size() - block.index() * spec.blockSizeBytes());
        if (length <= 0) {
            throw new NoSuchBlockException("'" + block.path() + "' has no block " + block.index());
        }
        return length;
    }

    /**
     * Streams {@code length} bytes (-1: to the block's end) from {@code offsetInBlock} of the block.
     *
     * @throws io.granary.ufs.ObjectChangedException when the file is no longer the version the caller named
     * @throws DatasetNotFoundException             when the dataset does not exist
     */
    public InputStream open(String dataset, BlockRef block, long offsetInBlock, long length) {
        DatasetSpec spec = datasets.spec(dataset);
        long blockSize = spec.blockSizeBytes();
        MountedStores.Located located = stores.locate(spec.mounts(), block.path());
        long wanted = length < 0 ? blockSize - offsetInBlock : Math.min(length, blockSize - offsetInBlock);
        long started = System.nanoTime();
        InputStream in = located.store().read(located.key(), block.etag(), block.index() * blockSize + offsetInBlock,
                wanted);
        stats.underStoreRead(Duration.ofNanos(System.nanoTime() - started));
        return new Counted(in);
    }

    /** Counts the bytes fetched, however the reader consumes them. */
    private final class Counted extends FilterInputStream {

        Counted(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                stats.underStoreBytes(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
                stats.underStoreBytes(n);
            }
            return n;
        }
    }
}
