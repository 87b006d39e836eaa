package io.granary.gateway.read;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.granary.contracts.block.BlockId;
import io.granary.contracts.block.BlockFillRequest;
import io.granary.contracts.block.BlockRef;
import io.granary.contracts.block.Blocks;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.worker.Worker;
import io.granary.kit.client.BlockClient;
import io.granary.kit.client.LiveWorkers;
import io.granary.kit.config.ReadConfig;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Read-ahead across requests: S3 clients read a large object as a run of ranged GETs (s3fs, boto3, the AWS CLI).
 * When a range starts where the last one of the same file ended, the owners of the blocks after it are told to
 * load them now ({@code POST /blocks/fill}, fire and forget), so the next GET finds them cached. Random access
 * prefetches nothing.
 */
@ApplicationScoped
public class SequentialPrefetch {

    private static final Logger LOG = Logger.getLogger(SequentialPrefetch.class);

    private final LiveWorkers liveWorkers;
    private final ShortCircuit shortCircuit;
    private final BlockClient blockClient;
    private final int blocksAhead;
    /** Where the last range of each file ended: a run of reads of one file is one sequence. */
    private final Cache<String, Long> ends = Caffeine.newBuilder().maximumSize(100_000)
            .expireAfterAccess(Duration.ofMinutes(2)).build();

    SequentialPrefetch(LiveWorkers liveWorkers, ShortCircuit shortCircuit, BlockClient blockClient, ReadConfig read) {
        this.liveWorkers = liveWorkers;
        this.shortCircuit = shortCircuit;
        this.blockClient = blockClient;
        this.blocksAhead = read.readAhead();
    }

    /** A range of {@code file} is being read: if it continues the previous one, load what comes after it. */
    public void rangeRead(Dataset dataset, FileInfo file, long offset, long length) {
        String key = dataset.name() + '\0' + file.path() + '\0' + file.etag();
        long end = offset + length;
        Long previousEnd = ends.asMap().put(key, end);
        int[] after = blocksAfter(previousEnd, offset, end, file.size(), dataset.spec().blockSizeBytes(), blocksAhead);
        Map<Worker, List<BlockRef>> byOwner = new java.util.HashMap<>();
        for (int index : after) {
            String blockId = BlockId.of(dataset.name(), file.path(), file.etag(), index).toString();
            List<Worker> owners = liveWorkers.owners(blockId, dataset.spec().nodeSelector(), dataset.spec().replicas());
            if (!owners.isEmpty() && !shortCircuit.holds(owners.get(0), dataset.name(), blockId)) {
                byOwner.computeIfAbsent(owners.get(0), o -> new ArrayList<>()).add(new BlockRef(file.path(), file.etag(), index, file.size()));
            }
        }
        byOwner.forEach((owner, blocks) -> blockClient.fill(owner, new BlockFillRequest(dataset.name(), blocks, true))
                .onFailure(failure -> LOG.debugf("prefetch on %s failed: %s", owner.id(), failure.getMessage())));
    }

    /**
     * The blocks to load after a read of {@code [offset, end)} of a file: the {@code blocksAhead} after the block it
     * ends in, when it starts where the last read of the file ended ({@code previousEnd}; null: none) and stops
     * short of the file's end; none otherwise.
     */
    static int[] blocksAfter(Long previousEnd, long offset, long end, long fileSize, long blockSize, int blocksAhead) {
        if (blocksAhead < 1 || previousEnd == null || previousEnd != offset || end >= fileSize) {
            return new int[0];
        }
        int first = Math.toIntExact((end - 1) / blockSize) + 1;
        int last = Math.min(Blocks.count(fileSize, blockSize) - 1, first + blocksAhead - 1);
        return IntStream.rangeClosed(first, last).toArray();
    }
}
