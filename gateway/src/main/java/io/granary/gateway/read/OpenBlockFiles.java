package io.granary.gateway.read;

import com.sun.management.UnixOperatingSystemMXBean;
import io.granary.gateway.config.GatewayConfig;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The block files read here lately, kept open (least recently used first out, at most {@code read.open-files}), so
 * a warm read costs one {@code stat} of the block's name instead of a stat, an open, an fstat and a close. The
 * stat is what keeps it right: a file evicted or freed by its worker is gone from its name and never sent again,
 * and one written anew under the name (the same block filled again) has another inode and is opened afresh. A
 * block file's bytes never change once it has its name, so an open one is always the block it was opened as.
 */
@ApplicationScoped
public class OpenBlockFiles {

    private final int limit;
    private final Map<Path, OpenBlockFile> open;

    @Inject
    OpenBlockFiles(GatewayConfig config) {
        this(Math.min(config.read().openFiles(), descriptorLimit() / 2));
    }

    OpenBlockFiles(int limit) {
        this.limit = limit;
        this.open = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Path, OpenBlockFile> eldest) {
                if (size() <= OpenBlockFiles.this.limit) {
                    return false;
                }
                eldest.getValue().release();
                return true;
            }
        };
    }

    /**
     * The block file at {@code path}, open, with a reference the caller must {@link OpenBlockFile#release()};
     * empty when there is no regular file there.
     */
    Optional<OpenBlockFile> open(Path path) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {  // NoSuchFileException mostly: never there, evicted or freed
            forget(path);
            return Optional.empty();
        }
        if (!attributes.isRegularFile()) {
            forget(path);
            return Optional.empty();
        }
        synchronized (open) {
            OpenBlockFile kept = open.get(path);
            if (kept != null && kept.fileKey().equals(attributes.fileKey()) && kept.retain()) {
                return Optional.of(kept);
            }
        }
        OpenBlockFile opened;
        try {
            // The size from the stat: a block file is whole under its name, and a later one has another key.
            opened = new OpenBlockFile(FileChannel.open(path, StandardOpenOption.READ), attributes.fileKey(),
                    attributes.size());
        } catch (NoSuchFileException e) {
            forget(path);
            return Optional.empty();
        } catch (IOException e) {
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

    /** The process's limit on open file descriptors: sockets, logs and the rest need their share of it. */
    private static int descriptorLimit() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix) {
            return (int) Math.min(Integer.MAX_VALUE, unix.getMaxFileDescriptorCount());
        }
        return 0;  // no descriptors to count: open a file per read
    }

    /** How many files are kept open. */
    int size() {
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

    @PreDestroy
    void close() {
        List<OpenBlockFile> all;
        synchronized (open) {
            all = List.copyOf(open.values());
            open.clear();
        }
        all.forEach(OpenBlockFile::release);
    }
}
