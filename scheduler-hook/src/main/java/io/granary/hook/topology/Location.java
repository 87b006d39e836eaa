package io.granary.hook.topology;

import java.util.Map;
import java.util.Optional;

/** Where a node sits, from its well-known topology labels; either may be missing. */
public record Location(Optional<String> zone, Optional<String> region) {

    public static final String ZONE_LABEL = "topology.kubernetes.io/zone";
    public static final String REGION_LABEL = "topology.kubernetes.io/region";
    public static final Location UNKNOWN = new Location(Optional.empty(), Optional.empty());

    static Location of(Map<String, String> labels) {
        return labels == null ? UNKNOWN
                : new Location(Optional.ofNullable(labels.get(ZONE_LABEL)), Optional.ofNullable(labels.get(REGION_LABEL)));
    }
}
