package io.granary.block.store;

import io.granary.kit.blockfile.BlockFiles;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/** One directory of a level: {@code <path>/<dataset>/<blockId>}, the block-file format ({@link BlockFiles}). */
public final class LevelDir {

    private final Level level;
    private final Path path;
    private final AtomicLong used = new AtomicLong();

    LevelDir(Level level, Path path) {
        this.level = level;
        this.path = path;
    }

    public Level level() {
        return level;
    }

    public Path path() {
        return path;
    }

    /** Bytes of the whole blocks indexed here. */
    public long used() {
        return used.get();
    }

    void add(long bytes) {
        used.addAndGet(bytes);
    }

    Path blockFile(BlockKey key) {
        return BlockFiles.blockFile(path.toString(), key.dataset(), key.id().toString());
    }
}
