package io.granary.fuse.read;

import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;

/**
 * A file opened for reading: the version it was opened at (a file that changes while open keeps being read at the
 * version it had), and where its last read ended, so a read that continues it is known for a sequential one.
 */
public final class OpenFile {

    private final Dataset dataset;
    private final FileInfo file;
    private long nextOffset;
    private int lastBlock = -1;

    public OpenFile(Dataset dataset, FileInfo file) {
        this.dataset = dataset;
        this.file = file;
    }

    public Dataset dataset() {
        return dataset;
    }

    public FileInfo file() {
        return file;
    }

    /**
     * Records that a read reached block {@code index}; true when the last one was in another block. A block read in
     * many pieces (the kernel asks 128 KiB at a time) is one read of it for the worker's policies.
     */
    synchronized boolean entersBlock(int index) {
        boolean entered = index != lastBlock;
        lastBlock = index;
        return entered;
    }

    /** Records a read; true when it started where the last one ended (the first read counts from 0). */
    synchronized boolean continues(long offset, int length) {
        boolean sequential = offset == nextOffset;
        nextOffset = offset + length;
        return sequential;
    }
}
