package io.granary.metadata.store;

import java.nio.file.Path;
import java.util.List;

/**
 * How one metadata replica joins the others and where it keeps its state.
 *
 * @param initialHosts TCPPING peers ({@code 127.0.0.1[7800]}); ignored with DNS discovery
 * @param dnsQuery     the headless Service DNS_PING asks; null with TCPPING
 * @param filesInMemory file entries held in memory; the rest stay in the file store
 */
public record ClusterSettings(String clusterName, String nodeName, String bindAddress, int bindPort,
                              List<String> initialHosts, String dnsQuery, Path dataDir, long filesInMemory) {

    public ClusterSettings {
        initialHosts = List.copyOf(initialHosts);
    }
}
