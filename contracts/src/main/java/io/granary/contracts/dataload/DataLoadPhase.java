package io.granary.contracts.dataload;

import com.fasterxml.jackson.annotation.JsonProperty;

/** A DataLoad's lifecycle, named as Fluid names it. */
public enum DataLoadPhase {
    @JsonProperty("Pending") PENDING,
    @JsonProperty("Loading") LOADING,
    @JsonProperty("Complete") COMPLETE,
    @JsonProperty("Failed") FAILED,
    @JsonProperty("Cancelled") CANCELLED
}
