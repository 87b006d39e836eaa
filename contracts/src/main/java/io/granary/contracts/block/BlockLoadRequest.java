package io.granary.contracts.block;

import java.util.List;

/** A batch of blocks a worker should hold ({@code POST /blocks/load}), sent by the preload-service. */
public record BlockLoadRequest(String dataset, List<BlockRef> blocks) {

    public BlockLoadRequest {
        blocks = blocks == null ? List.of() : List.copyOf(blocks);
    }
}
