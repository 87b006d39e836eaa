package io.granary.contracts.block;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class BlockFillRequestTest {

    private static final List<BlockRef> BLOCKS = List.of(new BlockRef("img.jpg", "e", 0));

    /**
     * A plan's prefetch stands in for its reader's misses: stored whatever admission says, it pushed out blocks the
     * epoch was still to read when none it had read could go (a cache at half the dataset kept 0.24-0.29 of an
     * epoch's reads with a plan, 0.51 without).
     */
    @Test
    void onlyWhatWasAskedForPassesAdmission() {
        assertThat(new BlockFillRequest("d", BLOCKS, false).asked()).as("a DataLoad").isTrue();
        assertThat(new BlockFillRequest("d", BLOCKS, false, "worker-2").asked()).as("a hand-over").isTrue();
        assertThat(new BlockFillRequest("d", BLOCKS, true).asked()).as("a reader's fill").isFalse();
        assertThat(BlockFillRequest.prefetch("d", BLOCKS).asked()).as("a plan's prefetch").isFalse();
    }
}
