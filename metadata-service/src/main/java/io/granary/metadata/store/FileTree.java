package io.granary.metadata.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.FileListing;
import org.infinispan.Cache;
import org.infinispan.notifications.Listener;
import org.infinispan.notifications.cachelistener.annotation.CacheEntryCreated;
import org.infinispan.notifications.cachelistener.annotation.CacheEntryRemoved;
import org.infinispan.notifications.cachelistener.event.CacheEntryCreatedEvent;
import org.infinispan.notifications.cachelistener.event.CacheEntryRemovedEvent;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * The file metadata of every dataset. Entries ({@code dataset/path} → FileInfo as JSON) live in the replicated,
 * persisted {@code files} cache, which holds only part of them in memory. A hash cache cannot list in order, so
 * each replica keeps a sorted index of the paths alone, built from the cache at start and kept current by a
 * listener that also sees the other replicas' writes; listings walk the index and read only the entries they
 * return. Nothing here touches the under-store.
 */
public final class FileTree {

    public static final int MAX_PAGE = 1000;

    private final Cache<String, String> files;
    private final ObjectMapper json;
    private final Map<String, NavigableSet<String>> index = new ConcurrentHashMap<>();

    public FileTree(Cache<String, String> files, ObjectMapper json) {
        this.files = files;
        this.json = json;
        // Listen first, then read what is there: nothing written in between is missed.
        files.addListener(new IndexUpdater());
        for (String key : files.keySet()) {
            indexKey(key);
        }
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
        String value = files.get(key(dataset, path));
        return value == null ? Optional.empty() : Optional.of(CacheJson.read(json, value, FileInfo.class));
    }

    /** The sorted paths of a dataset, as a live read-only view. */
    public NavigableSet<String> paths(String dataset) {
        NavigableSet<String> paths = index.get(dataset);
        return paths == null ? new ConcurrentSkipListSet<String>() : Collections.unmodifiableNavigableSet(paths);
    }

    public long count(String dataset) {
        NavigableSet<String> paths = index.get(dataset);
        return paths == null ? 0 : paths.size();
    }

    public long totalCount() {
        return index.values().stream().mapToLong(NavigableSet::size).sum();
    }

    /** Forgets a dataset's files on every replica. */
    public void drop(String dataset) {
        for (String path : new ArrayList<>(paths(dataset))) {
            files.remove(key(dataset, path));
        }
        index.remove(dataset);
    }

    /**
     * One page of a listing with S3's semantics: keys under {@code prefix} in order, deeper keys rolled up into
     * common prefixes by {@code delimiter}; {@code cursor} is the last key or common prefix of the previous page.
     */
    public FileListing list(String dataset, String prefix, String delimiter, String cursor, int limit) {
        NavigableSet<String> paths = paths(dataset);
        String from = prefix == null ? "" : prefix;
        boolean rollUp = delimiter != null && !delimiter.isEmpty();
        int max = Math.max(1, Math.min(limit, MAX_PAGE));

        String next;
        if (cursor == null || cursor.isEmpty() || cursor.compareTo(from) < 0) {
            next = paths.ceiling(from);
        } else if (rollUp && cursor.endsWith(delimiter) && cursor.startsWith(from)) {
            next = paths.ceiling(successor(cursor));
        } else {
            next = paths.higher(cursor);
        }

        List<FileInfo> page = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        String last = null;
        while (next != null && next.startsWith(from)) {
            if (page.size() + prefixes.size() == max) {
                return new FileListing(page, prefixes, last);
            }
            int cut = rollUp ? next.indexOf(delimiter, from.length()) : -1;
            if (cut >= 0) {
                String common = next.substring(0, cut + delimiter.length());
                prefixes.add(common);
                last = common;
                next = paths.ceiling(successor(common));
            } else {
                String path = next;
                stat(dataset, path).ifPresent(page::add);
                last = path;
                next = paths.higher(path);
            }
        }
        return new FileListing(page, prefixes, null);
    }

    /** The least string greater than every string that starts with {@code prefix}. */
    public static String successor(String prefix) {
        return prefix.substring(0, prefix.length() - 1) + (char) (prefix.charAt(prefix.length() - 1) + 1);
    }

    static String key(String dataset, String path) {
        return dataset + '/' + path;
    }

    private void indexKey(String key) {
        int slash = key.indexOf('/');
        index.computeIfAbsent(key.substring(0, slash), d -> new ConcurrentSkipListSet<>()).add(key.substring(slash + 1));
    }

    private void unindexKey(String key) {
        int slash = key.indexOf('/');
        NavigableSet<String> paths = index.get(key.substring(0, slash));
        if (paths != null) {
            paths.remove(key.substring(slash + 1));
        }
    }

    @Listener(observation = Listener.Observation.POST)
    public class IndexUpdater {

        @CacheEntryCreated
        public void created(CacheEntryCreatedEvent<String, String> event) {
            indexKey(event.getKey());
        }

        @CacheEntryRemoved
        public void removed(CacheEntryRemovedEvent<String, String> event) {
            unindexKey(event.getKey());
        }
    }
}
