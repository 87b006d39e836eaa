package io.granary.contracts.block;

import java.util.ArrayList;
import java.util.List;

/** Block arithmetic of a file of {@code fileSize} bytes cut into blocks of {@code blockSize}. */
public final class Blocks {

    private Blocks() {
    }

    /** How many blocks hold the file; an empty file has none. */
    public static int count(long fileSize, long blockSize) {
        checkSizes(fileSize, blockSize);
        return Math.toIntExact((fileSize + blockSize - 1) / blockSize);
    }

    /** Length of block {@code index}: blockSize, but the last block holds only what is left. */
    public static long length(long fileSize, long blockSize, int index) {
        checkSizes(fileSize, blockSize);
        long start = (long) index * blockSize;
        if (index < 0 || start >= fileSize) {
            throw new IllegalArgumentException("block " + index + " is outside a file of " + fileSize + " bytes");
        }
        return Math.min(blockSize, fileSize - start);
    }

    /**
     * The blocks covering {@code [offset, offset + length)}, clipped to the end of the file, in order. A range that
     * starts at or after the end of the file covers nothing.
     */
    public static List<BlockSlice> covering(long fileSize, long blockSize, long offset, long length) {
        checkSizes(fileSize, blockSize);
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("range must not be negative: offset " + offset + ", length " + length);
        }
        long end = Math.min(fileSize, offset + Math.min(length, Long.MAX_VALUE - offset));
        List<BlockSlice> slices = new ArrayList<>();
        for (long position = offset; position < end; ) {
            int index = Math.toIntExact(position / blockSize);
            long blockOffset = index * blockSize;
            long blockLength = Math.min(blockSize, fileSize - blockOffset);
            long offsetInBlock = position - blockOffset;
            long wanted = Math.min(blockLength - offsetInBlock, end - position);
            slices.add(new BlockSlice(index, blockOffset, blockLength, offsetInBlock, wanted));
            position += wanted;
        }
        return slices;
    }

    private static void checkSizes(long fileSize, long blockSize) {
        if (blockSize <= 0) {
            throw new IllegalArgumentException("block size must be positive: " + blockSize);
        }
        if (fileSize < 0) {
            throw new IllegalArgumentException("file size must not be negative: " + fileSize);
        }
    }
}
