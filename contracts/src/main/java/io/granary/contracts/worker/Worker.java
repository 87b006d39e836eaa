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
 * @param startedAt     when the worker process started; null when it never said
 * @param hits          block reads it served from cache since it started
 * @param misses        block reads it had to fetch from the under-store
 * @param bytesServed   bytes readers got from it (sent, or read from its files on its node)
 * @param drain         its drain when it is leaving (placement passes it over); null otherwise
 */
public record Worker(String id, String node, String address, Map<String, String> labels, List<WorkerLevel> levels,
                     Instant lastHeartbeat, boolean live, Instant startedAt, long hits, long misses,
                     long bytesServed, DrainStatus drain) {

    public Worker {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        levels = levels == null ? List.of() : List.copyOf(levels);
    }

    /** The same worker, counted out of the membership after missing its heartbeats. */
    public Worker left() {
        return new Worker(id, node, address, labels, levels, lastHeartbeat, false, startedAt, hits, misses, bytesServed,
                drain);
    }

    /** Live and not leaving: a worker placement may give blocks to. */
    public boolean owns() {
        return live && drain == null;
    }

    /** True when every entry of the selector is among this worker's labels; an empty selector takes everyone. */
    public boolean matches(Map<String, String> nodeSelector) {
        return nodeSelector == null || labels.entrySet().containsAll(nodeSelector.entrySet());
    }
}
