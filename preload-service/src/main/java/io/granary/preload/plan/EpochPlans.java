package io.granary.preload.plan;

import io.granary.contracts.block.BlockRef;
import io.granary.contracts.block.Blocks;
import io.granary.contracts.block.ByteSize;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.FileListing;
import io.granary.contracts.placement.RendezvousPlacement;
import io.granary.contracts.plan.EpochPlan;
import io.granary.contracts.plan.PlanPhase;
import io.granary.contracts.plan.PlanStatus;
import io.granary.contracts.validation.ValidationException;
import io.granary.contracts.worker.Worker;
import io.granary.kit.client.BlockClient;
import io.granary.kit.client.MetadataClient;
import io.granary.kit.rest.NotFoundProblem;
import io.granary.preload.config.PreloadConfig;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.rest.client.inject.RestClient;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The epoch plans this replica runs: a plan is checked against the dataset (it must exist and hold every file the
 * plan names), laid out as blocks with their owners, and prefetched ahead of its reader by a {@link PlanRun}. The
 * next epoch's plan of the same job and rank replaces the one before; ended plans are kept a while for their status.
 */
@ApplicationScoped
public class EpochPlans {

    private static final Logger LOG = Logger.getLogger(EpochPlans.class);
    private static final int PAGE = 1000;
    /** Ended plans kept for their status. */
    private static final int KEPT = 200;
    /** How long one listing serves the plans of one list version (the ranks of a job publish together). */
    private static final long LISTING_TTL_NANOS = 30_000_000_000L;

    private final MetadataClient metadata;
    private final PlanRun.Settings settings;
    private final MeterRegistry meters;
    private final Map<String, PlanRun> runs = new ConcurrentHashMap<>();
    private final Map<String, Listing> listings = new LinkedHashMap<>(8, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Listing> eldest) {
            return size() > 4;
        }
    };
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "epoch-plan-" + THREADS.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    });
    private static final AtomicInteger THREADS = new AtomicInteger();

    private record Listing(Map<String, FileInfo> files, long at) {
    }

    EpochPlans(@RestClient MetadataClient metadata, BlockClient blocks, PreloadConfig config, MeterRegistry meters) {
        this.metadata = metadata;
        this.meters = meters;
        PreloadConfig.Plan plan = config.plan();
        this.settings = new PlanRun.Settings(blocks, plan.lookahead(), ByteSize.parse("minWindow", plan.minWindow()),
                plan.maxWindowShare(), plan.pollInterval(), plan.expireAfter(), plan.batchBlocks(),
                config.concurrencyPerWorker());
        meters.gauge("granary.preload.plans.running", runs, all -> all.values().stream()
                .filter(run -> !run.ended()).count());
    }

    /**
     * Checks the plan against its dataset, without starting it.
     *
     * @throws ValidationException naming the field: an unknown dataset, a file not in it
     */
    public void check(EpochPlan plan) {
        layout(plan, dataset(plan));
    }

    /** Starts the plan's prefetch, in place of its job and rank's last one. */
    public PlanStatus start(EpochPlan plan) {
        Dataset dataset = dataset(plan);
        PlanRun.Layout layout = layout(plan, dataset);
        PlanRun run = new PlanRun(plan, layout, settings, new PlanRun.Tally() {
            @Override
            public void fetched(int held, int filled, int failed) {
                meters.counter("granary.preload.plan.blocks", "result", "held").increment(held);
                meters.counter("granary.preload.plan.blocks", "result", "filled").increment(filled);
                meters.counter("granary.preload.plan.blocks", "result", "failed").increment(failed);
            }

            @Override
            public void ended(PlanPhase phase) {
                meters.counter("granary.preload.plans.ended", "phase", phase.name()).increment();
            }
        });
        PlanRun before = runs.put(plan.id(), run);
        if (before != null) {
            before.stop(PlanPhase.Replaced, "epoch " + plan.epoch() + " took its place");
        }
        if (layout.owners().isEmpty()) {
            run.stop(PlanPhase.Failed, "no live cache worker may hold dataset " + plan.dataset());
        }
        threads.submit(run);
        prune();
        LOG.infof("epoch plan %s: dataset %s, epoch %d, %d files in %d blocks on %d workers", plan.id(),
                plan.dataset(), plan.epoch(), plan.files().size(), layout.blocks().size(), layout.owners().size());
        return run.status();
    }

    public List<PlanStatus> list() {
        return runs.values().stream().map(PlanRun::status)
                .sorted(Comparator.comparing(PlanStatus::startedAt).reversed()).toList();
    }

    public PlanStatus get(String id) {
        PlanRun run = runs.get(id);
        if (run == null) {
            throw new NotFoundProblem("id", "no epoch plan '" + id + "'");
        }
        return run.status();
    }

    /** Stops the plan's prefetch; its workers forget it. */
    public PlanStatus end(String id) {
        PlanRun run = runs.get(id);
        if (run == null) {
            throw new NotFoundProblem("id", "no epoch plan '" + id + "'");
        }
        run.stop(PlanPhase.Ended, "ended by request");
        return run.status();
    }

    private Dataset dataset(EpochPlan plan) {
        return metadata.findDataset(plan.dataset()).orElseThrow(() ->
                new ValidationException("dataset", "no dataset '" + plan.dataset() + "'"));
    }

    /** The plan's files as blocks in read order, each with its owner (the first of its rendezvous owners). */
    private PlanRun.Layout layout(EpochPlan plan, Dataset dataset) {
        Map<String, FileInfo> files = files(dataset.name(), plan.listVersion());
        long blockSize = dataset.spec().blockSizeBytes();
        List<Worker> live = metadata.workers().stream()
                .filter(worker -> worker.owns() && worker.matches(dataset.spec().nodeSelector())).toList();
        List<BlockRef> blocks = new ArrayList<>();
        List<Long> lengths = new ArrayList<>();
        List<Integer> ownerOf = new ArrayList<>();
        Map<String, Integer> owners = new HashMap<>();
        List<Worker> ownerList = new ArrayList<>();
        int missing = 0;
        int firstMissing = -1;
        for (int i = 0; i < plan.files().size(); i++) {
            FileInfo file = files.get(plan.files().get(i));
            if (file == null) {
                if (missing++ == 0) {
                    firstMissing = i;
                }
                continue;
            }
            if (missing > 0) {
                continue;
            }
            for (int index = 0; index < Blocks.count(file.size(), blockSize); index++) {
                BlockRef ref = new BlockRef(file.path(), file.etag(), index, file.size());
                blocks.add(ref);
                lengths.add(Blocks.length(file.size(), blockSize, index));
                if (live.isEmpty()) {
                    ownerOf.add(-1);
                    continue;
                }
                Worker owner = RendezvousPlacement.owners(ref.id(dataset.name()).toString(), live,
                        dataset.spec().nodeSelector(), 1).get(0);
                ownerOf.add(owners.computeIfAbsent(owner.id(), id -> {
                    ownerList.add(owner);
                    return ownerList.size() - 1;
                }));
            }
        }
        if (missing > 0) {
            throw new ValidationException("files[" + firstMissing + "]", "'" + plan.files().get(firstMissing)
                    + "' is not in dataset '" + plan.dataset() + "'"
                    + (missing > 1 ? " (nor are " + (missing - 1) + " more of the plan's files)" : ""));
        }
        return new PlanRun.Layout(List.copyOf(blocks), lengths.stream().mapToLong(Long::longValue).toArray(),
                List.copyOf(ownerList), ownerOf.stream().mapToInt(Integer::intValue).toArray());
    }

    /** The dataset's files by path; one listing serves a list version's plans for a while (a job's ranks). */
    private Map<String, FileInfo> files(String dataset, String listVersion) {
        String key = dataset + '@' + listVersion;
        long now = System.nanoTime();
        synchronized (listings) {
            Listing listing = listings.get(key);
            if (listVersion != null && listing != null && now - listing.at() < LISTING_TTL_NANOS) {
                return listing.files();
            }
        }
        Map<String, FileInfo> files = new HashMap<>();
        String cursor = null;
        do {
            FileListing page = metadata.files(dataset, "", null, cursor, PAGE);
            page.files().forEach(file -> files.put(file.path(), file));
            cursor = page.nextCursor();
        } while (cursor != null);
        synchronized (listings) {
            listings.put(key, new Listing(Map.copyOf(files), now));
        }
        return files;
    }

    /** Forgets the oldest ended plans past {@link #KEPT}. */
    private void prune() {
        List<PlanRun> ended = runs.values().stream().filter(PlanRun::ended)
                .sorted(Comparator.comparing(run -> run.status().startedAt())).toList();
        for (int i = 0; i < ended.size() - KEPT; i++) {
            runs.remove(ended.get(i).plan().id(), ended.get(i));
        }
    }

    @PreDestroy
    void stop() {
        runs.values().forEach(run -> run.stop(PlanPhase.Ended, "the preload-service stopped"));
        threads.shutdownNow();
    }
}
