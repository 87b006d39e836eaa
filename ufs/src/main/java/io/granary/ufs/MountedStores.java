package io.granary.ufs;

import io.granary.contracts.dataset.Mount;
import io.granary.contracts.dataset.MountedPath;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The under-stores behind datasets' mounts, each opened once and shared (an S3 client holds a connection pool and
 * is costly to make), every request counted by operation. A dataset that changes or goes has its mounts
 * {@link #forget forgotten}: the next call opens them afresh (new credentials, a new endpoint), and the old
 * store is closed only after {@code closeAfter}, so reads still streaming from it finish.
 */
public final class MountedStores implements AutoCloseable {

    /** Every operation a request is counted under: a counter of each can be there, at zero, before the first. */
    public static final List<String> COUNTED_OPERATIONS = CountedUnderStore.OPERATIONS;

    private final UnderStores opener;
    private final Consumer<String> requests;
    private final long closeAfterMillis;
    private final Map<Mount, CountedUnderStore> open = new ConcurrentHashMap<>();
    private final ScheduledExecutorService closer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "understore-closer");
        thread.setDaemon(true);
        return thread;
    });

    /**
     * @param requests told the operation of every request made to a store ({@code stat}, {@code list},
     *                 {@code read}, {@code write}, {@code delete}, {@code upload}, {@code probe}), to count them
     */
    public MountedStores(UnderStores opener, Consumer<String> requests, Duration closeAfter) {
        this.opener = opener;
        this.requests = requests;
        this.closeAfterMillis = closeAfter.toMillis();
    }

    /** Where a dataset path lives: the store of the mount that holds it, and the key inside that store. */
    public record Located(UnderStore store, String key) {
    }

    /**
     * @param path a normalised dataset path
     * @throws ObjectNotFoundException when no mount of the dataset holds the path
     * @throws UnderStoreException     when the mount cannot be opened (bad uri, refused root, missing secret)
     */
    public Located locate(List<Mount> mounts, String path) {
        MountedPath mounted = MountedPath.resolve(mounts, path);
        if (mounted == null) {
            throw new ObjectNotFoundException("no mount of the dataset holds '" + path + "'");
        }
        return new Located(store(mounted.mount()), mounted.key());
    }

    /** The shared store of a mount; never close it. */
    public UnderStore store(Mount mount) {
        return counted(mount);
    }

    private CountedUnderStore counted(Mount mount) {
        return open.computeIfAbsent(mount, m -> new CountedUnderStore(opener.open(m), requests));
    }

    /**
     * Opens the mount apart from the shared ones and makes one cheap request, so that a dataset with wrong
     * credentials, a missing bucket or directory, or an unreachable endpoint is refused when it is created.
     *
     * @throws UnderStoreException with a reason fit to show the user (never a secret)
     */
    public void check(Mount mount) {
        try (UnderStore store = new CountedUnderStore(opener.open(mount), requests)) {
            store.probe();
        }
    }

    /**
     * Opens the shared store of each mount and reads one byte of the first object it lists at its top, so that the
     * first read around a failed worker does not also start the store's client (its classes, connections and
     * signing): a mount's first 1 MiB read-around took 2.5 s that way, its later ones tens of milliseconds. Its
     * requests are counted as one {@code probe} a mount: they serve no caller.
     *
     * @throws UnderStoreException when a store cannot be reached or read
     */
    public void prepare(Collection<Mount> mounts) {
        for (Mount mount : mounts) {
            counted(mount).prepare();
        }
    }

    /** Makes the place a new, empty mount points at (see {@link UnderStores#create}). */
    public void create(Mount mount) {
        opener.create(mount);
    }

    /** Forgets the mount and takes away what {@link #create} made for it, if it holds nothing. */
    public void remove(Mount mount) {
        forget(List.of(mount));
        opener.remove(mount);
    }

    /** These mounts changed or went: open them afresh next time. */
    public void forget(Collection<Mount> mounts) {
        for (Mount mount : mounts) {
            UnderStore store = open.remove(mount);
            if (store != null) {
                closer.schedule(store::close, closeAfterMillis, TimeUnit.MILLISECONDS);
            }
        }
    }

    @Override
    public void close() {
        closer.shutdownNow();
        open.values().forEach(UnderStore::close);
        open.clear();
    }
}
