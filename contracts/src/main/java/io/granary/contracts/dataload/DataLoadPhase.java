package io.granary.contracts.dataload;

import com.fasterxml.jackson.annotation.JsonProperty;

/** A DataLoad's lifecycle, named as Fluid names it. */
public enum DataLoadPhase {
    @JsonProperty("Pending") PENDING,
    @JsonProperty("Loading") LOADING,
    @JsonProperty("Complete") COMPLETE,
    @JsonProperty("Failed") FAILED,
    @JsonProperty("Cancelled") CANCELLED;

    /** Complete, Failed or Cancelled: this run is over (a scheduled load may run again). */
    public boolean ended() {
        return this == COMPLETE || this == FAILED || this == CANCELLED;
    }
}
