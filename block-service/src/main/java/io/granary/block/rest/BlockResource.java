package io.granary.block.rest;

import io.granary.block.config.BlockConfig;
import io.granary.block.drain.WorkerDrain;
import io.granary.block.fill.BatchFiller;
import io.granary.block.metrics.ReadStats;
import io.granary.block.store.BlockKey;
import io.granary.block.store.BlockStore;
import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.BlockId;
import io.granary.contracts.block.BlockFillRequest;
import io.granary.contracts.block.BlockFillResult;
import io.granary.contracts.block.LocalReads;
import io.granary.contracts.dataset.DatasetPaths;
import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.ValidationException;
import io.granary.kit.rest.ConflictProblem;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The management side of the block API: batch fills, short-circuit read reports, eviction, statistics. Reads and
 * writes are {@link BlockRoutes}.
 */
@Path("/blocks")
@Produces(MediaType.APPLICATION_JSON)
public class BlockResource {

    private final BatchFiller batches;
    private final WorkerDrain drain;
    private final BlockStore store;
    private final ReadStats stats;
    private final BlockConfig config;

    BlockResource(BatchFiller batches, BlockStore store, ReadStats stats, BlockConfig config, WorkerDrain drain) {
        this.drain = drain;
        this.batches = batches;
        this.store = store;
        this.stats = stats;
        this.config = config;
    }

    /**
     * Makes this worker hold the blocks (the preload-service's call); answers what was cached, filled, failed. A
     * worker leaving refuses (409): what it took now its drain would drop, after the sender dropped its copy.
     */
    @POST
    @Path("fill")
    @Consumes(MediaType.APPLICATION_JSON)
    public BlockFillResult fill(BlockFillRequest request) {
        if (request == null) {
            throw new ValidationException("body", "is required");
        }
        Check.datasetName("dataset", request.dataset());
        for (int i = 0; i < request.blocks().size(); i++) {
            var block = request.blocks().get(i);
            String field = "blocks[" + i + "]";
            Check.required(field, block);
            Check.required(field + ".etag", block.etag());
            String path = DatasetPaths.normalize(field + ".path", Check.required(field + ".path", block.path()));
            if (!path.equals(block.path()) || path.endsWith("/")) {
                throw new ValidationException(field + ".path", "must be a normalised file path, such as a/b.jpg");
            }
            if (block.index() < 0) {
                throw new ValidationException(field + ".index", "must not be negative");
            }
        }
        if (drain.status() != null) {
            throw new ConflictProblem("worker", "this worker is leaving (draining or drained): ask the blocks' owners");
        }
        return batches.fill(request);
    }

    /**
     * The gateway on this node read these blocks from their files itself (short-circuit): they count as this
     * worker's reads, and each block found is an access for its level's eviction policy. Nothing is applied unless
     * the whole report is valid.
     */
    @POST
    @Path("{dataset}/reads")
    @Consumes(MediaType.APPLICATION_JSON)
    public void reads(@PathParam("dataset") String dataset, LocalReads reads) {
        Check.datasetName("dataset", dataset);
        if (reads == null) {
            throw new ValidationException("body", "is required");
        }
        if (reads.misses() < 0) {
            throw new ValidationException("misses", "must not be negative");
        }
        if (reads.bytes() < 0) {
            throw new ValidationException("bytes", "must not be negative");
        }
        Map<BlockKey, Integer> hits = new HashMap<>();
        reads.hits().forEach((id, count) -> {
            if (count < 1) {
                throw new ValidationException("hits." + id, "must be a positive count");
            }
            try {
                hits.put(new BlockKey(dataset, BlockId.parse(id)), count);
            } catch (IllegalArgumentException e) {
                throw new ValidationException("hits", e.getMessage());
            }
        });
        // A block evicted since it was read is not counted: its level is gone with it.
        hits.forEach((key, count) -> store.reportedReads(key, count)
                .ifPresent(block -> stats.hits(dataset, block.medium(), count)));
        stats.misses(dataset, reads.misses());
        stats.servedShortCircuit(dataset, reads.bytes());
    }

    /** Which of these blocks this worker holds, and their lengths: what a listing shows as cached. */
    @POST
    @Path("{dataset}/held")
    @Consumes(MediaType.APPLICATION_JSON)
    public Map<String, Long> held(@PathParam("dataset") String dataset, List<String> ids) {
        Check.datasetName("dataset", dataset);
        if (ids == null) {
            throw new ValidationException("body", "a list of block ids is required");
        }
        if (ids.size() > BlockApi.MAX_HELD_QUERY) {
            throw new ValidationException("body", "at most " + BlockApi.MAX_HELD_QUERY + " block ids at once, not "
                    + ids.size());
        }
        Map<String, Long> held = new HashMap<>();
        for (int i = 0; i < ids.size(); i++) {
            String text = ids.get(i);
            BlockId id;
            try {
                id = BlockId.parse(text);
            } catch (IllegalArgumentException e) {
                throw new ValidationException("[" + i + "]", e.getMessage());
            }
            store.peek(new BlockKey(dataset, id)).ifPresent(block -> held.put(text, block.length()));
        }
        return held;
    }

    /** Drops the dataset's blocks, or those of files under {@code prefix}. */
    @DELETE
    @Path("{dataset}")
    public BlockStore.Eviction evict(@PathParam("dataset") String dataset, @QueryParam("prefix") String prefix) {
        Check.datasetName("dataset", dataset);
        return store.evict(dataset, DatasetPaths.normalize("prefix", prefix));
    }

    @GET
    @Path("stats")
    public WorkerStats stats() {
        return new WorkerStats(config.workerId(), store.workerLevels(), store.blockCount(), store.bytesByDataset(),
                stats.hits(), stats.misses(), stats.bytesServed(), stats.underStoreReadCount(),
                stats.underStoreBytesRead(), stats.byDataset());
    }
}
