package io.granary.block.store;

import io.granary.kit.blockfile.BlockFiles;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/** One directory of a level: {@code <path>/<dataset>/<blockId>}, the block-file format ({@link BlockFiles}). */
public final class LevelDir {

    private final Level level;
    private final Path path;
    private final AtomicLong used = new AtomicLong();
    /** Its filesystem, looked up once (the lookup reads the mount table; asking it for free space is one statvfs). */
    private volatile FileStore fileStore;

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

    /**
     * Whether its filesystem has {@code bytes} free now. A level's quota says what it may hold, not what its disk
     * has: something else may fill the disk (another tenant, logs), and a block written there then fails half way.
     * True when it cannot be told (the write will say).
     */
    boolean fits(long bytes) {
        try {
            FileStore store = fileStore;
            if (store == null) {
                store = Files.getFileStore(path);
                fileStore = store;
            }
            return store.getUsableSpace() >= bytes;
        } catch (IOException e) {
            return true;
        }
    }

    Path blockFile(BlockKey key) {
        return BlockFiles.blockFile(path.toString(), key.dataset(), key.id().toString());
    }
}
