package io.granary.gateway.read;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which blocks a ranged GET makes the gateway load ahead: only a read that continues the last one, and only after it.
 */
class SequentialPrefetchTest {

    private static final long MB = 1 << 20;
    private static final long BLOCK = 4 * MB;
    /** 10 blocks, the last one short. */
    private static final long FILE = 9 * BLOCK + MB;

    private static int[] after(Long previousEnd, long offset, long length, int blocksAhead) {
        return SequentialPrefetch.blocksAfter(previousEnd, offset, offset + length, FILE, BLOCK, blocksAhead);
    }

    @Test
    void theFirstReadOfAFileLoadsNothing() {
        assertThat(after(null, 0, MB, 2)).isEmpty();
    }

    @Test
    void aReadThatContinuesTheLastLoadsTheBlocksAfterTheOneItEndsIn() {
        // s3fs reading 1 MiB at a time: the second read ends inside block 0.
        assertThat(after(MB, MB, MB, 2)).containsExactly(1, 2);
        // It ends inside block 2: blocks 3 and 4 come next.
        assertThat(after(2 * BLOCK, 2 * BLOCK, MB, 2)).containsExactly(3, 4);
    }

    @Test
    void aReadEndingOnABlockBoundaryLoadsFromTheNextBlock() {
        assertThat(after(BLOCK, BLOCK, BLOCK, 3)).containsExactly(2, 3, 4);
    }

    @Test
    void howFarAheadIsTheSetting() {
        assertThat(after(MB, MB, MB, 1)).containsExactly(1);
        assertThat(after(MB, MB, MB, 5)).containsExactly(1, 2, 3, 4, 5);
        assertThat(after(MB, MB, MB, 0)).as("read-ahead off").isEmpty();
    }

    @Test
    void randomAccessLoadsNothing() {
        assertThat(after(MB, 5 * BLOCK, MB, 2)).as("a jump forward").isEmpty();
        assertThat(after(5 * BLOCK, MB, MB, 2)).as("a jump back").isEmpty();
        assertThat(after(2 * MB, MB, 2 * MB, 2)).as("a read overlapping the last").isEmpty();
    }

    @Test
    void nothingIsLoadedPastTheFilesLastBlock() {
        // Ends inside block 8: only block 9, the last, is left.
        assertThat(after(8 * BLOCK, 8 * BLOCK, MB, 4)).containsExactly(9);
        // Ends on the boundary before the short last block.
        assertThat(after(8 * BLOCK, 8 * BLOCK, BLOCK, 4)).containsExactly(9);
    }

    @Test
    void aReadReachingTheEndOfTheFileLoadsNothing() {
        assertThat(after(9 * BLOCK, 9 * BLOCK, MB, 2)).isEmpty();
        assertThat(after(9 * BLOCK, 9 * BLOCK, 10 * MB, 2)).as("asked past the end").isEmpty();
    }
}
