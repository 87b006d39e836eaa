package io.granary.block.store;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static io.granary.block.store.EvictionPolicyContract.key;
import static org.assertj.core.api.Assertions.assertThat;

class TinyLfuAdmissionTest {

    private final AtomicLong clock = new AtomicLong();
    private final TinyLfuAdmission admission = new TinyLfuAdmission(1_000, 1, 100, clock::get);

    private void read(BlockKey key, int times) {
        for (int i = 0; i < times; i++) {
            admission.recorded(key);
        }
    }

    @Test
    void aNewcomerReadAsOftenAsTheVictimOrOnceMoreIsNotAdmitted() {
        read(key(1), 3);
        read(key(2), 3);
        assertThat(admission.admits(key(2), key(1))).as("as often").isFalse();

        read(key(2), 1);
        assertThat(admission.admits(key(2), key(1))).as("once more: within the margin").isFalse();

        read(key(2), 1);
        assertThat(admission.admits(key(2), key(1))).as("twice more").isTrue();
    }

    @Test
    void aDatasetNobodyReadForTheIdleTimeGivesWay() {
        BlockKey held = key("old", 1);
        BlockKey newcomer = key("new", 1);
        read(held, 5);
        read(newcomer, 1);
        assertThat(admission.admits(newcomer, held)).isFalse();

        clock.set(101);  // nobody read "old" since

        assertThat(admission.admits(newcomer, held)).isTrue();
        assertThat(admission.admits(key("old", 2), held)).as("a block of the same dataset is judged by its reads")
                .isFalse();
        read(key("old", 3), 1);  // "old" is read again: not idle any more
        assertThat(admission.admits(newcomer, held)).isFalse();
    }
}
