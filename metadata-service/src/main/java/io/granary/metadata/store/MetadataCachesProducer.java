package io.granary.metadata.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.block.ByteSize;
import io.granary.metadata.config.MetadataConfig;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** Starts this replica's Infinispan node with the service and hands its caches to the services. */
@Singleton
public class MetadataCachesProducer {

    @Produces
    @Singleton
    @Startup
    MetadataCaches caches(MetadataConfig config) {
        MetadataConfig.Cluster cluster = config.cluster();
        boolean dns = "dns".equalsIgnoreCase(cluster.discovery());
        if (dns && cluster.dnsQuery().isEmpty()) {
            throw new IllegalStateException("granary.metadata.cluster.dns-query is required with discovery=dns");
        }
        return new MetadataCaches(new ClusterSettings(cluster.name(),
                cluster.nodeName().orElseGet(() -> hostName() + "-" + cluster.bindPort()),
                cluster.bindAddress(), cluster.bindPort(), cluster.initialHosts(),
                dns ? cluster.dnsQuery().get() : null, config.dataDir(), config.filesInMemory()));
    }

    void close(@Disposes MetadataCaches caches) {
        caches.close();
    }

    @Produces
    @Singleton
    DatasetRegistry datasets(MetadataCaches caches, ObjectMapper json) {
        return new DatasetRegistry(caches.datasets(), json);
    }

    @Produces
    @Singleton
    @Startup
    FileTree files(MetadataCaches caches, ObjectMapper json, MetadataConfig config) {
        return new FileTree(caches.files(), json, config.dataDir().toAbsolutePath().resolve("file-index"),
                !caches.joined(), ByteSize.parse("granary.metadata.file-index-cache", config.fileIndexCache()));
    }

    void close(@Disposes FileTree files) {
        files.close();
    }

    @Produces
    @Singleton
    WorkerRegistry workers(MetadataCaches caches, ObjectMapper json) {
        return new WorkerRegistry(caches.workers(), json);
    }

    @Produces
    @Singleton
    CachedBytes cachedBytes(MetadataCaches caches) {
        return new CachedBytes(caches.stats());
    }

    @Produces
    @Singleton
    ListingLeases listingLeases(MetadataCaches caches) {
        return new ListingLeases(caches.stats());
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
