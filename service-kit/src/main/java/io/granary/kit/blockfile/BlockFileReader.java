package io.granary.kit.blockfile;

import com.sun.management.UnixOperatingSystemMXBean;
import io.granary.contracts.worker.Medium;
import io.granary.contracts.worker.WorkerLevel;
import io.granary.contracts.worker.Worker;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The reading side of the block-file format: the block files of the workers on this node, found in their level
 * directories and read directly, one hop less (a short-circuit read, as HDFS and Alluxio have it). A block file
 * appears only whole and sealed, so one that has its name and is sealed can be read as it is; one written to since
 * (its seal broken) is passed over and left to its worker, which checks it.
 *
 * <p>The files read lately are kept open (least recently used first out), so a warm read costs one {@code stat} of
 * the block's name instead of a stat, an open, an fstat and a close. The stat is what keeps it right: a file evicted
 * or freed by its worker is gone from its name and never read again, and one written anew under the name (the same
 * block filled again) has another inode and is opened afresh. A block file's bytes never change once it has its
 * name, so an open one is always the block it was opened as, even after it was evicted or moved to another level. A
 * big file of a memory level may also be mapped while it is kept. {@link #closeStale} closes the kept files whose
 * name is gone, so a block evicted since its last read does not hold its space.
 */
public final class BlockFileReader implements AutoCloseable {

    private final String node;
    private final int limit;
    private final long mapAtLeast;
    private final Map<Path, OpenBlockFile> open;

    /**
     * @param node       the node this process runs on: the block files of the workers on it are read
     * @param openFiles  how many files are kept open, at most half the process's descriptor limit and half its
     *                   mapping limit; 0 opens and closes one per read
     * @param mapAtLeast a kept file of a memory level this big or bigger is mapped ({@link Long#MAX_VALUE}: none)
     */
    public BlockFileReader(String node, int openFiles, long mapAtLeast) {
        this.node = node;
        this.limit = limit(openFiles);
        this.mapAtLeast = mapAtLeast;
        this.open = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Path, OpenBlockFile> eldest) {
                if (size() <= BlockFileReader.this.limit) {
                    return false;
                }
                eldest.getValue().release();
                return true;
            }
        };
    }

    /** Whether this worker's block files are on this node. */
    public boolean reaches(Worker owner) {
        return node.equals(owner.node());
    }

    /** The block's file, as its worker installed it, in the first of its levels that has it; empty off this node. */
    public Optional<Path> find(Worker owner, String dataset, String blockId) {
        if (!reaches(owner)) {
            return Optional.empty();
        }
        for (WorkerLevel level : owner.levels()) {
            Path file = BlockFiles.blockFile(level.path(), dataset, blockId);
            if (absent(file)) {
                continue;
            }
            try {
                BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
                if (attributes.isRegularFile() && BlockFiles.sealed(attributes)) {
                    return Optional.of(file);
                }
            } catch (IOException e) {
                // not in this level
            }
        }
        return Optional.empty();
    }

    /**
     * The block's file, as its worker installed it, open, with a reference the caller must
     * {@link OpenBlockFile#release()}; empty when it is not on this node (or cannot be read here: read another way).
     */
    public Optional<OpenBlockFile> open(Worker owner, String dataset, String blockId) {
        if (!reaches(owner)) {
            return Optional.empty();
        }
        List<WorkerLevel> levels = owner.levels();
        Path[] files = new Path[levels.size()];
        for (int i = 0; i < files.length; i++) {
            files[i] = BlockFiles.blockFile(levels.get(i).path(), dataset, blockId);
        }
        // The level a file is kept open from is asked first: asking a level that has no file costs a failed stat.
        int kept = -1;
        for (int i = 0; i < files.length && kept < 0; i++) {
            kept = keeps(files[i]) ? i : -1;
        }
        if (kept >= 0) {
            Optional<OpenBlockFile> file = open(files[kept], levels.get(kept).medium() == Medium.MEM);
            if (file.isPresent()) {
                return file;
            }
        }
        for (int i = 0; i < files.length; i++) {
            Optional<OpenBlockFile> file = i == kept || absent(files[i]) ? Optional.empty()
                    : open(files[i], levels.get(i).medium() == Medium.MEM);
            if (file.isPresent()) {
                return file;
            }
        }
        return Optional.empty();
    }

    /**
     * The temporary file its worker is filling the block in (named by the worker), in the level of {@code medium}:
     * a reader opens it and follows it as it grows. Empty when it is not on this node or the name is not one of
     * that block's temporary files.
     */
    public Optional<Path> filling(Worker owner, String dataset, String blockId, Medium medium, String name) {
        if (!reaches(owner)) {
            return Optional.empty();
        }
        for (WorkerLevel level : owner.levels()) {
            if (level.medium() == medium) {
                return BlockFiles.fillingFile(level.path(), dataset, blockId, name);
            }
        }
        return Optional.empty();
    }

    /**
     * Whether no block file is there, by a stat that throws nothing when there is none: a cold read looks in every
     * level, and {@link Files#readAttributes}'s exception (its stack trace) cost a cold S3 read more than the stat.
     * A block file is never empty.
     */
    private static boolean absent(Path path) {
        return path.toFile().length() == 0;
    }

    /** The block file at {@code path}, open, with a reference; empty when there is no sealed regular file there. */
    Optional<OpenBlockFile> open(Path path, boolean inMemory) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {  // NoSuchFileException mostly: never there, evicted or freed
            forget(path);
            return Optional.empty();
        }
        if (!attributes.isRegularFile() || !BlockFiles.sealed(attributes)) {  // unsealed: written to, the worker checks it
            forget(path);
            return Optional.empty();
        }
        synchronized (open) {
            OpenBlockFile kept = open.get(path);
            // A kept channel can be closed under it: a read on an interrupted thread closes a FileChannel for all.
            if (kept != null && kept.fileKey().equals(attributes.fileKey()) && kept.channel().isOpen()
                    && kept.retain()) {
                return Optional.of(kept);
            }
        }
        OpenBlockFile opened;
        FileChannel channel = null;
        try {
            channel = FileChannel.open(path, StandardOpenOption.READ);
            // The size from the stat: a block file is whole under its name, and a later one has another key. Only a
            // file kept open is mapped: mapping costs more than one send saves.
            long size = attributes.size();
            ByteBuffer mapped = inMemory && limit > 0 && size >= mapAtLeast ? map(channel, size) : null;
            opened = new OpenBlockFile(path, channel, attributes.fileKey(), size, mapped);
        } catch (NoSuchFileException e) {
            forget(path);
            return Optional.empty();
        } catch (IOException e) {
            closeQuietly(channel);
            return Optional.empty();  // unreadable here: read another way
        }
        if (limit > 0) {
            opened.retain();  // the cache's own reference
            OpenBlockFile replaced;
            synchronized (open) {
                replaced = open.put(path, opened);
            }
            if (replaced != null) {
                replaced.release();
            }
        }
        return Optional.of(opened);
    }

    /** The whole file mapped read-only; null when it cannot be (too big to map, or no mapping left): sent instead. */
    private static ByteBuffer map(FileChannel channel, long size) {
        if (size == 0 || size > Integer.MAX_VALUE) {
            return null;
        }
        try {
            return channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
        } catch (IOException e) {
            return null;
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // opened for reading: nothing is lost
            }
        }
    }

    /** {@code configured}, at most half the process's descriptor limit and half its mapping limit. */
    static int limit(int configured) {
        return Math.min(configured, Math.min(descriptorLimit(), mappingLimit()) / 2);
    }

    /** The process's limit on open file descriptors: sockets, logs and the rest need their share of it. */
    private static int descriptorLimit() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix) {
            return (int) Math.min(Integer.MAX_VALUE, unix.getMaxFileDescriptorCount());
        }
        return 0;  // no descriptors to count: open a file per read
    }

    /** The kernel's limit on this process's mappings ({@code vm.max_map_count}): the JVM needs its share of it too. */
    private static int mappingLimit() {
        try {
            // Not Files.readString: it sizes its read by the file's size, 0 for a /proc file, and came back with "6".
            return Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/vm/max_map_count")).get(0).trim());
        } catch (IOException | RuntimeException e) {
            return 65_530;  // the kernel's default
        }
    }

    /**
     * Closes the kept files whose name is gone (the block was evicted or freed) or names another file now: an
     * unlinked file's space, memory for a memory level, is only given back once no one holds it open.
     */
    public void closeStale() {
        List<Map.Entry<Path, OpenBlockFile>> kept = new ArrayList<>();
        synchronized (open) {
            open.forEach((path, file) -> kept.add(Map.entry(path, file)));
        }
        for (Map.Entry<Path, OpenBlockFile> entry : kept) {
            if (!named(entry.getKey(), entry.getValue())) {
                boolean removed;
                synchronized (open) {
                    removed = open.remove(entry.getKey(), entry.getValue());
                }
                if (removed) {
                    entry.getValue().release();
                }
            }
        }
    }

    private static boolean named(Path path, OpenBlockFile file) {
        try {
            return file.fileKey().equals(Files.readAttributes(path, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS).fileKey());
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether the file at {@code path} is kept open (as of its last read: not checked against its name). */
    boolean keeps(Path path) {
        synchronized (open) {
            return open.containsKey(path);
        }
    }

    /** How many files are kept open. */
    public int size() {
        synchronized (open) {
            return open.size();
        }
    }

    private void forget(Path path) {
        OpenBlockFile removed;
        synchronized (open) {
            removed = open.remove(path);
        }
        if (removed != null) {
            removed.release();
        }
    }

    /** Closes the kept files (those being read stay open until their reads release them). */
    @Override
    public void close() {
        List<OpenBlockFile> all;
        synchronized (open) {
            all = List.copyOf(open.values());
            open.clear();
        }
        all.forEach(OpenBlockFile::release);
    }
}
