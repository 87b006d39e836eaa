package io.granary.block.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The store's policy: least recently used first. The contract every policy keeps is inherited. */
class LruPolicyTest extends EvictionPolicyContract {

    @Override
    EvictionPolicy newPolicy() {
        return new LruPolicy();
    }

    @Test
    void unreadBlocksGoInTheOrderTheyCame() {
        EvictionPolicy lru = newPolicy();
        for (int i = 1; i <= 5; i++) {
            lru.admitted(key(i));
        }

        assertThat(drain(lru)).containsExactly(key(1), key(2), key(3), key(4), key(5));
    }

    @Test
    void aReadMakesABlockTheLastToGo() {
        EvictionPolicy lru = newPolicy();
        lru.admitted(key(1));
        lru.admitted(key(2));
        lru.admitted(key(3));

        lru.accessed(key(1));
        assertThat(lru.victim()).isEqualTo(key(2));

        lru.accessed(key(2));
        assertThat(drain(lru)).containsExactly(key(3), key(1), key(2));
    }

    @Test
    void aBlockAdmittedAgainCountsAsJustUsed() {
        // Moved down into this level, or rewritten: it is the newest here, not where it first came.
        EvictionPolicy lru = newPolicy();
        lru.admitted(key(1));
        lru.admitted(key(2));

        lru.admitted(key(1));

        assertThat(drain(lru)).containsExactly(key(2), key(1));
    }

    @Test
    void askingForTheVictimIsNotAUse() {
        EvictionPolicy lru = newPolicy();
        lru.admitted(key(1));
        lru.admitted(key(2));

        lru.victim();
        lru.victim();

        assertThat(drain(lru)).containsExactly(key(1), key(2));
    }

    @Test
    void aRemovedBlockAdmittedAgainStartsAsNewest() {
        EvictionPolicy lru = newPolicy();
        lru.admitted(key(1));
        lru.admitted(key(2));
        lru.removed(key(1));

        lru.admitted(key(1));

        assertThat(drain(lru)).containsExactly(key(2), key(1));
    }
}
