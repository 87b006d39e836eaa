package io.granary.preload.service;

import io.granary.contracts.dataload.DataLoadPhase;
import io.granary.contracts.dataload.DataLoadSpec;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.dataload.LoadPolicy;
import io.granary.contracts.validation.ValidationException;
import io.granary.kit.client.MetadataClient;
import io.granary.kit.rest.DatasetNotFoundException;
import io.granary.preload.config.PreloadConfig;
import io.granary.preload.events.StatusPublisher;
import io.granary.preload.metrics.DataLoadMetrics;
import io.granary.preload.store.LoadRecord;
import io.granary.preload.store.LoadStore;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.mutiny.Multi;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.WebApplicationException;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The DataLoads of this replica: accepted (recorded before anything else), queued ({@link DataLoadQueue}), run
 * {@code concurrent-loads} at a time ({@link LoadRun}), cancelled on request, and resumed after a restart. Every
 * status change goes to {@code granary.preload.status} and to the load's event stream.
 */
@ApplicationScoped
public class DataLoads {

    private static final Logger LOG = Logger.getLogger(DataLoads.class);
    private static final Duration TICK = Duration.ofMillis(500);

    private final MetadataClient metadata;
    private final WorkerBatches batches;
    private final LoadStore store;
    private final StatusPublisher publisher;
    private final DataLoadMetrics metrics;
    private final PreloadConfig config;
    private final Clock clock = Clock.systemUTC();
    private final Map<String, TrackedLoad> loads = new ConcurrentHashMap<>();
    private final DataLoadQueue queue = new DataLoadQueue();
    private final ExecutorService runners;
    private final ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor(daemon("dataload-tick"));

    DataLoads(@RestClient MetadataClient metadata, WorkerBatches batches, LoadStore store, StatusPublisher publisher,
              DataLoadMetrics metrics, PreloadConfig config) {
        this.metadata = metadata;
        this.batches = batches;
        this.store = store;
        this.publisher = publisher;
        this.metrics = metrics;
        this.config = config;
        this.runners = Executors.newFixedThreadPool(config.concurrentLoads(), daemon("dataload"));
        metrics.watch(() -> loads.values().stream().map(load -> load.status));
    }

    /** Picks up what the last run of this service left: unfinished loads run again, cron loads are rescheduled. */
    void resume(@Observes StartupEvent start) {
        for (LoadRecord record : store.all()) {
            TrackedLoad load = new TrackedLoad(record);
            loads.put(load.id, load);
            if (load.over()) {
                continue;
            }
            if (load.status.phase() == DataLoadPhase.LOADING) {
                LOG.infof("DataLoad %s was running when the service stopped: running it again", load.id);
                update(load, DataLoadStatus.pending(load.id, load.spec.dataset(), clock.instant()));
            }
            queue.schedule(load);
        }
        for (int i = 0; i < config.concurrentLoads(); i++) {
            runners.execute(this::runQueued);
        }
    }

    /**
     * Accepts a validated DataLoad; the same {@code requestId} again returns the load it started.
     *
     * @throws ValidationException on {@code dataset} when the dataset does not exist
     */
    public DataLoadStatus submit(String requestId, DataLoadSpec spec) {
        if (spec.policy() == LoadPolicy.CRON) {
            CronSchedules.parse(spec.schedule());
        }
        String id = requestId == null ? "load-" + UUID.randomUUID() : idOf(requestId);
        synchronized (this) {
            TrackedLoad existing = loads.get(id);
            if (existing != null) {
                return existing.status;
            }
            if (metadata.findDataset(spec.dataset()).isEmpty()) {
                throw new ValidationException("dataset", DatasetNotFoundException.message(spec.dataset()));
            }
            TrackedLoad load = new TrackedLoad(new LoadRecord(id, requestId, spec,
                    DataLoadStatus.pending(id, spec.dataset(), clock.instant())));
            store.save(load.record());
            loads.put(id, load);
            publish(load);
            queue.schedule(load);
            return load.status;
        }
    }

    /** Reports a request that was refused (it goes to the dead-letter topic) as a Failed load, when it has an id. */
    public void refused(String requestId, String dataset, String reason) {
        String id = idOf(requestId);
        if (loads.containsKey(id)) {
            return;
        }
        publisher.publish(DataLoadStatus.refused(id, dataset, reason, clock.instant()));
    }

    public DataLoadStatus get(String id) {
        return require(id).status;
    }

    public List<DataLoadStatus> list() {
        return loads.values().stream().map(load -> load.status)
                .sorted(Comparator.comparing(DataLoadStatus::updatedAt).reversed()).toList();
    }

    /** The load's status now, then every change, until it ends. */
    public Multi<DataLoadStatus> events(String id) {
        TrackedLoad load = require(id);
        Multi<DataLoadStatus> now = Multi.createFrom().item(load.status);
        return load.over() ? now : Multi.createBy().concatenating().streams(now, load.updates);
    }

    /** Stops the load: a queued or waiting one at once, a running one after its batches in flight answer. */
    public DataLoadStatus cancel(String id) {
        TrackedLoad load = require(id);
        synchronized (load) {
            load.cancelled = true;
            ScheduledFuture<?> next = load.nextRun;
            if (next != null) {
                next.cancel(false);
            }
            if (load.status.phase() != DataLoadPhase.LOADING && !load.over()) {
                finish(load, load.status.ended(DataLoadPhase.CANCELLED, clock.instant()));
            }
            return load.status;
        }
    }

    private void runQueued() {
        while (!Thread.currentThread().isInterrupted()) {
            TrackedLoad load;
            try {
                load = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            run(load);
        }
    }

    /*
     * A run's start and end are decided under the load's lock, as cancel() is: a cancel that came while a cron load's
     * last batches answered would otherwise see it Loading (so leave it to the run), after the run had looked for
     * it, and the load stayed Complete and never ran again, never Cancelled.
     */
    private void run(TrackedLoad load) {
        Progress progress = new Progress(clock, config.maxErrors());
        synchronized (load) {
            if (load.cancelled) {
                return;  // cancelled while it waited in the queue: cancel() ended it
            }
            update(load, progress.status(load.id, load.spec.dataset(), DataLoadPhase.LOADING));
        }
        ScheduledFuture<?> ticker = ticks.scheduleAtFixedRate(() -> {
            if (load.status.phase() == DataLoadPhase.LOADING) {
                load.status = progress.status(load.id, load.spec.dataset(), DataLoadPhase.LOADING);
                publish(load);
            }
        }, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
        DataLoadPhase phase;
        try {
            phase = new LoadRun(load, metadata, batches, progress, p -> {
                load.status = p.status(load.id, load.spec.dataset(), DataLoadPhase.LOADING);
                publish(load);
            }).run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ticker.cancel(false);
            return;  // shutting down: the record still says Loading, so the next start runs it again
        } catch (WebApplicationException | jakarta.ws.rs.ProcessingException e) {
            progress.failed("", "the metadata-service failed: " + e.getMessage());
            phase = DataLoadPhase.FAILED;
        } catch (RuntimeException e) {
            LOG.errorf(e, "DataLoad %s failed", load.id);
            progress.failed("", e.toString());
            phase = DataLoadPhase.FAILED;
        } finally {
            ticker.cancel(false);
        }
        DataLoadStatus last;
        synchronized (load) {
            if (load.cron() && load.cancelled) {
                phase = DataLoadPhase.CANCELLED;  // its schedule ends, whatever this run did
            }
            last = progress.status(load.id, load.spec.dataset(), phase);
            if (load.cron() && phase != DataLoadPhase.CANCELLED) {
                update(load, last);  // a cron load waits for its next run; its stream goes on
                queue.schedule(load);
            } else {
                finish(load, last);
            }
        }
        metrics.ran(last);
        LOG.infof("DataLoad %s %s: %d of %d files, %d of %d bytes", load.id, phase, last.filesDone(),
                last.filesTotal(), last.bytesDone(), last.bytesTotal());
    }

    private synchronized void update(TrackedLoad load, DataLoadStatus status) {
        load.status = status;
        store.save(load.record());
        publish(load);
    }

    private void finish(TrackedLoad load, DataLoadStatus status) {
        update(load, status);
        load.updates.onComplete();
    }

    private void publish(TrackedLoad load) {
        publisher.publish(load.status);
        load.updates.onNext(load.status);
    }

    private TrackedLoad require(String id) {
        TrackedLoad load = loads.get(id);
        if (load == null) {
            throw new DataLoadNotFoundException(id);
        }
        return load;
    }

    /** A load's id from its request id: the same request always names the same load. */
    public static String idOf(String requestId) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(requestId.getBytes(StandardCharsets.UTF_8));
            return "req-" + HexFormat.of().formatHex(hash, 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @PreDestroy
    void stop() {
        runners.shutdownNow();
        ticks.shutdownNow();
        queue.close();
    }

    static ThreadFactory daemon(String name) {
        AtomicLong count = new AtomicLong();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
