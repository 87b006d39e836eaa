package io.granary.contracts.dataload;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Run a DataLoad once, or again on a cron schedule (e.g. before every nightly training run). */
public enum LoadPolicy {
    @JsonProperty("Once") ONCE,
    @JsonProperty("Cron") CRON
}
