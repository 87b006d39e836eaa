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
 */
public record BlockFillRequest(String dataset, List<BlockRef> blocks, boolean forReader, String holder) {

    public BlockFillRequest {
        blocks = blocks == null ? List.of() : List.copyOf(blocks);
    }

    public BlockFillRequest(String dataset, List<BlockRef> blocks, boolean forReader) {
        this(dataset, blocks, forReader, null);
    }
}
