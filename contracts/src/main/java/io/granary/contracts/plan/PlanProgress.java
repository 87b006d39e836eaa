package io.granary.contracts.plan;

/**
 * How far the reader of a plan got on one worker, from the reads it served and the reads readers on its node
 * reported.
 *
 * @param furthest the furthest position of the plan read here (-1: none)
 * @param read     how many of the plan's blocks here were read this epoch
 */
public record PlanProgress(int epoch, int furthest, int read) {
}
