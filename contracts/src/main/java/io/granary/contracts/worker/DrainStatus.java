package io.granary.contracts.worker;

import com.fasterxml.jackson.annotation.JsonProperty;

import java.time.Instant;

/**
 * A worker leaving without losing the cache: each block it holds is handed to the owner placement gives without it,
 * then it drops them. While draining it owns nothing (placement passes it over) but still hands blocks over.
 *
 * @param blocks   blocks it held when the drain began
 * @param moved    blocks their new owners hold now
 * @param failed   blocks no owner took (none qualifies, or it failed): they are lost to the cache
 * @param deadline past it, what is not moved yet is dropped
 */
public record DrainStatus(Phase phase, int blocks, int moved, int failed, Instant startedAt, Instant deadline,
                          Instant finishedAt) {

    public enum Phase {
        @JsonProperty("Draining") DRAINING,
        @JsonProperty("Drained") DRAINED
    }
}
