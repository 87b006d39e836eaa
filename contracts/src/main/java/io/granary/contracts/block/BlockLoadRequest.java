package io.granary.contracts.block;

import java.util.List;

/**
 * A batch of blocks a worker should hold ({@code POST /blocks/load}), sent by the preload-service, and by the
 * gateway to fill blocks on its node that it then sends from their files.
 *
 * @param forReader a reader waits on these blocks (the gateway's fills): they are filled at once, not queued behind
 *                  preloads, which share a limited number of fills
 */
public record BlockLoadRequest(String dataset, List<BlockRef> blocks, boolean forReader) {

    public BlockLoadRequest {
        blocks = blocks == null ? List.of() : List.copyOf(blocks);
    }
}
