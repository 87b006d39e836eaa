package io.granary.block.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Where the time of a block fill goes, stage by stage, as {@code granary_block_fill_stage_seconds{stage}}: the
 * cold path's breakdown, so its cost is read off the metrics rather than guessed.
 */
@Startup
@ApplicationScoped
public class FillStages {

    /** The stages of one fill, in order. */
    public enum Stage {
        /** the dataset's block size and room on a level */
        RESERVE,
        /** the under-store request until its answer's headers */
        FIRST_BYTE,
        /** reading the body from the under-store */
        BODY,
        /** the checksum and the writes of the block file */
        WRITE,
        /** the sidecar, the rename into place, the index and the block event */
        COMMIT,
        /** of the commit, handing the CACHED event to the Kafka client */
        EVENT
    }

    private final Map<Stage, Timer> timers = new EnumMap<>(Stage.class);

    FillStages(MeterRegistry registry) {
        for (Stage stage : Stage.values()) {
            timers.put(stage, Timer.builder("granary.block.fill.stage").tag("stage", stage.name().toLowerCase())
                    .description("time a block fill spends in each stage").register(registry));
        }
    }

    public void took(Stage stage, long nanos) {
        timers.get(stage).record(nanos, TimeUnit.NANOSECONDS);
    }
}
