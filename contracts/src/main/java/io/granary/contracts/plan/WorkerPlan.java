package io.granary.contracts.plan;

import java.util.List;

/**
 * The part of an epoch plan one worker owns ({@code PUT /blocks/plans/{id}}): its blocks of the plan and where each
 * comes in the plan's order, so it can say how far the reader got and evict first the blocks the epoch read.
 *
 * @param blocks    block ids ({@code BlockId} text) this worker owns, in read order
 * @param positions each block's place in the whole plan's order, ascending
 */
public record WorkerPlan(String dataset, int epoch, List<String> blocks, List<Integer> positions) {

    public WorkerPlan {
        blocks = blocks == null ? List.of() : List.copyOf(blocks);
        positions = positions == null ? List.of() : List.copyOf(positions);
        if (blocks.size() != positions.size()) {
            throw new IllegalArgumentException("a position for every block: " + blocks.size() + " blocks, "
                    + positions.size() + " positions");
        }
    }
}
