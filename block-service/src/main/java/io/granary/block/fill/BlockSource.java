package io.granary.block.fill;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.granary.block.config.BlockConfig;
import io.granary.block.stats.ReadStats;
import io.granary.contracts.block.BlockRef;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.contracts.dataset.Mount;
import io.granary.contracts.dataset.MountedPath;
import io.granary.ufs.CredentialsResolver;
import io.granary.ufs.ObjectChangedException;
import io.granary.ufs.ObjectInfo;
import io.granary.ufs.ObjectNotFoundException;
import io.granary.ufs.UnderStore;
import io.granary.ufs.UnderStores;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;

/**
 * Reads blocks from the under-store their dataset's mount points at, only from the file version the caller named.
 * Under-stores are opened once per mount and kept (an S3 client holds a connection pool).
 */
@ApplicationScoped
public class BlockSource {

    private final DatasetDirectory datasets;
    private final UnderStores stores;
    private final ReadStats stats;
    private final Cache<Mount, UnderStore> open = Caffeine.newBuilder().maximumSize(1_000)
            .<Mount, UnderStore>removalListener((mount, store, cause) -> {
                if (store != null) {
                    store.close();
                }
            }).build();

    BlockSource(DatasetDirectory datasets, BlockConfig config, ReadStats stats) {
        this.datasets = datasets;
        this.stats = stats;
        this.stores = new UnderStores(config.allowedRoots().orElse(List.of()),
                CredentialsResolver.fromEnvironment(config.secretsDir().orElse(null)));
    }

    public long blockSize(String dataset) {
        return datasets.spec(dataset).blockSizeBytes();
    }

    /** The length of a block of the file as the under-store has it now (a stat: the last block may be short). */
    public long blockLength(String dataset, BlockRef block) {
        DatasetSpec spec = datasets.spec(dataset);
        MountedPath mounted = mounted(dataset, spec, block);
        ObjectInfo info = open.get(mounted.mount(), stores::open).stat(mounted.key());
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
     * @throws UnknownDatasetException               when the dataset does not exist
     */
    public InputStream open(String dataset, BlockRef block, long offsetInBlock, long length) {
        DatasetSpec spec = datasets.spec(dataset);
        long blockSize = spec.blockSizeBytes();
        MountedPath mounted = mounted(dataset, spec, block);
        UnderStore store = open.get(mounted.mount(), stores::open);
        long wanted = length < 0 ? blockSize - offsetInBlock : Math.min(length, blockSize - offsetInBlock);
        long started = System.nanoTime();
        InputStream in = store.read(mounted.key(), block.etag(), block.index() * blockSize + offsetInBlock, wanted);
        stats.underStoreRead(Duration.ofNanos(System.nanoTime() - started));
        return new Counted(in);
    }

    private static MountedPath mounted(String dataset, DatasetSpec spec, BlockRef block) {
        MountedPath mounted = MountedPath.resolve(spec.mounts(), block.path());
        if (mounted == null) {
            throw new ObjectNotFoundException("no mount of dataset " + dataset + " holds '" + block.path() + "'");
        }
        return mounted;
    }

    @PreDestroy
    void close() {
        open.invalidateAll();
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
