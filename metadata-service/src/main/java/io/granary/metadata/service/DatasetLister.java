package io.granary.metadata.service;

import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.Mount;
import io.granary.contracts.dataset.MountedPath;
import io.granary.contracts.events.DatasetEvent;
import io.granary.metadata.events.DatasetEventPublisher;
import io.granary.metadata.store.FileTree;
import io.granary.ufs.ListPage;
import io.granary.ufs.MountedStores;
import io.granary.ufs.ObjectInfo;
import io.granary.ufs.ObjectNotFoundException;
import io.granary.ufs.UnderStore;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Lists a dataset's mounts from the under-store, page by page, into the metadata cache. Each page is compared
 * with the cached paths in the same key order (a merge walk), so a sync finds new, changed and removed files
 * without ever holding the whole listing; only the first listing is silent, every later change publishes a
 * FILE_CHANGED event.
 */
@ApplicationScoped
public class DatasetLister {

    private final MountedStores stores;
    private final FileTree files;
    private final DatasetEventPublisher events;
    private final Clock clock;

    DatasetLister(MountedStores stores, FileTree files, DatasetEventPublisher events, Clock clock) {
        this.stores = stores;
        this.files = files;
        this.events = events;
        this.clock = clock;
    }

    public record Totals(long files, long bytes) {
    }

    /** @param announce publish a FILE_CHANGED event for every difference (false on the first listing) */
    public Totals list(Dataset dataset, boolean announce) {
        List<String> roots = dataset.spec().mounts().stream().map(DatasetLister::root).toList();
        long count = 0;
        long bytes = 0;
        for (Mount mount : dataset.spec().mounts()) {
            String root = root(mount);
            // A named mount shadows whatever the root mount holds under the same directory.
            List<String> shadows = root.isEmpty() ? roots.stream().filter(r -> !r.isEmpty()).toList() : List.of();
            Totals totals = new MountWalk(dataset.name(), root, shadows, announce).run(mount);
            count += totals.files();
            bytes += totals.bytes();
        }
        return new Totals(count, bytes);
    }

    /**
     * Re-reads one file from the under-store after a write or delete through the gateway, so the next listing
     * and the next read see it without a whole sync; a change is announced as FILE_CHANGED.
     *
     * @return the file as the under-store has it now; empty when it is gone (or no mount holds the path)
     */
    public Optional<FileInfo> refresh(Dataset dataset, String path) {
        MountedPath mounted = MountedPath.resolve(dataset.spec().mounts(), path);
        Optional<FileInfo> now = Optional.empty();
        if (mounted != null) {
            try {
                ObjectInfo object = stores.store(mounted.mount()).stat(mounted.key());
                now = Optional.of(new FileInfo(path, object.size(), object.mtime(), object.etag(), object.metadata()));
            } catch (ObjectNotFoundException e) {
                // gone: dropped below
            }
        }
        Optional<FileInfo> known = files.stat(dataset.name(), path);
        if (known.equals(now)) {
            return now;
        }
        if (now.isPresent()) {
            files.putAll(dataset.name(), List.of(now.get()));
        } else {
            files.remove(dataset.name(), path);
        }
        events.publish(DatasetEvent.fileChanged(dataset.name(), path, now.map(FileInfo::etag).orElse(null),
                clock.instant()));
        return now;
    }

    private static String root(Mount mount) {
        return mount.name() == null || mount.name().isEmpty() ? "" : mount.name() + "/";
    }

    /** One mount's listing merged against the cached paths under its root. */
    private final class MountWalk {

        private final String dataset;
        private final String root;
        private final List<String> shadows;
        private final boolean announce;

        MountWalk(String dataset, String root, List<String> shadows, boolean announce) {
            this.dataset = dataset;
            this.root = root;
            this.shadows = shadows;
            this.announce = announce;
        }

        Totals run(Mount mount) {
            long count = 0;
            long bytes = 0;
            String previous = null;
            UnderStore store = stores.store(mount);
            String cursor = null;
            do {
                ListPage page = store.list("", null, cursor, UnderStore.MAX_PAGE);
                List<FileInfo> changed = new ArrayList<>();
                for (ObjectInfo object : page.objects()) {
                    String path = root + object.path();
                    if (shadowed(path)) {
                        continue;
                    }
                    removeBetween(previous, path);
                    FileInfo info = new FileInfo(path, object.size(), object.mtime(), object.etag());
                    Optional<FileInfo> known = files.stat(dataset, path);
                    // A listing says nothing of metadata: what a stat learnt of this version is kept.
                    if (known.isEmpty() || !known.get().sameVersion(info)) {
                        changed.add(info);
                    }
                    previous = path;
                    count++;
                    bytes += object.size();
                }
                files.putAll(dataset, changed);
                if (announce) {
                    changed.forEach(info -> announce(info.path(), info.etag()));
                }
                cursor = page.nextCursor();
            } while (cursor != null);
            removeBetween(previous, null);
            return new Totals(count, bytes);
        }

        /** Cached paths of this mount strictly between two listed ones (or its ends) are gone from the store. */
        private void removeBetween(String after, String before) {
            String to = before != null ? before : root.isEmpty() ? null : FileTree.successor(root);
            List<String> range = after == null ? files.paths(dataset, root, true, to, FileTree.MAX_PAGE)
                    : files.paths(dataset, after, false, to, FileTree.MAX_PAGE);
            while (!range.isEmpty()) {
                for (String path : range) {
                    if (!shadowed(path)) {
                        files.remove(dataset, path);
                        if (announce) {
                            announce(path, null);
                        }
                    }
                }
                // a page at a time: a mount gone from the store may have held millions
                range = files.paths(dataset, range.get(range.size() - 1), false, to, FileTree.MAX_PAGE);
            }
        }

        private boolean shadowed(String path) {
            return shadows.stream().anyMatch(path::startsWith);
        }

        private void announce(String path, String etag) {
            events.publish(DatasetEvent.fileChanged(dataset, path, etag, clock.instant()));
        }
    }
}
