package io.granary.metadata.service;

import io.granary.contracts.bucket.Acl;
import io.granary.contracts.bucket.BucketSettings;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.contracts.dataset.DatasetStatus;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.Mount;
import io.granary.contracts.events.DatasetEvent;
import io.granary.contracts.validation.ValidationException;
import io.granary.kit.rest.DatasetNotFoundException;
import io.granary.kit.rest.UnavailableProblem;
import io.granary.kit.security.Caller;
import io.granary.kit.security.Role;
import io.granary.metadata.config.MetadataConfig;
import io.granary.metadata.events.DatasetEventPublisher;
import io.granary.metadata.store.CachedBytes;
import io.granary.metadata.store.DatasetRegistry;
import io.granary.metadata.store.FileTree;
import io.granary.metadata.store.ListingLeases;
import io.granary.ufs.MountedStores;
import io.granary.ufs.UnderStoreException;
import io.quarkus.scheduler.Scheduled;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Datasets: create (check the under-store, then list its metadata in the background), read with live cache
 * statistics, sync, free their cache, delete. Listing runs on a small pool of its own so a slow bucket never holds a request thread.
 */
@ApplicationScoped
public class DatasetService {

    private static final Logger LOG = Logger.getLogger(DatasetService.class);
    /** When a caller that was told Kafka is not taking events now asks again: a broker restarts in tens of seconds. */
    private static final Duration RETRY_AFTER = Duration.ofSeconds(5);

    private final DatasetRegistry registry;
    private final FileTree files;
    private final CachedBytes cachedBytes;
    private final CacheStatistics statistics;
    private final MountedStores stores;
    private final DatasetLister lister;
    private final DatasetEventPublisher events;
    private final Clock clock;
    private final ExecutorService listings = Executors.newFixedThreadPool(2, runnable -> {
        Thread thread = new Thread(runnable, "metadata-listing");
        thread.setDaemon(true);
        return thread;
    });
    private final Set<String> listing = ConcurrentHashMap.newKeySet();
    private final ListingLeases leases;
    private final Duration eventTimeout;

    DatasetService(DatasetRegistry registry, FileTree files, CachedBytes cachedBytes, CacheStatistics statistics,
                   MountedStores stores, DatasetLister lister, DatasetEventPublisher events, Clock clock,
                   ListingLeases leases, MetadataConfig config) {
        this.leases = leases;
        this.eventTimeout = config.eventTimeout();
        this.registry = registry;
        this.files = files;
        this.cachedBytes = cachedBytes;
        this.statistics = statistics;
        this.stores = stores;
        this.lister = lister;
        this.events = events;
        this.clock = clock;
    }

    /**
     * Validates and stores the dataset, checks each mount with its credentials, and starts listing its metadata.
     * An unreachable or refused under-store still creates the dataset, in phase Failed with the reason, as Fluid
     * does, so the operator sees why; {@code sync} retries it.
     */
    /** Creates a dataset; the caller owns it as a bucket unless the spec names an owner (the cluster owns none). */
    public Dataset create(DatasetSpec request, Caller caller) {
        DatasetSpec spec = owned(request.validate().withDefaults(), caller);
        checkShares(spec);
        String failure = checkMounts(spec.mounts());
        DatasetStatus pending = DatasetStatus.pending(clock.instant());
        DatasetStatus status = failure == null ? pending : pending.failed(failure);
        Dataset dataset = new Dataset(spec, status);
        if (!registry.create(dataset)) {
            throw new DatasetExistsException(spec.name());
        }
        events.publish(DatasetEvent.of(DatasetEvent.Type.CREATED, spec.name(), clock.instant()));
        if (failure == null) {
            startListing(spec.name(), false);
        }
        return withStatistics(dataset);
    }

    /**
     * The shares of every worker's cache the datasets keep add up to all of it at most: a worker cannot keep more
     * than it has. Checked against the datasets there are; two created at the same moment may pass it together,
     * and then each worker keeps what it can (no share is more than a floor among others).
     */
    private void checkShares(DatasetSpec spec) {
        if (spec.cacheShare() == null) {
            return;
        }
        double taken = registry.all().stream().filter(d -> !d.spec().name().equals(spec.name()))
                .mapToDouble(d -> d.spec().cacheShareOrNone()).sum();
        if (taken + spec.cacheShare() > 1 + 1e-9) {
            throw new ValidationException("cacheShare", String.format(Locale.ROOT,
                    "the other datasets keep %.2f of each worker's cache: at most %.2f is left, not %s",
                    taken, Math.max(0, 1 - taken), spec.cacheShare()));
        }
    }

    private static DatasetSpec owned(DatasetSpec spec, Caller caller) {
        if (caller.role() == Role.CLUSTER || spec.bucket() != null && spec.bucket().acl() != null) {
            return spec;
        }
        BucketSettings bucket = spec.bucket() == null ? BucketSettings.ownedBy(caller.name())
                : spec.bucket().withAcl(Acl.privateTo(caller.name()));
        return spec.withBucket(bucket);
    }

    /** Replaces the dataset's bucket settings; gateways drop the dataset they remember on the UPDATED event. */
    public Dataset updateBucket(String name, BucketSettings settings) {
        try {
            settings.validate();
        } catch (ValidationException e) {
            throw new ValidationException("bucket." + e.field(), e.detail());
        }
        Dataset updated = registry.update(name, d -> new Dataset(d.spec().withBucket(settings), d.status()))
                .orElseThrow(() -> new DatasetNotFoundException(name));
        events.publish(DatasetEvent.of(DatasetEvent.Type.UPDATED, name, clock.instant()));
        return withStatistics(updated);
    }

    public Dataset get(String name) {
        return withStatistics(stored(name));
    }

    /** Only checks that the dataset exists: listings need no statistics. */
    public void require(String name) {
        stored(name);
    }

    /** What was asked for, without the statistics a status costs. */
    public DatasetSpec spec(String name) {
        return stored(name).spec();
    }

    private Dataset stored(String name) {
        return registry.get(name).orElseThrow(() -> new DatasetNotFoundException(name));
    }

    public List<Dataset> list() {
        return registry.all().stream().map(this::withStatistics).toList();
    }

    /** Re-reads the dataset's metadata from the under-store in the background. */
    public Dataset sync(String name) {
        Dataset dataset = stored(name);
        stores.forget(dataset.spec().mounts());  // a sync reopens them: a rotated secret, a moved endpoint
        String failure = checkMounts(dataset.spec().mounts());
        if (failure != null) {
            return withStatistics(registry.update(name, d -> new Dataset(d.spec(), d.status().failed(failure)))
                    .orElseThrow(() -> new DatasetNotFoundException(name)));
        }
        startListing(name, dataset.status().syncedAt() != null);
        return withStatistics(dataset);
    }

    /** Re-reads one file from the under-store (after a write or delete through the gateway). */
    public Optional<FileInfo> refresh(String name, String path) {
        return lister.refresh(stored(name), path);
    }

    /** Forgets the dataset, its file metadata and statistics; the under-store is untouched. */
    public void delete(String name) {
        Dataset dataset = stored(name);
        if (!registry.delete(name)) {
            throw new DatasetNotFoundException(name);
        }
        stores.forget(dataset.spec().mounts());
        files.drop(name);
        cachedBytes.drop(name);
        events.publish(DatasetEvent.of(DatasetEvent.Type.DELETED, name, clock.instant()));
    }

    /**
     * Asks every worker, through {@code granary.dataset.events}, to drop the dataset's blocks of the file or directory
     * {@code path} (all of them when empty). The event is durable, so a worker that is down frees its copy when it
     * comes back; the dataset's cached bytes fall as the workers report their evictions. Completes once Kafka has it.
     */
    public CompletionStage<CacheFreeing> freeCache(String name, String path) {
        require(name);
        CacheFreeing freeing = new CacheFreeing(name, path, clock.instant());
        return events.publish(DatasetEvent.cacheFreed(name, path, freeing.requestedAt())).toCompletableFuture()
                .orTimeout(eventTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .handle((sent, failure) -> {
                    if (failure == null) {
                        return freeing;
                    }
                    Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
                    throw new UnavailableProblem(cause instanceof TimeoutException
                            ? "Kafka did not take the request to free the cache within " + eventTimeout.toSeconds()
                                    + " s; it may still go out, and asking again is safe"
                            : "the request to free the cache could not be sent: " + cause.getMessage(),
                            RETRY_AFTER);
                });
    }

    /** Whether this replica is listing the dataset now. */
    public boolean listing(String name) {
        return listing.contains(name);
    }

    /** Lists a Pending dataset whose listing was lost with the replica that ran it (the coordinator calls it). */
    public void resume(String name) {
        LOG.warnf("dataset %s: its listing stopped with the replica that ran it; listing it here", name);
        startListing(name, false);
    }

    private void startListing(String name, boolean announce) {
        if (!listing.add(name)) {
            return; // already listing it: one listing at a time per dataset
        }
        leases.renew(name, clock.instant());
        listings.execute(() -> {
            try {
                list(name, announce);
            } finally {
                listing.remove(name);
                leases.release(name);
            }
        });
    }

    /** Tells the other replicas that this one's listings are still running. */
    @Scheduled(every = "${granary.metadata.sweep-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void renewLeases() {
        for (String name : listing) {
            leases.renew(name, clock.instant());
        }
    }

    private void list(String name, boolean announce) {
        Dataset dataset = registry.get(name).orElse(null);
        if (dataset == null) {
            return;
        }
        try {
            DatasetLister.Totals totals = lister.list(dataset, announce);
            registry.update(name, d -> new Dataset(d.spec(),
                    d.status().bound(totals.files(), totals.bytes(), clock.instant())));
            events.publish(DatasetEvent.of(DatasetEvent.Type.SYNCED, name, clock.instant()));
            LOG.infof("dataset %s: %d files, %d bytes listed", name, totals.files(), totals.bytes());
        } catch (UnderStoreException e) {
            LOG.warnf("dataset %s: listing failed: %s", name, e.getMessage());
            registry.update(name, d -> new Dataset(d.spec(), d.status().failed(e.getMessage())));
        } catch (RuntimeException e) {
            LOG.errorf(e, "dataset %s: listing failed", name);
            registry.update(name, d -> new Dataset(d.spec(), d.status().failed("listing failed: " + e)));
        }
    }

    private String checkMounts(List<Mount> mounts) {
        for (Mount mount : mounts) {
            try {
                stores.check(mount);
            } catch (UnderStoreException e) {
                return e.getMessage();
            }
        }
        return null;
    }

    /** Cache figures are computed when read, never stored: block events and heartbeats move them. */
    private Dataset withStatistics(Dataset dataset) {
        return new Dataset(dataset.spec(), dataset.status().withCache(cachedBytes.total(dataset.name()),
                statistics.hitRatio(dataset.name()), statistics.bytesRead(dataset.name())));
    }

    @PreDestroy
    void stop() {
        listings.shutdownNow();
    }
}
