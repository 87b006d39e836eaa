package io.granary.contracts.plan;

import java.time.Instant;

/**
 * How far an epoch plan's prefetch and its reader are.
 *
 * @param blocks      blocks in the plan, in read order
 * @param position    the furthest block the reader read, as the workers report it (-1: none yet)
 * @param fetched     blocks the prefetch asked the workers to hold so far (held already or filled)
 * @param filled      of those, blocks the workers filled from the under-store
 * @param windowBytes how far ahead of the reader the prefetch runs now, sized from the store's measured speed
 * @param reason      why the plan ended, when it did
 */
public record PlanStatus(String id, String dataset, String job, int epoch, int rank, PlanPhase phase, int files,
                         int blocks, int position, int fetched, int filled, long windowBytes, Instant startedAt,
                         Instant lastReadAt, String reason) {
}
