package io.granary.preload.service;

import io.granary.contracts.dataload.DataLoadPhase;
import io.granary.contracts.dataload.DataLoadSpec;
import io.granary.contracts.dataload.DataLoadStatus;
import io.granary.contracts.dataload.FileError;
import io.granary.contracts.dataload.LoadPolicy;
import io.granary.contracts.block.ByteSize;
import io.granary.preload.client.MetadataClient;
import io.granary.preload.client.Workers;
import io.granary.preload.config.PreloadConfig;
import io.granary.preload.events.StatusPublisher;
import io.granary.preload.store.LoadRecord;
import io.granary.preload.store.LoadStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
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
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The DataLoads of this replica: accepted (recorded before anything else), queued by priority, run
 * {@code concurrent-loads} at a time, re-run on their cron schedule, cancelled on request, and resumed after a
 * restart. Every status change goes to {@code granary.preload.status} and to the load's event stream.
 */
@ApplicationScoped
public class DataLoads {

    private static final Logger LOG = Logger.getLogger(DataLoads.class);
    private static final Duration TICK = Duration.ofMillis(500);

    private final MetadataClient metadata;
    private final Workers workers;
    private final LoadStore store;
    private final StatusPublisher publisher;
    private final PreloadConfig config;
    private final Clock clock = Clock.systemUTC();
    private final Map<String, TrackedLoad> loads = new ConcurrentHashMap<>();
    private final PriorityBlockingQueue<Queued> queue = new PriorityBlockingQueue<>(16, Queued.ORDER);
    private final AtomicLong arrivals = new AtomicLong();
    private final Map<String, Semaphore> perWorker = new ConcurrentHashMap<>();
    private final Throttle throttle;
    private final ExecutorService runners;
    private final ExecutorService batches;
    private final ScheduledExecutorService timers;
    private final Counter bytesPreloaded;
    private final Counter filesPreloaded;

    DataLoads(@RestClient MetadataClient metadata, Workers workers, LoadStore store, StatusPublisher publisher,
              PreloadConfig config, MeterRegistry registry) {
        this.metadata = metadata;
        this.workers = workers;
        this.store = store;
        this.publisher = publisher;
        this.config = config;
        this.throttle = new Throttle(ByteSize.parse("bandwidthLimit", config.bandwidthLimit()));
        this.runners = Executors.newFixedThreadPool(config.concurrentLoads(), daemon("dataload"));
        this.batches = Executors.newCachedThreadPool(daemon("dataload-batch"));
        this.timers = Executors.newScheduledThreadPool(1, daemon("dataload-timer"));
        this.bytesPreloaded = registry.counter("granary.preload.bytes");
        this.filesPreloaded = registry.counter("granary.preload.files");
        for (DataLoadPhase phase : DataLoadPhase.values()) {
            Gauge.builder("granary.preload.loads", loads, all -> all.values().stream()
                    .filter(load -> load.status.phase() == phase).count()).tag("phase", phase.name()).register(registry);
        }
        Gauge.builder("granary.preload.throughput", loads, all -> all.values().stream()
                        .filter(load -> load.status.phase() == DataLoadPhase.LOADING)
                        .mapToDouble(load -> load.status.bytesPerSecond()).sum())
                .description("bytes per second all running loads fill").baseUnit("bytes").register(registry);
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
                update(load, pending(load.id, load.spec.dataset()));
            }
            schedule(load);
        }
        for (int i = 0; i < config.concurrentLoads(); i++) {
            runners.execute(this::runQueued);
        }
    }

    /**
     * Accepts a validated DataLoad; the same {@code requestId} again returns the load it started.
     *
     * @throws UnknownDatasetException when the dataset does not exist
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
            requireDataset(spec.dataset());
            TrackedLoad load = new TrackedLoad(new LoadRecord(id, requestId, spec, pending(id, spec.dataset())));
            store.save(load.record());
            loads.put(id, load);
            publish(load);
            schedule(load);
            return load.status;
        }
    }

    /** Reports a request that was refused (it goes to the dead-letter topic) as a Failed load, when it has an id. */
    public void refused(String requestId, String dataset, String reason) {
        String id = idOf(requestId);
        if (loads.containsKey(id)) {
            return;
        }
        publisher.publish(new DataLoadStatus(id, dataset, DataLoadPhase.FAILED, 0, 0, 0, 0, 0, 0L, null,
                clock.instant(), List.of(new FileError("", reason)), clock.instant()));
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
        load.cancelled = true;
        ScheduledFuture<?> next = load.nextRun;
        if (next != null) {
            next.cancel(false);
        }
        if (load.status.phase() != DataLoadPhase.LOADING && !load.over()) {
            finish(load, with(load.status, DataLoadPhase.CANCELLED));
        }
        return load.status;
    }

    private void schedule(TrackedLoad load) {
        if (load.cancelled) {
            return;
        }
        if (!load.cron()) {
            queue.add(new Queued(load, load.spec.priority(), arrivals.incrementAndGet()));
            return;
        }
        Duration wait = CronSchedules.untilNext(CronSchedules.parse(load.spec.schedule()));
        load.nextRun = timers.schedule(() -> queue.add(new Queued(load, load.spec.priority(),
                arrivals.incrementAndGet())), wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void runQueued() {
        while (!Thread.currentThread().isInterrupted()) {
            TrackedLoad load;
            try {
                load = queue.take().load();
            } catch (InterruptedException e) {
                return;
            }
            if (load.cancelled) {
                continue;
            }
            run(load);
            if (load.cron() && !load.cancelled) {
                schedule(load);
            }
        }
    }

    private void run(TrackedLoad load) {
        Progress progress = new Progress(clock, config.maxErrors());
        update(load, progress.status(load.id, load.spec.dataset(), DataLoadPhase.LOADING));
        ScheduledFuture<?> ticker = timers.scheduleAtFixedRate(() -> {
            if (load.status.phase() == DataLoadPhase.LOADING) {
                load.status = progress.status(load.id, load.spec.dataset(), DataLoadPhase.LOADING);
                publish(load);
            }
        }, TICK.toMillis(), TICK.toMillis(), TimeUnit.MILLISECONDS);
        DataLoadPhase phase;
        try {
            phase = new LoadRun(load, metadata, workers, batches, perWorker, config.concurrencyPerWorker(),
                    config.batchBlocks(), throttle, progress, p -> {
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
        DataLoadStatus last = progress.status(load.id, load.spec.dataset(), phase);
        bytesPreloaded.increment(last.bytesDone());
        filesPreloaded.increment(last.filesDone());
        LOG.infof("DataLoad %s %s: %d of %d files, %d of %d bytes", load.id, phase, last.filesDone(),
                last.filesTotal(), last.bytesDone(), last.bytesTotal());
        if (load.cron() && phase != DataLoadPhase.CANCELLED) {
            update(load, last);  // a cron load waits for its next run; its stream goes on
        } else {
            finish(load, last);
        }
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

    private void requireDataset(String dataset) {
        try {
            metadata.dataset(dataset);
        } catch (WebApplicationException e) {
            if (e.getResponse().getStatus() == 404) {
                throw new UnknownDatasetException(dataset);
            }
            throw e;
        }
    }

    private DataLoadStatus pending(String id, String dataset) {
        return new DataLoadStatus(id, dataset, DataLoadPhase.PENDING, 0, 0, 0, 0, 0, null, null, null, List.of(),
                clock.instant());
    }

    private DataLoadStatus with(DataLoadStatus status, DataLoadPhase phase) {
        return new DataLoadStatus(status.id(), status.dataset(), phase, status.filesDone(), status.filesTotal(),
                status.bytesDone(), status.bytesTotal(), 0, null, status.startedAt(), clock.instant(),
                status.errors(), clock.instant());
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
        batches.shutdownNow();
        timers.shutdownNow();
    }

    private record Queued(TrackedLoad load, int priority, long arrival) {
        static final Comparator<Queued> ORDER = Comparator.comparingInt(Queued::priority).reversed()
                .thenComparingLong(Queued::arrival);
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        AtomicLong count = new AtomicLong();
        return runnable -> {
            Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
