package io.granary.hook.topology;

import java.util.Map;
import java.util.Optional;

/**
 * Where a node sits, from its well-known labels; any may be missing.
 *
 * @param hostname its {@code kubernetes.io/hostname} label, which usually but not always equals its name
 */
public record Location(Optional<String> hostname, Optional<String> zone, Optional<String> region) {

    public static final String HOSTNAME_LABEL = "kubernetes.io/hostname";
    public static final String ZONE_LABEL = "topology.kubernetes.io/zone";
    public static final String REGION_LABEL = "topology.kubernetes.io/region";
    public static final Location UNKNOWN = new Location(Optional.empty(), Optional.empty(), Optional.empty());

    static Location of(Map<String, String> labels) {
        return labels == null ? UNKNOWN : new Location(Optional.ofNullable(labels.get(HOSTNAME_LABEL)),
                Optional.ofNullable(labels.get(ZONE_LABEL)), Optional.ofNullable(labels.get(REGION_LABEL)));
    }
}
