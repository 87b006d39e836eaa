package io.granary.contracts.block;

import java.util.List;

/**
 * A batch of blocks a worker should hold ({@code POST /blocks/fill}), sent by the preload-service, and by the
 * gateway to fill blocks on its node that it then sends from their files.
 *
 * @param forReader a reader waits on these blocks (the gateway's fills): they are filled at once, not queued behind
 *                  preloads, which share a limited number of fills
 * @param holder    the id of the worker that holds these blocks and hands them over (a drain, a rebalance): they are
 *                  asked of it first; null when none is known
 * @param prefetch  an epoch plan's fetch ahead of its reader: each block stands in for that reader's miss, so the
 *                  worker's admission judges it as it would the miss (it takes a spent block's room, and never
 *                  pushes out a block the epoch reads sooner), where a DataLoad's block is stored whatever admission
 *                  says
 */
public record BlockFillRequest(String dataset, List<BlockRef> blocks, boolean forReader, String holder,
                               boolean prefetch) {

    public BlockFillRequest {
        blocks = blocks == null ? List.of() : List.copyOf(blocks);
    }

    public BlockFillRequest(String dataset, List<BlockRef> blocks, boolean forReader) {
        this(dataset, blocks, forReader, null, false);
    }

    public BlockFillRequest(String dataset, List<BlockRef> blocks, boolean forReader, String holder) {
        this(dataset, blocks, forReader, holder, false);
    }

    /** An epoch plan's fetch ahead of its reader. */
    public static BlockFillRequest prefetch(String dataset, List<BlockRef> blocks) {
        return new BlockFillRequest(dataset, blocks, false, null, true);
    }

    /**
     * Whether the blocks were asked for (a DataLoad, a hand-over, a write-through's push), so the worker stores them
     * whatever its admission says; false when they stand in for a reader's misses (a reader's own fill, a plan's
     * prefetch), which admission judges.
     */
    public boolean asked() {
        return !forReader && !prefetch;
    }
}
