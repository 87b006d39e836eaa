package io.granary.kit.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The settings every service reads under one key each; a service's own settings live under
 * {@code granary.<service>}. Defaults and the {@code local} profile: {@code META-INF/microprofile-config.properties}
 * of this module.
 */
@ConfigMapping(prefix = "granary")
public interface GranaryConfig {

    /**
     * The metadata-service ({@code GRANARY_METADATA_URL}); also the REST client's URL. Its default sits in this
     * module's config file, not here: the client's URL refers to it even in a service that never injects this.
     */
    URI metadataUrl();

    /**
     * The node (host) this process runs on ({@code GRANARY_NODE}, in Kubernetes the downward API's
     * {@code spec.nodeName}; else the host name): a gateway reads the block files of workers on its own node.
     */
    String node();

    /**
     * Where secrets are mounted, Kubernetes style ({@code <dir>/<ref>/<key>}): the cluster credential, the
     * identities and their keys, a mount's {@code credentialsRef}. Unset, or a secret without its directory there:
     * the environment ({@code GRANARY_SECRET_<REF>_<KEY>}). {@code SecretFiles} reads them.
     */
    Optional<Path> secretsDir();

    /** The region AWS signatures are scoped to, on the S3 API and the management API alike. */
    @WithDefault("us-east-1")
    String region();

    /** Directories under which {@code file://} mounts may point; unset: no local mounts at all. */
    Optional<List<Path>> allowedRoots();

    /**
     * The local profile's one directory ({@code ./granary up --data}): its files are the under-store, its
     * {@code .granary/} every service's state. Unused outside that profile.
     */
    Optional<Path> dataDir();

    /** The local profile's tmpfs directory for MEM blocks, one per local system. */
    Optional<Path> memDir();
}
