package io.granary.contracts.block;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BlocksTest {

    private static final long MIB = 1024 * 1024;

    @Test
    void countsBlocksWithAShortLastOne() {
        assertThat(Blocks.count(0, 16 * MIB)).isZero();
        assertThat(Blocks.count(1, 16 * MIB)).isEqualTo(1);
        assertThat(Blocks.count(16 * MIB, 16 * MIB)).isEqualTo(1);
        assertThat(Blocks.count(16 * MIB + 1, 16 * MIB)).isEqualTo(2);
        assertThat(Blocks.length(40, 16, 2)).isEqualTo(8);
        assertThatThrownBy(() -> Blocks.length(40, 16, 3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRangeInsideOneBlock() {
        assertThat(Blocks.covering(100, 16, 18, 4)).containsExactly(new BlockSlice(1, 16, 16, 2, 4));
    }

    @Test
    void aRangeAcrossBlocksIsClippedToTheFile() {
        List<BlockSlice> slices = Blocks.covering(40, 16, 10, 1000);

        assertThat(slices).containsExactly(
                new BlockSlice(0, 0, 16, 10, 6),
                new BlockSlice(1, 16, 16, 0, 16),
                new BlockSlice(2, 32, 8, 0, 8));
        assertThat(slices.get(1).whole()).isTrue();
        assertThat(slices.get(2).whole()).isTrue();
        assertThat(slices.get(0).whole()).isFalse();
        assertThat(slices.stream().mapToLong(BlockSlice::length).sum()).isEqualTo(30);
    }

    @Test
    void theWholeFileAndEmptyRanges() {
        assertThat(Blocks.covering(32, 16, 0, Long.MAX_VALUE)).extracting(BlockSlice::index).containsExactly(0, 1);
        assertThat(Blocks.covering(32, 16, 32, 10)).isEmpty();
        assertThat(Blocks.covering(32, 16, 5, 0)).isEmpty();
        assertThat(Blocks.covering(0, 16, 0, 10)).isEmpty();
        assertThatThrownBy(() -> Blocks.covering(32, 16, -1, 10)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everyByteOfEveryRangeIsCoveredOnce() {
        long size = 1000;
        long blockSize = 64;
        for (long offset = 0; offset < size + 10; offset += 37) {
            for (long length = 0; length < 300; length += 29) {
                long position = offset;
                for (BlockSlice slice : Blocks.covering(size, blockSize, offset, length)) {
                    assertThat(slice.blockOffset() + slice.offsetInBlock()).isEqualTo(position);
                    assertThat(slice.offsetInBlock() + slice.length()).isLessThanOrEqualTo(slice.blockLength());
                    position += slice.length();
                }
                assertThat(position).isEqualTo(Math.max(offset, Math.min(size, offset + length)));
            }
        }
    }
}
