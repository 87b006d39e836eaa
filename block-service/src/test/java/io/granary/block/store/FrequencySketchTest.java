package io.granary.block.store;

import org.junit.jupiter.api.Test;

import java.util.stream.IntStream;

import static io.granary.block.store.EvictionPolicyContract.key;
import static org.assertj.core.api.Assertions.assertThat;

class FrequencySketchTest {

    @Test
    void countsReadsUpToFifteen() {
        FrequencySketch sketch = new FrequencySketch(1_000);
        assertThat(sketch.frequency(key(1))).isZero();
        IntStream.range(0, 5).forEach(i -> sketch.increment(key(1)));
        assertThat(sketch.frequency(key(1))).isEqualTo(5);
        IntStream.range(0, 50).forEach(i -> sketch.increment(key(1)));
        assertThat(sketch.frequency(key(1))).isEqualTo(15);
    }

    @Test
    void manyBlocksReadOnceStayApartFromOneReadOften() {
        FrequencySketch sketch = new FrequencySketch(10_000);
        IntStream.range(0, 10_000).forEach(n -> sketch.increment(key(n)));
        IntStream.range(0, 8).forEach(i -> sketch.increment(key(-1 >>> 1)));

        long misjudged = IntStream.range(0, 10_000).filter(n -> sketch.frequency(key(n)) > 1).count();
        assertThat(misjudged).as("blocks read once counted more (collisions)").isLessThan(200);
        assertThat(sketch.frequency(key(-1 >>> 1))).isGreaterThanOrEqualTo(8);
    }

    @Test
    void aDatasetFiveTimesTheCacheReadOnceLooksReadOnce() {
        FrequencySketch sketch = new FrequencySketch(1_000);  // 16,384 counters; halved after 10,000 reads
        IntStream.range(0, 5_000).forEach(n -> sketch.increment(key(n)));

        // Raising all four counters of each read: 1,275 of them counted more (a quarter); only the least ones: 373.
        long misjudged = IntStream.range(0, 5_000).filter(n -> sketch.frequency(key(n)) > 1).count();
        assertThat(misjudged).as("blocks read once counted more").isLessThan(500);
    }

    @Test
    void countsAreHalvedAfterTenReadsPerBlockOfCapacity() {
        FrequencySketch sketch = new FrequencySketch(16);  // ages after 160 counted reads
        IntStream.range(0, 14).forEach(i -> sketch.increment(key(0)));
        assertThat(sketch.frequency(key(0))).isEqualTo(14);

        IntStream.range(1, 147).forEach(n -> sketch.increment(key(n)));  // the 160th read halves every counter

        assertThat(sketch.frequency(key(0))).isEqualTo(7);
    }
}
