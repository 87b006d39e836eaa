package io.granary.operator.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/** The operator's settings ({@code granary.operator.*}); Granary's own ({@code granary.metadata-url}...) are shared. */
@ConfigMapping(prefix = "granary.operator")
public interface OperatorConfig {

    /** Run the reconcilers; off, the service only answers health (a test of something else, a dry start). */
    @WithDefault("true")
    boolean enabled();

    /** The preload-service, which runs DataLoads ({@code GRANARY_OPERATOR_PRELOAD_URL}); also its REST client's URL. */
    URI preloadUrl();

    /** The Kubernetes API; unset: the pod's own service account, or the kubeconfig outside a cluster. */
    Optional<String> kubernetesUrl();

    /** The namespaces whose resources are reconciled; unset: every namespace. */
    Optional<Set<String>> namespaces();

    /**
     * The namespace Granary runs in: the Secrets a Dataset's {@code credentialsRef} names are looked up there, as
     * the services mount them from there.
     */
    @WithDefault("granary")
    String granaryNamespace();

    /** The FUSE client's root on the cache nodes: a Dataset's PersistentVolume is its directory below it. */
    @WithDefault("/mnt/granary")
    Path fuseRoot();

    /** The label the cache nodes carry (they run the FUSE client): a Dataset's volume may be used there only. */
    @WithDefault("granary.io/cache-node=true")
    String cacheNodeLabel();

    /**
     * How often a Bound Dataset's cache figures are read again (cached bytes move with every block a worker
     * keeps, which the operator does not consume); phases and DataLoads' progress come from Granary's events.
     */
    @WithDefault("30s")
    Duration resync();

    /** Retries of a reconcile that failed (Granary unreachable): the first wait, doubled each time up to the last. */
    @WithDefault("1s")
    Duration retryFirst();

    @WithDefault("60s")
    Duration retryMost();
}
