package io.granary.metadata.store;

import org.infinispan.Cache;
import org.infinispan.lifecycle.ComponentStatus;
import org.infinispan.partitionhandling.AvailabilityMode;
import org.infinispan.commons.dataconversion.MediaType;
import org.infinispan.configuration.cache.ConfigurationBuilder;
import org.infinispan.configuration.parsing.ConfigurationBuilderHolder;
import org.infinispan.configuration.parsing.ParserRegistry;
import org.infinispan.manager.DefaultCacheManager;
import org.infinispan.manager.EmbeddedCacheManager;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The replicated state of the metadata-service: one embedded Infinispan node in a JGroups cluster of the replicas,
 * with four REPL_SYNC caches, each persisted to a SoftIndexFileStore under the data directory so that a full
 * restart keeps everything. Values are JSON strings (or longs), which ProtoStream marshals without schemas.
 */
public final class MetadataCaches implements AutoCloseable {

    public static final String DATASETS = "datasets";
    public static final String FILES = "files";
    public static final String WORKERS = "workers";
    public static final String STATS = "stats";

    private final EmbeddedCacheManager manager;
    private final boolean joined;

    public MetadataCaches(ClusterSettings settings) {
        ConfigurationBuilderHolder holder = new ParserRegistry().parse(xml(settings), MediaType.APPLICATION_XML);
        Map<String, ConfigurationBuilder> caches = new LinkedHashMap<>(holder.getNamedConfigurationBuilders());
        holder.getNamedConfigurationBuilders().clear();
        manager = new DefaultCacheManager(holder, true);  // joins the cluster: the members are known from here
        // Joining replicas that stayed up: their state is the truth. Preloading our store from before would bring
        // back whatever was deleted while we were down, since state transfer only adds entries; so it is purged.
        // Alone (the first up, or a full restart), the store is all there is and is preloaded.
        boolean joining = manager.getMembers() != null && manager.getMembers().size() > 1;
        joined = joining;
        try {
            caches.forEach((name, builder) -> {
                builder.persistence().stores().forEach(store -> store.purgeOnStartup(joining).preload(!joining));
                manager.defineConfiguration(name, builder.build());
            });
            // Starting the caches here (not lazily) waits for the initial state transfer from the other replicas.
            manager.startCaches(DATASETS, FILES, WORKERS, STATS);
        } catch (RuntimeException e) {
            manager.stop();  // leave the cluster and free the port, or a retry could never bind it
            throw e;
        }
    }

    public Cache<String, String> datasets() {
        return manager.getCache(DATASETS);
    }

    public Cache<String, String> files() {
        return manager.getCache(FILES);
    }

    public Cache<String, String> workers() {
        return manager.getCache(WORKERS);
    }

    public Cache<String, Long> stats() {
        return manager.getCache(STATS);
    }

    /** Whether this replica joined running ones at start (its state came from them, not from its own store). */
    public boolean joined() {
        return joined;
    }

    /** True on exactly one replica at a time: the one that runs cluster-wide chores (liveness sweep, resync). */
    public boolean coordinator() {
        return manager.isCoordinator();
    }

    public int members() {
        return manager.getMembers() == null ? 1 : manager.getMembers().size();
    }

    /**
     * Why this replica cannot serve its replicated state, or empty when it can: its cache manager and each of its
     * caches running and available, and a cluster view it is in (a stopped transport leaves none).
     */
    public Optional<String> unavailable() {
        if (manager.getStatus() != ComponentStatus.RUNNING) {
            return Optional.of("cache manager " + manager.getStatus());
        }
        if (manager.getMembers() == null || !manager.getMembers().contains(manager.getAddress())) {
            return Optional.of("not in a cluster view");
        }
        for (String name : List.of(DATASETS, FILES, WORKERS, STATS)) {
            if (!manager.cacheExists(name) || !manager.isRunning(name)) {
                return Optional.of("cache " + name + " not running");
            }
            AvailabilityMode mode = manager.getCache(name).getAdvancedCache().getAvailability();
            if (mode != AvailabilityMode.AVAILABLE) {
                return Optional.of("cache " + name + " " + mode);
            }
        }
        return Optional.empty();
    }

    @Override
    public void close() {
        manager.stop();
    }

    static String xml(ClusterSettings settings) {
        String discovery = settings.dnsQuery() != null
                ? "<dns.DNS_PING dns_query=\"" + attr(settings.dnsQuery()) + "\" stack.combine=\"REPLACE\" stack.position=\"MPING\"/>"
                : "<TCPPING initial_hosts=\"" + attr(String.join(",", settings.initialHosts()))
                  + "\" port_range=\"0\" stack.combine=\"REPLACE\" stack.position=\"MPING\"/>";
        String caches = List.of(DATASETS, FILES, WORKERS, STATS).stream()
                .map(name -> cache(name, settings))
                .collect(Collectors.joining("\n"));
        return """
                <infinispan>
                  <jgroups>
                    <stack name="granary" extends="tcp">
                      <TCP bind_addr="%s" bind_port="%d" port_range="0" stack.combine="COMBINE"/>
                      %s
                    </stack>
                  </jgroups>
                  <cache-container name="granary-metadata" shutdown-hook="DONT_REGISTER">
                    <transport cluster="%s" stack="granary" node-name="%s"/>
                    %s
                  </cache-container>
                </infinispan>
                """.formatted(attr(settings.bindAddress()), settings.bindPort(), discovery,
                attr(settings.clusterName()), attr(settings.nodeName()), caches);
    }

    private static String cache(String name, ClusterSettings settings) {
        Path dir = settings.dataDir().toAbsolutePath().resolve(name);
        // Only the file tree can outgrow memory; the rest is small and stays whole in memory.
        String memory = FILES.equals(name) ? "<memory max-count=\"" + settings.filesInMemory() + "\"/>" : "";
        return """
                <replicated-cache name="%s" mode="SYNC" statistics="true">
                  <encoding media-type="application/x-protostream"/>
                  %s
                  <persistence passivation="false">
                    <file-store purge="false" preload="true">
                      <data path="%s"/>
                      <index path="%s"/>
                    </file-store>
                  </persistence>
                </replicated-cache>""".formatted(name, memory, attr(dir.resolve("data").toString()),
                attr(dir.resolve("index").toString()));
    }

    private static String attr(String value) {
        return value.replace("&", "&amp;").replace("\"", "&quot;").replace("<", "&lt;");
    }
}
