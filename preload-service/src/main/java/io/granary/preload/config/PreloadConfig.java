package io.granary.preload.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.nio.file.Path;

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
}
