package io.granary.contracts.block;

/**
 * The part of one block a byte range needs.
 *
 * @param index         the block's index in the file
 * @param blockOffset   where the block starts in the file
 * @param blockLength   the block's whole length (the last block of a file may be short)
 * @param offsetInBlock the first byte wanted, relative to the block
 * @param length        how many bytes are wanted from this block
 */
public record BlockSlice(int index, long blockOffset, long blockLength, long offsetInBlock, long length) {

    /** True when the whole block is wanted, which a reader can serve from a whole-block cache file as is. */
    public boolean whole() {
        return offsetInBlock == 0 && length == blockLength;
    }
}
