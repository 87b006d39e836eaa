package io.granary.fuse.tree;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.FileListing;
import io.granary.fuse.metrics.FuseMetrics;
import io.granary.kit.client.MetadataClient;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * The mount's tree, from the metadata-service's cache of the datasets: what a path is, and what a directory holds,
 * listed a page at a time (a directory of 100,000 entries is never asked for at once, and the whole tree never
 * sits in memory). Answers are kept for the attribute timeout; dataset events make the client forget them sooner.
 * Directories are S3's implicit ones: a prefix with something under it, or one made here and still empty.
 */
public final class Namespace {

    /** Entries per listing page asked of the metadata-service. */
    static final int PAGE = 1000;

    private final MetadataClient metadata;
    private final String single;
    private final FuseMetrics metrics;
    private final Cache<Key, Optional<Node>> nodes;
    private final Cache<String, Optional<Dataset>> datasets;
    /** Directories made through the mount and not yet holding a file: S3 has no empty directories. */
    private final Set<Key> made = ConcurrentHashMap.newKeySet();

    private record Key(String dataset, String path) {
    }

    /** @param single the one dataset mounted, or null for every dataset */
    public Namespace(MetadataClient metadata, String single, Duration attrTimeout, FuseMetrics metrics) {
        this.metadata = metadata;
        this.single = single;
        this.metrics = metrics;
        this.nodes = Caffeine.newBuilder().maximumSize(1_000_000).expireAfterWrite(attrTimeout).build();
        this.datasets = Caffeine.newBuilder().maximumSize(10_000).expireAfterWrite(attrTimeout).build();
    }

    public MountPaths paths(String mountPath) {
        return MountPaths.of(single, mountPath);
    }

    public Optional<Dataset> dataset(String name) {
        return datasets.get(name, metadata::findDataset);
    }

    /** What the path is; empty when nothing is there. Blocks on a miss. */
    public Optional<Node> resolve(MountPaths at) {
        if (at.mountRoot()) {
            return Optional.of(new Node.Directory(null, ""));
        }
        if (dataset(at.dataset()).isEmpty()) {
            return Optional.empty();
        }
        if (at.path().isEmpty()) {
            return Optional.of(new Node.Directory(at.dataset(), ""));
        }
        Key key = new Key(at.dataset(), at.path());
        Optional<Node> cached = nodes.getIfPresent(key);
        if (cached != null) {
            metrics.metadataCache(true);
            return cached;
        }
        metrics.metadataCache(false);
        Optional<Node> found = lookup(at);
        nodes.put(key, found);
        return found;
    }

    private Optional<Node> lookup(MountPaths at) {
        Optional<FileInfo> file = metadata.findFile(at.dataset(), at.path());
        if (file.isPresent()) {
            return Optional.of(new Node.File(at.dataset(), file.get()));
        }
        String prefix = at.path() + "/";
        if (made.contains(new Key(at.dataset(), prefix))) {
            return Optional.of(new Node.Directory(at.dataset(), prefix));
        }
        FileListing probe = metadata.files(at.dataset(), prefix, "/", null, 1);
        return probe.files().isEmpty() && probe.prefixes().isEmpty() ? Optional.empty()
                : Optional.of(new Node.Directory(at.dataset(), prefix));
    }

    /**
     * Calls {@code each} with the name and node of every entry of the directory, page by page; the files it lists
     * are remembered, so a getattr that follows a readdir asks nothing.
     */
    public void list(Node.Directory directory, BiConsumer<String, Node> each) {
        if (directory.dataset() == null) {
            for (Dataset dataset : metadata.datasets()) {
                each.accept(dataset.name(), new Node.Directory(dataset.name(), ""));
            }
            return;
        }
        String dataset = directory.dataset();
        String prefix = directory.prefix();
        made.stream().filter(key -> key.dataset().equals(dataset) && isChild(prefix, key.path()))
                .forEach(key -> each.accept(name(prefix, key.path()), new Node.Directory(dataset, key.path())));
        String cursor = null;
        do {
            FileListing page = metadata.files(dataset, prefix, "/", cursor, PAGE);
            for (String sub : page.prefixes()) {
                if (!made.contains(new Key(dataset, sub))) {
                    each.accept(name(prefix, sub), new Node.Directory(dataset, sub));
                }
            }
            for (FileInfo file : page.files()) {
                Node.File node = new Node.File(dataset, file);
                nodes.put(new Key(dataset, file.path()), Optional.of(node));
                each.accept(name(prefix, file.path()), node);
            }
            cursor = page.nextCursor();
        } while (cursor != null);
    }

    /** A directory made through the mount: it exists here until a file under it exists in the dataset. */
    public Node.Directory makeDirectory(MountPaths at) {
        Key key = new Key(at.dataset(), at.path() + "/");
        made.add(key);
        nodes.invalidate(new Key(at.dataset(), at.path()));
        return new Node.Directory(at.dataset(), key.path());
    }

    /** The file changed (written here or announced by an event): ask again next time. */
    public void forgetFile(String dataset, String path) {
        nodes.invalidate(new Key(dataset, path));
        for (int slash = path.lastIndexOf('/'); slash > 0; slash = path.lastIndexOf('/', slash - 1)) {
            String parent = path.substring(0, slash);
            nodes.invalidate(new Key(dataset, parent));
            made.remove(new Key(dataset, parent + "/"));  // a file under it: the dataset has the directory now
        }
    }

    /** The dataset changed, was re-listed or deleted: forget all of it. */
    public void forgetDataset(String dataset) {
        datasets.invalidate(dataset);
        nodes.asMap().keySet().removeIf(key -> key.dataset().equals(dataset));
        made.removeIf(key -> key.dataset().equals(dataset));
    }

    private static boolean isChild(String prefix, String directory) {
        if (!directory.startsWith(prefix) || directory.length() == prefix.length()) {
            return false;
        }
        int slash = directory.indexOf('/', prefix.length());
        return slash == directory.length() - 1;
    }

    /** The last segment of a path (a directory prefix without its trailing slash). */
    private static String name(String prefix, String path) {
        String rest = path.substring(prefix.length());
        return rest.endsWith("/") ? rest.substring(0, rest.length() - 1) : rest;
    }
}
