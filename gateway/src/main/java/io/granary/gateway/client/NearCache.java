package io.granary.gateway.client;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.FileListing;
import io.granary.gateway.metrics.GatewayMetrics;
import io.granary.kit.client.MetadataClient;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.rest.client.inject.RestClient;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The gateway's near cache of metadata: datasets and file stats, so a warm read asks the metadata-service nothing.
 * Dataset events invalidate it; the expiry only bounds how long a lost event can leave it wrong. Absence is cached
 * too (a training job probing for files that are not there must not hammer the metadata-service).
 * <p>
 * Stats come in pages: a miss asks for the page of the dataset's listing that starts at the file, so the files a
 * job reads next (in key order, or shuffled within a shard) cost no round trip of their own, and every listing a
 * client asks for through the gateway is kept the same way. A page that was on its way while an event made the
 * cache forget something is not kept: it may hold what was forgotten.
 * Every method that may ask blocks: call it off the event loop.
 */
@ApplicationScoped
public class NearCache {

    private static final Duration EXPIRY = Duration.ofMinutes(1);
    /** Files one miss brings: a listing of 256 costs the metadata-service about as much as a few stats. */
    static final int PAGE = 256;

    private final MetadataClient metadata;
    private final GatewayMetrics metrics;
    private final Cache<String, Optional<Dataset>> datasets = Caffeine.newBuilder()
            .maximumSize(10_000).expireAfterWrite(EXPIRY).build();
    // About 300 bytes an entry: a page brings many, and the expiry, not the size, keeps what a read pass needs.
    private final Cache<FileKey, Optional<FileInfo>> files = Caffeine.newBuilder()
            .maximumSize(100_000).expireAfterWrite(EXPIRY).build();
    /** Counts forgets: a page asked for before one may hold what it forgot. */
    private final AtomicLong forgets = new AtomicLong();
    /** The page each dataset is being asked for now: readers going through its files together wait for one page. */
    private final Map<String, Paging> paging = new ConcurrentHashMap<>();

    NearCache(@RestClient MetadataClient metadata, GatewayMetrics metrics) {
        this.metadata = metadata;
        this.metrics = metrics;
    }

    private record FileKey(String dataset, String path) {
    }

    /** A page on its way, from {@code cursor} (null: the start). */
    private record Paging(String cursor, CompletableFuture<Void> done) {

        boolean mayHold(String path) {
            return cursor == null || cursor.compareTo(path) < 0;
        }
    }

    public Optional<Dataset> dataset(String name) {
        return datasets.get(name, metadata::findDataset);
    }

    /** @param path a normalised dataset path */
    public Optional<FileInfo> file(String dataset, String path) {
        Optional<FileInfo> cached = files.getIfPresent(new FileKey(dataset, path));
        if (cached != null) {
            return cached;
        }
        Paging running = paging.get(dataset);
        if (running != null && running.mayHold(path)) {
            running.done().join();  // eight readers at a page's end would otherwise ask for it eight times
            cached = files.getIfPresent(new FileKey(dataset, path));
            if (cached != null) {
                return cached;
            }
        }
        long started = System.nanoTime();
        Paging mine = new Paging(cursorBefore(path), new CompletableFuture<>());
        paging.put(dataset, mine);
        try {
            return lookUp(dataset, path, mine.cursor());
        } finally {
            paging.remove(dataset, mine);
            mine.done().complete(null);
            metrics.coldStage(GatewayMetrics.METADATA, System.nanoTime() - started);
        }
    }

    /**
     * The page of the listing from just before {@code path}: it holds the file if there is one, and proves it absent
     * unless the page ends before it (many deeper keys between), when a stat answers.
     */
    private Optional<FileInfo> lookUp(String dataset, String path, String cursor) {
        long generation = forgets.get();
        Optional<FileListing> page = MetadataClient.absentIfNotFound(
                () -> metadata.files(dataset, null, null, cursor, PAGE));
        if (page.isEmpty()) {
            return Optional.empty();  // the dataset is gone, and its files with it
        }
        keep(generation, dataset, page.get().files());
        Optional<FileInfo> found = page.get().files().stream().filter(file -> file.path().equals(path)).findFirst();
        if (found.isPresent()) {
            return found;
        }
        String end = page.get().nextCursor();
        if (end != null && end.compareTo(path) < 0) {
            found = metadata.findFile(dataset, path);
        }
        keep(generation, new FileKey(dataset, path), found);
        return found;
    }

    /**
     * A page of the dataset's listing, as the metadata-service answers it, its files kept for the reads that follow.
     *
     * @throws jakarta.ws.rs.WebApplicationException as the metadata-service answers (404: no such dataset)
     */
    public FileListing list(String dataset, String prefix, String delimiter, String cursor, int limit) {
        long generation = forgets.get();
        FileListing page = metadata.files(dataset, prefix, delimiter, cursor, limit);
        keep(generation, dataset, page.files());
        return page;
    }

    /** Keeps a page's files, unless the cache forgot anything since the page was asked for. */
    private void keep(long generation, String dataset, List<FileInfo> page) {
        for (FileInfo file : page) {
            keep(generation, new FileKey(dataset, file.path()), Optional.of(file));
        }
    }

    private void keep(long generation, FileKey key, Optional<FileInfo> file) {
        if (forgets.get() == generation) {
            files.put(key, file);
            if (forgets.get() != generation) {  // forgotten while it went in: it may be what was forgotten
                files.invalidate(key);
            }
        }
    }

    /** A cursor that sorts just before {@code path}, so the page starts with it (null: from the start). */
    static String cursorBefore(String path) {
        int last = path.offsetByCodePoints(path.length(), -1);
        return last == 0 ? null : path.substring(0, last);
    }

    /** The dataset as cached now, without asking (the definition an event is about to replace). */
    public Optional<Dataset> cachedDataset(String name) {
        Optional<Dataset> cached = datasets.getIfPresent(name);
        return cached == null ? Optional.empty() : cached;
    }

    /** The file as cached now, without asking: a warm read resolves on the event loop. */
    public Optional<FileInfo> cachedFile(String dataset, String path) {
        Optional<FileInfo> cached = files.getIfPresent(new FileKey(dataset, path));
        return cached == null ? Optional.empty() : cached;
    }

    /** What the gateway itself just learnt (after a write), so its own next read needs no lookup. */
    public void put(String dataset, FileInfo info) {
        files.put(new FileKey(dataset, info.path()), Optional.of(info));
    }

    public void forgetFile(String dataset, String path) {
        forgets.incrementAndGet();
        files.invalidate(new FileKey(dataset, path));
    }

    /** The dataset changed (updated, synced, deleted): its definition and every cached stat of it go. */
    public void forgetDataset(String name) {
        forgets.incrementAndGet();
        datasets.invalidate(name);
        files.asMap().keySet().removeIf(key -> key.dataset().equals(name));
    }
}
