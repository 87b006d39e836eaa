package io.granary.hook.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/** Configuration of the admission webhook, under {@code granary.hook}. */
@ConfigMapping(prefix = "granary.hook")
public interface HookConfig {

    /**
     * How long the webhook waits for the metadata-service before it admits the pod unchanged. Well inside the
     * API server's webhook timeout, so a slow metadata-service never blocks pod creation.
     */
    @WithDefault("2s")
    Duration deadline();

    /** The gateway Service injected into pods as AWS_ENDPOINT_URL. */
    @WithDefault("http://granary-gateway:8080")
    URI gatewayEndpoint();

    /** Where the FUSE DaemonSet mounts each dataset on a cache node: {@code <fuse-root>/<dataset>}. */
    @WithDefault("/mnt/granary")
    String fuseRoot();

    /** At most this many nodes get a term of their own (the ones holding most); keeps the pod spec small. */
    @WithDefault("10")
    int maxNodeTerms();

    /** How often the TLS certificate files are checked; a renewal is loaded within this. */
    @WithDefault("10s")
    Duration tlsCheckPeriod();

    Kubernetes kubernetes();

    /** The API server the node topology (zone, region labels) is read from. */
    interface Kubernetes {

        /** Off where there is no cluster ({@code ./granary up}): pods then get node terms only. */
        @WithDefault("true")
        boolean enabled();

        /** Unset: the pod's service account in a cluster, else ~/.kube/config. */
        Optional<URI> url();
    }
}
