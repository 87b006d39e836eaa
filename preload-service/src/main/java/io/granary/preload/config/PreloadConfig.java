package io.granary.preload.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.net.URI;

/** Configuration of the preload-service, under {@code granary.preload}. */
@ConfigMapping(prefix = "granary.preload")
public interface PreloadConfig {

    /** Where the metadata-service answers (file listings, workers). */
    @WithDefault("http://127.0.0.1:8081")
    URI metadataUrl();

    /** Batch loads in flight per worker at once. */
    @WithDefault("4")
    int concurrencyPerWorker();
}
