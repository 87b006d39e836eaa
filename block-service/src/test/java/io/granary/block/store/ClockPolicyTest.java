package io.granary.block.store;

import org.junit.jupiter.api.Test;

import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** Second chance: the contract of any policy, and its own order. */
class ClockPolicyTest extends EvictionPolicyContract {

    @Override
    EvictionPolicy newPolicy() {
        return new ClockPolicy();
    }

    @Test
    void blocksNotReadGoInTheOrderTheyCame() {
        EvictionPolicy clock = newPolicy();
        IntStream.range(0, 5).forEach(n -> clock.admitted(key(n)));

        assertThat(drain(clock)).containsExactly(key(0), key(1), key(2), key(3), key(4));
    }

    @Test
    void aBlockReadSinceTheHandPassedGetsASecondChance() {
        EvictionPolicy clock = newPolicy();
        IntStream.range(0, 4).forEach(n -> clock.admitted(key(n)));
        clock.accessed(key(0));
        clock.accessed(key(2));

        assertThat(drain(clock)).containsExactly(key(1), key(3), key(0), key(2));
    }

    @Test
    void whenEveryBlockWasReadTheHandGoesRoundOnceAndTakesTheOldest() {
        EvictionPolicy clock = newPolicy();
        IntStream.range(0, 3).forEach(n -> clock.admitted(key(n)));
        IntStream.range(0, 3).forEach(n -> clock.accessed(key(n)));

        assertThat(clock.victim()).isEqualTo(key(0));
    }

    @Test
    void removedBlocksDoNotPileUpInTheRing() {
        ClockPolicy clock = new ClockPolicy();
        for (int n = 0; n < 100_000; n++) {
            clock.admitted(key(n));
            clock.removed(key(n));  // a level that never fills: the hand never comes by
        }
        clock.admitted(key(200_000));

        assertThat(drain(clock)).hasSize(1);
    }
}
