package io.granary.gateway.read;

import io.granary.contracts.block.BlockSlice;
import io.granary.contracts.block.Blocks;
import io.granary.contracts.block.ByteRange;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a response body computes without a running system: which file bytes the under-store sends when a block's
 * owners fail. The streaming itself needs the whole gateway.
 */
class ObjectStreamTest {

    private static final long BLOCK = 1000;

    @Test
    void theUnderStoreSendsAWholeSliceWhenNothingWentOut() {
        // Block 2 of a file, from byte 100 of the block: file bytes 2100..2499.
        BlockSlice slice = new BlockSlice(2, 2 * BLOCK, BLOCK, 100, 400);

        assertThat(ObjectStream.rest(slice, 0)).isEqualTo(new ByteRange.Slice(2100, 400));
    }

    @Test
    void theUnderStoreResumesAfterWhatTheOwnerSent() {
        BlockSlice slice = new BlockSlice(2, 2 * BLOCK, BLOCK, 100, 400);

        assertThat(ObjectStream.rest(slice, 150)).isEqualTo(new ByteRange.Slice(2250, 250));
        assertThat(ObjectStream.rest(slice, 399)).isEqualTo(new ByteRange.Slice(2499, 1));
    }

    @Test
    void fallingBackOnEverySliceOfARangeSendsExactlyThatRange() {
        // A GET of bytes 1500..4299 of a 4,300-byte file: four slices, the last block short.
        long offset = 1500;
        long length = 2800;
        List<BlockSlice> slices = Blocks.covering(4300, BLOCK, offset, length);
        assertThat(slices).extracting(BlockSlice::index).containsExactly(1, 2, 3, 4);

        long next = offset;
        for (BlockSlice slice : slices) {
            long sentByOwner = slice.index() % 2 == 0 ? 7 : 0;  // some owners failed part-way
            ByteRange.Slice rest = ObjectStream.rest(slice, sentByOwner);
            assertThat(rest.offset()).as("block %d resumes where its bytes stopped", slice.index())
                    .isEqualTo(next + sentByOwner);
            next = rest.offset() + rest.length();
        }
        assertThat(next).as("the end of the range").isEqualTo(offset + length);
    }
}
