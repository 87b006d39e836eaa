package io.granary.hook.affinity;

import io.granary.hook.topology.Location;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

class LocalityWeightsTest {

    private static final long MIB = 1 << 20;

    @Test
    void sharesSetTheWeightWithinEachBand() {
        Map<String, Location> where = Map.of(
                "a", location("z1", "r1"), "b", location("z1", "r1"), "c", location("z2", "r1"));
        List<LocalityTerm> terms = LocalityWeights.terms(Map.of("a", 600 * MIB, "b", 300 * MIB, "c", 100 * MIB),
                where::get, 10);
        assertThat(terms).extracting(LocalityTerm::value, LocalityTerm::weight).containsExactly(
                tuple("a", 80), tuple("b", 65),
                tuple("c", 55), tuple("z1", 46),
                tuple("z2", 14), tuple("r1", 10));
    }

    @Test
    void nothingCachedMeansNoTermsAndTheNodeTermsAreCapped() {
        assertThat(LocalityWeights.terms(Map.of("a", 0L), n -> Location.UNKNOWN, 10)).isEmpty();
        assertThat(LocalityWeights.terms(Map.of(), n -> Location.UNKNOWN, 10)).isEmpty();
        Map<String, Long> many = new HashMap<>();
        for (int i = 0; i < 30; i++) {
            many.put("node-" + i, (i + 1) * MIB);
        }
        List<LocalityTerm> terms = LocalityWeights.terms(many, n -> Location.UNKNOWN, 5);
        assertThat(terms).extracting(LocalityTerm::value).containsExactly("node-29", "node-28", "node-27", "node-26", "node-25");
    }

    /**
     * The scheduler sums the weights of the terms a node matches. Over many random clusters: any node holding
     * cache outranks any node holding none, and a node in a zone holding cache outranks one only in its region.
     */
    @Test
    void nodeZoneAndRegionStayInOrderWhateverTheShares() {
        Random random = new Random(42);
        for (int trial = 0; trial < 2_000; trial++) {
            Map<String, Location> nodes = new HashMap<>();
            Map<String, Long> cached = new HashMap<>();
            int count = 2 + random.nextInt(12);
            for (int i = 0; i < count; i++) {
                String node = "n" + i;
                int region = random.nextInt(2);
                nodes.put(node, location("z" + region + random.nextInt(3), "r" + region));
                if (random.nextInt(3) > 0) {
                    cached.put(node, 1 + (long) (random.nextDouble() * random.nextDouble() * 10_000 * MIB));
                }
            }
            List<LocalityTerm> terms = LocalityWeights.terms(cached, nodes::get, count);
            assertThat(terms).allSatisfy(term -> assertThat(term.weight()).isBetween(1, 100));
            int lowestCacheNode = cached.keySet().stream().mapToInt(n -> score(n, nodes.get(n), terms)).min().orElse(Integer.MAX_VALUE);
            for (var node : nodes.entrySet()) {
                if (!cached.containsKey(node.getKey())) {
                    assertThat(score(node.getKey(), node.getValue(), terms)).isLessThan(lowestCacheNode);
                }
            }
            int highestRegionOnly = 0;
            int lowestInCachedZone = Integer.MAX_VALUE;
            for (var node : nodes.entrySet()) {
                boolean zoneCached = terms.stream().anyMatch(t -> t.proximity() == LocalityTerm.Proximity.ZONE
                        && t.value().equals(node.getValue().zone().orElseThrow()));
                int score = score(node.getKey(), node.getValue(), terms);
                if (zoneCached) {
                    lowestInCachedZone = Math.min(lowestInCachedZone, score);
                } else {
                    highestRegionOnly = Math.max(highestRegionOnly, score);
                }
            }
            assertThat(highestRegionOnly).isLessThan(lowestInCachedZone);
        }
    }

    private static int score(String node, Location location, List<LocalityTerm> terms) {
        return terms.stream().filter(term -> switch (term.proximity()) {
            case NODE -> term.value().equals(node);
            case ZONE -> location.zone().map(term.value()::equals).orElse(false);
            case REGION -> location.region().map(term.value()::equals).orElse(false);
        }).mapToInt(LocalityTerm::weight).sum();
    }

    private static Location location(String zone, String region) {
        return new Location(Optional.empty(), Optional.of(zone), Optional.of(region));
    }
}
