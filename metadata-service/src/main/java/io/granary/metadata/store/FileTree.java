package io.granary.metadata.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.FileListing;
import org.h2.mvstore.Cursor;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.infinispan.Cache;
import org.infinispan.notifications.Listener;
import org.infinispan.notifications.cachelistener.annotation.CacheEntryCreated;
import org.infinispan.notifications.cachelistener.annotation.CacheEntryModified;
import org.infinispan.notifications.cachelistener.annotation.CacheEntryRemoved;
import org.infinispan.notifications.cachelistener.event.CacheEntryCreatedEvent;
import org.infinispan.notifications.cachelistener.event.CacheEntryModifiedEvent;
import org.infinispan.notifications.cachelistener.event.CacheEntryRemovedEvent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The file metadata of every dataset. Entries ({@code dataset/path} → FileInfo as JSON) live in the replicated,
 * persisted {@code files} cache, which holds only a few of them in memory. A hash cache cannot list in order, so
 * each replica keeps its own sorted copy of the entries on disk (an MVStore B-tree, only its page cache in memory),
 * kept current by a listener that also sees the other replicas' writes; stats and listings read that copy, a page
 * of a listing being one walk along the tree. Heap does not grow with the number of files. Nothing here touches
 * the under-store.
 */
public final class FileTree implements AutoCloseable {

    public static final int MAX_PAGE = 1000;
    private static final String STATE = "state";
    private static final String CLOSED = "closed";
    /** Entries sorted in memory at once when the index is built: about 10 MB of heap. */
    private static final int RUN = 50_000;

    private final Cache<String, String> files;
    private final ObjectMapper json;
    private final MVStore disk;
    private final MVMap<String, String> index;
    /** Whether the index was closed cleanly (it is then as current as the cache's own store), and files per dataset. */
    private final MVMap<String, String> state;
    private final MVMap<String, Long> savedCounts;
    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
    /** While the index is built: the keys listener events changed, which the copy must leave alone. */
    private volatile Set<String> touched;
    private final IndexUpdater updater = new IndexUpdater();

    /**
     * @param dir        where this replica's index lives
     * @param trustIndex the cache is this replica's own store from before (no other replica sent its state): an
     *                   index closed cleanly matches it and is kept; otherwise it is rebuilt from the cache
     * @param cacheBytes memory the index's page cache may take
     */
    public FileTree(Cache<String, String> files, ObjectMapper json, Path dir, boolean trustIndex, long cacheBytes) {
        this.files = files;
        this.json = json;
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        disk = new MVStore.Builder().fileName(dir.resolve("files.mv").toString())
                .cacheSize((int) Math.max(1, cacheBytes >> 20)).open();
        index = disk.openMap("files");
        state = disk.openMap(STATE);
        savedCounts = disk.openMap("counts");
        boolean clean = CLOSED.equals(state.get(STATE));
        state.put(STATE, "open");  // a crash from here on leaves it untrusted
        disk.commit();
        if (clean && trustIndex) {
            savedCounts.forEach((dataset, count) -> counts.put(dataset, new AtomicLong(count)));
            files.addListener(updater);
        } else {
            try {
                rebuild(dir.resolve("build"));
            } catch (RuntimeException e) {
                files.removeListener(updater);
                disk.close();
                throw e;
            }
        }
    }

    /**
     * Copies the cache into an empty index, in key order (sorted runs merged), while the other replicas may write:
     * an entry a listener event touched meanwhile is newer than the copy and is not overwritten by it.
     */
    private void rebuild(Path work) {
        index.clear();
        touched = ConcurrentHashMap.newKeySet();
        files.addListener(updater);  // listen first, then copy what is there: nothing is missed
        try (SortedRuns sorted = new SortedRuns(work, RUN)) {
            files.forEach(sorted::add);
            sorted.forEachSorted((key, value) -> {
                synchronized (this) {
                    if (!touched.contains(key)) {
                        indexed(key, value);
                    }
                }
            });
        }
        synchronized (this) {
            touched = null;
        }
        disk.commit();
    }

    public void putAll(String dataset, Collection<FileInfo> infos) {
        Map<String, String> entries = new HashMap<>();
        for (FileInfo info : infos) {
            entries.put(key(dataset, info.path()), CacheJson.write(json, info));
        }
        files.putAll(entries);
    }

    public void remove(String dataset, String path) {
        files.remove(key(dataset, path));
    }

    public Optional<FileInfo> stat(String dataset, String path) {
        String value = index.get(key(dataset, path));
        return value == null ? Optional.empty() : Optional.of(CacheJson.read(json, value, FileInfo.class));
    }

    /**
     * Up to {@code limit} of a dataset's paths after {@code from} (from itself too when {@code inclusive}) and before
     * {@code to} (to the end when null), in order.
     */
    public List<String> paths(String dataset, String from, boolean inclusive, String to, int limit) {
        String base = dataset + '/';
        List<String> paths = new ArrayList<>();
        Cursor<String, String> walk = index.cursor(base + from);
        while (walk.hasNext() && paths.size() < limit) {
            String key = walk.next();
            if (!key.startsWith(base)) {
                break;
            }
            String path = key.substring(base.length());
            if (to != null && path.compareTo(to) >= 0) {
                break;
            }
            if (inclusive || !path.equals(from)) {
                paths.add(path);
            }
        }
        return paths;
    }

    public long count(String dataset) {
        AtomicLong count = counts.get(dataset);
        return count == null ? 0 : count.get();
    }

    public long totalCount() {
        return counts.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /** Forgets a dataset's files on every replica, a page at a time. */
    public void drop(String dataset) {
        List<String> page = paths(dataset, "", true, null, MAX_PAGE);
        while (!page.isEmpty()) {
            page.forEach(path -> remove(dataset, path));
            page = paths(dataset, page.get(page.size() - 1), false, null, MAX_PAGE);
        }
    }

    /**
     * One page of a listing with S3's semantics: keys under {@code prefix} in order, deeper keys rolled up into
     * common prefixes by {@code delimiter}; {@code cursor} is the last key or common prefix of the previous page.
     */
    public FileListing list(String dataset, String prefix, String delimiter, String cursor, int limit) {
        Page<FileInfo> page = walk(dataset, prefix, delimiter, cursor, limit,
                value -> CacheJson.read(json, value, FileInfo.class));
        return new FileListing(page.files(), page.prefixes(), page.nextCursor());
    }

    /** The same page with each file as the JSON it is stored as: a listing sent on as it is parses nothing. */
    public Page<String> listJson(String dataset, String prefix, String delimiter, String cursor, int limit) {
        return walk(dataset, prefix, delimiter, cursor, limit, value -> value);
    }

    /** A page of a listing, its files as {@code T}. */
    public record Page<T>(List<T> files, List<String> prefixes, String nextCursor) {
    }

    private <T> Page<T> walk(String dataset, String prefix, String delimiter, String cursor, int limit,
                             Function<String, T> file) {
        String base = dataset + '/';
        String from = prefix == null ? "" : prefix;
        boolean rollUp = delimiter != null && !delimiter.isEmpty();
        int max = Math.max(1, Math.min(limit, MAX_PAGE));

        String start = from;
        String after = null;  // the cursor's own key, which the page starts after
        if (cursor != null && !cursor.isEmpty() && cursor.compareTo(from) >= 0) {
            if (rollUp && cursor.endsWith(delimiter) && cursor.startsWith(from)) {
                start = successor(cursor);
            } else {
                start = cursor;
                after = cursor;
            }
        }

        List<T> page = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        String last = null;
        Cursor<String, String> walk = index.cursor(base + start);
        while (walk.hasNext()) {
            String key = walk.next();
            String path = key.startsWith(base) ? key.substring(base.length()) : null;
            if (path == null || !path.startsWith(from)) {
                break;
            }
            if (path.equals(after)) {
                continue;
            }
            if (page.size() + prefixes.size() == max) {
                return new Page<>(page, prefixes, last);
            }
            int cut = rollUp ? path.indexOf(delimiter, from.length()) : -1;
            if (cut >= 0) {
                String common = path.substring(0, cut + delimiter.length());
                prefixes.add(common);
                last = common;
                walk = index.cursor(base + successor(common));  // past everything under the common prefix
            } else {
                page.add(file.apply(walk.getValue()));
                last = path;
            }
        }
        return new Page<>(page, prefixes, null);
    }

    /** The least string greater than every string that starts with {@code prefix}. */
    public static String successor(String prefix) {
        return prefix.substring(0, prefix.length() - 1) + (char) (prefix.charAt(prefix.length() - 1) + 1);
    }

    static String key(String dataset, String path) {
        return dataset + '/' + path;
    }

    /**
     * Stops taking the cache's writes, writes the index out and marks it clean, so the next start alone keeps it.
     * The cache stops first: a write applied to it after the index stopped listening would be missing from an index
     * marked clean.
     */
    @Override
    public void close() {
        if (disk.isClosed()) {
            return;
        }
        try {
            files.removeListener(updater);
            files.stop();
        } catch (RuntimeException alreadyStopped) {
            // the cache manager stopped first: every write it took reached the index
        }
        savedCounts.clear();
        counts.forEach((dataset, count) -> savedCounts.put(dataset, count.get()));
        state.put(STATE, CLOSED);
        disk.close();
    }

    private void indexed(String key, String value) {
        if (index.put(key, value) == null) {
            counts.computeIfAbsent(key.substring(0, key.indexOf('/')), dataset -> new AtomicLong()).incrementAndGet();
        }
    }

    private void unindexed(String key) {
        if (index.remove(key) != null) {
            AtomicLong count = counts.get(key.substring(0, key.indexOf('/')));
            if (count != null) {
                count.decrementAndGet();
            }
        }
    }

    /** A change a listener saw: applied at once, and kept from the copy when the index is being built. */
    private void changed(String key, Runnable apply) {
        if (touched == null) {
            apply.run();
            return;
        }
        synchronized (this) {
            if (touched != null) {
                touched.add(key);
            }
            apply.run();
        }
    }

    @Listener(observation = Listener.Observation.POST)
    public class IndexUpdater {

        @CacheEntryCreated
        public void created(CacheEntryCreatedEvent<String, String> event) {
            changed(event.getKey(), () -> indexed(event.getKey(), event.getValue()));
        }

        @CacheEntryModified
        public void modified(CacheEntryModifiedEvent<String, String> event) {
            changed(event.getKey(), () -> indexed(event.getKey(), event.getNewValue()));
        }

        @CacheEntryRemoved
        public void removed(CacheEntryRemovedEvent<String, String> event) {
            changed(event.getKey(), () -> unindexed(event.getKey()));
        }
    }
}
