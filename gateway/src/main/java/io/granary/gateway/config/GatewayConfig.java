package io.granary.gateway.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.net.URI;

/** Configuration of the gateway, under {@code granary.gateway}. */
@ConfigMapping(prefix = "granary.gateway")
public interface GatewayConfig {

    /** The metadata-service that owns datasets, files and workers. */
    @WithDefault("http://127.0.0.1:8081")
    URI metadataUrl();

    /** The preload-service that owns DataLoads. */
    @WithDefault("http://127.0.0.1:8084")
    URI preloadUrl();

    /** S3 region the gateway answers as. */
    @WithDefault("us-east-1")
    String region();
}
