package io.granary.contracts.block;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BlockRefTest {

    private static final long MIB = 1 << 20;

    @Test
    void aMissReservesTheBlocksOwnLengthWhenTheFileSizeIsKnown() {
        assertThat(new BlockRef("img.jpg", "e", 0, 128 << 10).room(64 * MIB)).as("a small file").isEqualTo(128 << 10);
        assertThat(new BlockRef("shard", "e", 0, 3 * MIB + 5).room(MIB)).as("a whole block").isEqualTo(MIB);
        assertThat(new BlockRef("shard", "e", 3, 3 * MIB + 5).room(MIB)).as("the last block").isEqualTo(5);
    }

    @Test
    void withoutASizeOrPastTheEndTheBlockSizeIsReserved() {
        assertThat(new BlockRef("f", "e", 0).room(MIB)).as("unknown").isEqualTo(MIB);
        assertThat(new BlockRef("f", "e", 4, 3 * MIB).room(MIB)).as("an index past the end").isEqualTo(MIB);
    }
}
