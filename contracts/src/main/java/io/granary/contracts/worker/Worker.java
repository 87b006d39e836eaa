package io.granary.contracts.worker;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A cache worker as the membership knows it.
 *
 * @param id            stable id; placement hashes it
 * @param node          the node (host) it runs on
 * @param address       base URL of its block API
 * @param labels        matched against a dataset's nodeSelector
 * @param lastHeartbeat when it last reported
 * @param live          false once it missed too many heartbeats
 */
public record Worker(String id, String node, String address, Map<String, String> labels, List<Tier> tiers,
                     Instant lastHeartbeat, boolean live) {

    public Worker {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        tiers = tiers == null ? List.of() : List.copyOf(tiers);
    }

    /** True when every entry of the selector is among this worker's labels; an empty selector takes everyone. */
    public boolean matches(Map<String, String> nodeSelector) {
        return nodeSelector == null || labels.entrySet().containsAll(nodeSelector.entrySet());
    }
}
