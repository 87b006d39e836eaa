package io.granary.metadata.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Configuration of the metadata-service, under {@code granary.metadata}. */
@ConfigMapping(prefix = "granary.metadata")
public interface MetadataConfig {

    /** Where the persisted metadata (datasets, file tree, workers, statistics) lives. */
    @WithDefault(".granary/metadata")
    Path dataDir();

    /** How often workers heartbeat; a worker missing {@link #missedHeartbeats()} of them is dead. */
    @WithDefault("5s")
    Duration heartbeatInterval();

    @WithDefault("3")
    int missedHeartbeats();

    /** Roots under which {@code file://} mounts are accepted; none means no local mounts at all. */
    Optional<List<Path>> allowedRoots();

    /** Kubernetes-style secrets directory that {@code credentialsRef} names resolve in. */
    Optional<Path> secretsDir();
}
