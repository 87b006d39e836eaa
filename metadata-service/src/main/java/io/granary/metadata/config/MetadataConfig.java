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

    /**
     * How often the coordinator looks for workers that missed their heartbeats, and a replica renews the leases of
     * the listings it runs. A worker's own period comes with its heartbeats; this one stands in for a worker that
     * does not say.
     */
    @WithDefault("5s")
    Duration sweepInterval();

    /** Heartbeats in a row, each of the worker's own period, a worker may miss before it is dead. */
    @WithDefault("3")
    int missedHeartbeats();

    /**
     * How long no worker at all may be heard before that silence counts against them: shorter silences are the
     * heartbeats' consumer group rebalancing or the broker restarting, not every worker dying at once. A lone
     * worker that dies is left after this.
     */
    @WithDefault("60s")
    Duration quietLimit();

    /**
     * How long a call that is done by an event (freeing a cache) waits for Kafka to take it; longer (the broker
     * restarting) answers 503 with Retry-After, and the event may still go out once Kafka is back: asking again is
     * safe.
     */
    @WithDefault("5s")
    Duration eventTimeout();

    /**
     * File entries the replicated cache keeps in memory; the rest stay in its store on disk. Stats and listings read
     * the replica's sorted file index, not these.
     */
    @WithDefault("10000")
    long filesInMemory();

    /** Memory the file index's page cache may take (the index itself is on disk, under the data directory). */
    @WithDefault("64MiB")
    String fileIndexCache();

    /** How often the coordinator looks for expired metadataTtls and lapsed listings ({@code Resync}). */
    @WithDefault("10s")
    Duration resyncCheck();

    Cluster cluster();

    /** The JGroups cluster of the metadata replicas. */
    interface Cluster {

        @WithDefault("granary-metadata")
        String name();

        /** This replica's name in the cluster; defaults to host name and port. */
        Optional<String> nodeName();

        @WithDefault("127.0.0.1")
        String bindAddress();

        @WithDefault("7800")
        int bindPort();

        /** {@code tcpping}: a fixed list of peers (local, compose); {@code dns}: DNS_PING (Kubernetes). */
        @WithDefault("tcpping")
        String discovery();

        /** Peers for TCPPING, as {@code host[port]}; this replica may be among them. */
        @WithDefault("127.0.0.1[7800]")
        List<String> initialHosts();

        /** The headless Service DNS_PING asks, e.g. {@code metadata-service-headless.granary.svc.cluster.local}. */
        Optional<String> dnsQuery();
    }
}
