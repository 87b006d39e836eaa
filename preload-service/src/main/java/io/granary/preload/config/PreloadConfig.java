package io.granary.preload.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.nio.file.Path;
import java.time.Duration;

/** Configuration of the preload-service, under {@code granary.preload}. */
@ConfigMapping(prefix = "granary.preload")
public interface PreloadConfig {

    /** Where DataLoads are recorded, so a restart resumes them. */
    @WithDefault(".granary/preload")
    Path dataDir();

    /** Batch loads in flight per worker at once. */
    @WithDefault("4")
    int concurrencyPerWorker();

    /** DataLoads running at once; the rest wait, highest priority first. */
    @WithDefault("2")
    int concurrentLoads();

    /** Blocks per batch load sent to a worker. */
    @WithDefault("32")
    int batchBlocks();

    /** Bytes per second all loads together may ask workers to fill ({@code 200MiB}); 0: no limit. */
    @WithDefault("0")
    String bandwidthLimit();

    /** Failed files a DataLoad reports (the counts stay exact). */
    @WithDefault("50")
    int maxErrors();

    /** Epoch plans: a training job's read order, fetched ahead of its reader. */
    Plan plan();

    interface Plan {

        /** How far ahead of the reader, in time at the store's measured speed, the prefetch runs. */
        @WithDefault("1s")
        Duration lookahead();

        /** The window before the store's speed is known, and its least. */
        @WithDefault("8MiB")
        String minWindow();

        /** The most of the owners' cache the window may take: the rest keeps what the epoch reads later. */
        @WithDefault("0.25")
        double maxWindowShare();

        /** How often the workers are asked how far the reader got. */
        @WithDefault("50ms")
        Duration pollInterval();

        /** A plan whose reader read nothing for this long ends (its reader never came, or its job stopped). */
        @WithDefault("60s")
        Duration expireAfter();

        /** Blocks per batch fill of a plan: small, so the first blocks ahead of the reader come first. */
        @WithDefault("8")
        int batchBlocks();
    }
}
