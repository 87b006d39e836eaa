package io.granary.contracts.dataset;

import com.fasterxml.jackson.annotation.JsonProperty;

/** A dataset's lifecycle, named as Fluid names it. */
public enum DatasetPhase {
    /** Created; its metadata is being listed from the under-store. */
    @JsonProperty("Pending") PENDING,
    /** Metadata listed; reads and preloads are served. */
    @JsonProperty("Bound") BOUND,
    /** The under-store could not be reached or listed; {@code reason} says why. */
    @JsonProperty("Failed") FAILED
}
