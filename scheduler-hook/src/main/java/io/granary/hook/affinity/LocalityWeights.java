package io.granary.hook.affinity;

import io.granary.hook.topology.Location;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Weighs the places holding a pod's data by their share of its cached bytes. The scheduler adds up the weights
 * of every term a node matches, and a cache node also matches its zone's and region's terms, so the weights sit
 * in bands that keep node, zone and region in order whatever the shares: node 51-100, zone 11-50, region 1-10. Any node
 * holding cache then outranks every node that holds none (at least 51+11+1 against at most 50+10), and a node
 * in a zone holding cache outranks one that is only in its region.
 */
public final class LocalityWeights {

    private LocalityWeights() {
    }

    /**
     * @param bytesByNode  cached bytes of the pod's datasets per node
     * @param locate       each node's zone and region
     * @param maxNodeTerms the nodes holding most get a term of their own, at most this many
     */
    public static List<LocalityTerm> terms(Map<String, Long> bytesByNode, Function<String, Location> locate,
                                           int maxNodeTerms) {
        long total = bytesByNode.values().stream().mapToLong(Long::longValue).filter(b -> b > 0).sum();
        if (total == 0) {
            return List.of();
        }
        List<LocalityTerm> terms = new ArrayList<>();
        Map<String, Long> zones = new TreeMap<>();
        Map<String, Long> regions = new TreeMap<>();
        bytesByNode.entrySet().stream()
                .filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .forEach(e -> {
                    if (terms.size() < maxNodeTerms) {
                        terms.add(new LocalityTerm(LocalityTerm.Proximity.NODE, e.getKey(), band(50, 50, e.getValue(), total),
                                e.getValue()));
                    }
                    Location location = locate.apply(e.getKey());
                    add(zones, location.zone(), e.getValue());
                    add(regions, location.region(), e.getValue());
                });
        zones.forEach((zone, bytes) -> terms.add(new LocalityTerm(LocalityTerm.Proximity.ZONE, zone, band(10, 40, bytes, total), bytes)));
        regions.forEach((region, bytes) -> terms.add(new LocalityTerm(LocalityTerm.Proximity.REGION, region, band(0, 10, bytes, total), bytes)));
        terms.sort(Comparator.comparing(LocalityTerm::proximity)
                .thenComparing(Comparator.comparingLong(LocalityTerm::bytes).reversed())
                .thenComparing(LocalityTerm::value));
        return List.copyOf(terms);
    }

    /** {@code floor + ceil(width * share)}: never below floor + 1, at most floor + width. */
    private static int band(int floor, int width, long bytes, long total) {
        return floor + (int) Math.min(width, Math.max(1, Math.ceil(width * (double) bytes / total)));
    }

    private static void add(Map<String, Long> sums, Optional<String> key, long bytes) {
        key.filter(k -> !k.isBlank()).ifPresent(k -> sums.merge(k, bytes, Long::sum));
    }
}
