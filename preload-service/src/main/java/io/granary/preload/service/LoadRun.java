package io.granary.preload.service;

import io.granary.contracts.block.BlockFillRequest;
import io.granary.contracts.block.BlockFillResult;
import io.granary.contracts.block.BlockRef;
import io.granary.contracts.block.Blocks;
import io.granary.contracts.dataload.DataLoadPhase;
import io.granary.contracts.dataload.Target;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.DatasetPhase;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.FileListing;
import io.granary.contracts.placement.RendezvousPlacement;
import io.granary.contracts.worker.Worker;
import io.granary.kit.client.MetadataClient;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One run of a DataLoad. Targets are expanded into files from the metadata cache, a page at a time (so a tree of
 * millions of files never sits in memory); each page's blocks go to their owners by rendezvous placement, in
 * batches, every worker's batches in parallel with at most {@code concurrency-per-worker} in flight at it. A first
 * pass over the same listing counts files and bytes, so progress has a total from the start.
 */
final class LoadRun {

    private static final Logger LOG = Logger.getLogger(LoadRun.class);
    private static final int PAGE = 1000;
    /**
     * Pauses before a failed batch, or the blocks its worker could not read from the under-store, are sent again:
     * about a minute in all, past a worker's or a NameNode's restart, or the worker's leaving.
     */
    private static final Duration[] RETRY_BACKOFF = {Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4),
        Duration.ofSeconds(8), Duration.ofSeconds(15), Duration.ofSeconds(15), Duration.ofSeconds(15)};

    private final TrackedLoad load;
    private final MetadataClient metadata;
    private final WorkerBatches batches;
    private final Progress progress;
    private final Consumer<Progress> report;

    /** @param report told of the progress once the totals are counted (the rest is reported on a timer) */
    LoadRun(TrackedLoad load, MetadataClient metadata, WorkerBatches batches, Progress progress,
            Consumer<Progress> report) {
        this.load = load;
        this.metadata = metadata;
        this.batches = batches;
        this.progress = progress;
        this.report = report;
    }

    /** @return the phase the run ended in */
    DataLoadPhase run() throws InterruptedException {
        Dataset dataset = metadata.findDataset(load.spec.dataset()).orElse(null);
        if (dataset == null) {
            progress.failed("", "dataset " + load.spec.dataset() + " no longer exists");
            return DataLoadPhase.FAILED;
        }
        if (load.spec.metadataOnly()) {
            return refreshMetadata(dataset);
        }
        List<Worker> live = owning(metadata, dataset);
        // None now is most often none for a moment (their heartbeats did not come through: the broker restarted):
        // the load waits as long as it would for a failed batch before it fails.
        for (int attempt = 0; live.isEmpty() && attempt < RETRY_BACKOFF.length && !load.cancelled; attempt++) {
            LOG.warnf("DataLoad %s: no live cache worker may hold dataset %s; asking again in %s", load.id,
                    dataset.name(), RETRY_BACKOFF[attempt]);
            Thread.sleep(RETRY_BACKOFF[attempt].toMillis());
            live = owning(metadata, dataset);
        }
        if (live.isEmpty()) {
            progress.failed("", "no live cache worker may hold dataset " + dataset.name());
            return DataLoadPhase.FAILED;
        }
        long blockSize = dataset.spec().blockSizeBytes();
        int defaultReplicas = dataset.spec().replicas() == null ? 1 : dataset.spec().replicas();
        List<Selection> selections = selections(defaultReplicas);
        for (Selection selection : selections) {
            selection.forEachPage(this, page -> page.forEach(file -> {
                progress.filesTotal.incrementAndGet();
                progress.bytesTotal.addAndGet(file.size() * selection.replicas());
            }));
        }
        report.accept(progress);
        List<Worker> owners = live;
        for (Selection selection : selections) {
            if (!selection.forEachPage(this, page -> loadPage(page, selection.replicas(), blockSize, owners, dataset))) {
                break;
            }
        }
        if (load.cancelled) {
            return DataLoadPhase.CANCELLED;
        }
        return progress.failures() > 0 ? DataLoadPhase.FAILED : DataLoadPhase.COMPLETE;
    }

    /** The live workers that may hold the dataset's blocks. */
    private static List<Worker> owning(MetadataClient metadata, Dataset dataset) {
        return metadata.workers().stream()
                .filter(worker -> worker.owns() && worker.matches(dataset.spec().nodeSelector())).toList();
    }

    /** metadataOnly: list the dataset from the under-store again into the metadata cache, and no block. */
    private DataLoadPhase refreshMetadata(Dataset before) throws InterruptedException {
        Instant asked = Instant.now();
        metadata.sync(before.name());
        while (!load.cancelled) {
            Dataset now = metadata.dataset(before.name());
            if (now.status().phase() == DatasetPhase.FAILED) {
                progress.failed("", now.status().reason());
                return DataLoadPhase.FAILED;
            }
            if (now.status().syncedAt() != null && !now.status().syncedAt().isBefore(asked)) {
                progress.filesTotal.set(now.status().fileCount());
                progress.filesDone.set(now.status().fileCount());
                return DataLoadPhase.COMPLETE;
            }
            Thread.sleep(200);
        }
        return DataLoadPhase.CANCELLED;
    }

    /**
     * Every file of the page, block by block, to its owners; returns once every batch has answered.
     *
     * @throws InterruptedException when the service stops: the load is left as it is, to run again at the next start
     */
    private void loadPage(List<FileInfo> page, int replicas, long blockSize, List<Worker> live, Dataset dataset)
            throws InterruptedException {
        Placing placing = new Placing(dataset, replicas, live);
        Map<Worker, List<BlockRef>> byOwner = new HashMap<>();
        Map<String, AtomicInteger> remaining = new HashMap<>();
        Map<String, FileInfo> files = new HashMap<>();
        for (FileInfo file : page) {
            int blocks = Blocks.count(file.size(), blockSize);
            files.put(file.path(), file);
            remaining.put(file.path(), new AtomicInteger(blocks * replicas));
            if (blocks == 0) {
                progress.filesDone.incrementAndGet();  // an empty file has nothing to cache
            }
            for (int index = 0; index < blocks; index++) {
                BlockRef ref = new BlockRef(file.path(), file.etag(), index, file.size());
                for (Worker owner : placing.owners(ref)) {
                    byOwner.computeIfAbsent(owner, w -> new ArrayList<>()).add(ref);
                }
            }
        }
        List<Future<?>> sent = new ArrayList<>();
        byOwner.forEach((owner, refs) -> {
            for (int from = 0; from < refs.size(); from += batches.batchBlocks()) {
                List<BlockRef> batch = refs.subList(from, Math.min(refs.size(), from + batches.batchBlocks()));
                sent.add(batches.submit(() -> {
                    send(owner, batch, blockSize, files, remaining, placing, 0);
                    return null;
                }));
            }
        });
        for (Future<?> future : sent) {
            try {
                future.get();
            } catch (ExecutionException e) {
                LOG.errorf(e.getCause(), "DataLoad %s: a batch failed", load.id);  // send() fails its own files
            }
        }
    }

    private void send(Worker owner, List<BlockRef> batch, long blockSize, Map<String, FileInfo> files,
                      Map<String, AtomicInteger> remaining, Placing placing, int attempt) throws InterruptedException {
        long bytes = 0;
        for (BlockRef ref : batch) {
            bytes += Blocks.length(files.get(ref.path()).size(), blockSize, ref.index());
        }
        BlockFillResult result;
        try {
            result = batches.fill(owner, new BlockFillRequest(load.spec.dataset(), batch, false), bytes,
                    () -> load.cancelled);
        } catch (RuntimeException e) {
            if (attempt < RETRY_BACKOFF.length && !load.cancelled) {
                // A worker that failed or died is restarted, or leaves the membership once its heartbeats stop:
                // the batch goes, after a pause, to whichever worker owns each block then.
                LOG.warnf("DataLoad %s: worker %s failed (%s); %d blocks placed again in %s", load.id, owner.id(),
                        e.getMessage(), batch.size(), RETRY_BACKOFF[attempt]);
                Thread.sleep(RETRY_BACKOFF[attempt].toMillis());
                Placing now = placing.again(metadata);
                Map<Worker, List<BlockRef>> byOwner = new HashMap<>();
                for (BlockRef ref : batch) {
                    byOwner.computeIfAbsent(now.replacing(owner, ref, placing), w -> new ArrayList<>()).add(ref);
                }
                for (Map.Entry<Worker, List<BlockRef>> entry : byOwner.entrySet()) {
                    send(entry.getKey(), entry.getValue(), blockSize, files, remaining, now, attempt + 1);
                }
                return;
            }
            // Still failing after every retry: its blocks' files fail; the next run of the load tries them again.
            for (BlockRef ref : batch) {
                blockDone(ref.path(), remaining, "worker " + owner.id() + " failed: " + e.getMessage());
            }
            return;
        }
        if (result == null) {
            return;  // cancelled while it waited its turn
        }
        progress.bytesDone.addAndGet(result.bytes());
        Map<String, String> failedPaths = new HashMap<>();
        result.errors().forEach(error -> failedPaths.putIfAbsent(error.path(), error.reason()));
        Set<BlockRef> later = new HashSet<>(result.unavailable());
        for (BlockRef ref : batch) {
            if (!later.contains(ref)) {
                blockDone(ref.path(), remaining, failedPaths.get(ref.path()));
            }
        }
        if (later.isEmpty()) {
            return;
        }
        if (attempt < RETRY_BACKOFF.length && !load.cancelled) {
            // The under-store is down or restarting (a NameNode restart, an S3 outage): the same owner asks it
            // again after a pause, past the restart, rather than failing the files.
            LOG.warnf("DataLoad %s: the under-store could not be reached for %d blocks on %s; asked again in %s",
                    load.id, later.size(), owner.id(), RETRY_BACKOFF[attempt]);
            Thread.sleep(RETRY_BACKOFF[attempt].toMillis());
            send(owner, result.unavailable(), blockSize, files, remaining, placing, attempt + 1);
            return;
        }
        for (BlockRef ref : result.unavailable()) {
            blockDone(ref.path(), remaining, "block " + ref.index() + ": the under-store could not be reached");
        }
    }

    /** Counts one block copy of a file; the file is done (or failed, once) when its last copy answers. */
    private void blockDone(String path, Map<String, AtomicInteger> remaining, String failure) {
        AtomicInteger left = remaining.get(path);
        if (failure != null) {
            if (left.getAndSet(-1) >= 0) {
                progress.failed(path, failure);
            }
            return;
        }
        if (left.decrementAndGet() == 0) {
            progress.filesDone.incrementAndGet();
        }
    }

    /** Where blocks go: the live workers that may hold the dataset, as one look at the membership saw them. */
    private record Placing(Dataset dataset, int replicas, List<Worker> live) {

        List<Worker> owners(BlockRef ref) {
            return RendezvousPlacement.owners(ref.id(dataset.name()).toString(), live, dataset.spec().nodeSelector(),
                    replicas);
        }

        /** The membership now (the same as before when it cannot be read). */
        Placing again(MetadataClient metadata) {
            try {
                List<Worker> now = owning(metadata, dataset);
                return now.isEmpty() ? this : new Placing(dataset, replicas, now);
            } catch (RuntimeException e) {
                return this;
            }
        }

        /** Who takes a block that {@code failed} was to hold under {@code before}: still it if it still owns it. */
        Worker replacing(Worker failed, BlockRef ref, Placing before) {
            List<Worker> owners = owners(ref);
            List<String> previous = before.owners(ref).stream().map(Worker::id).toList();
            return owners.stream().filter(owner -> owner.id().equals(failed.id())).findFirst()
                    .or(() -> owners.stream().filter(owner -> !previous.contains(owner.id())).findFirst())
                    .orElse(owners.get(0));
        }
    }

    private interface PageAction {
        void accept(List<FileInfo> page) throws InterruptedException;
    }

    /** A target or listed file to load, and how many copies of its blocks. */
    private record Selection(String path, boolean file, int replicas) {

        /** Calls {@code each} per page of files; false when the load was cancelled on the way. */
        boolean forEachPage(LoadRun run, PageAction each) throws InterruptedException {
            if (file) {
                each.accept(List.of(run.metadata.file(run.load.spec.dataset(), path)));
                return !run.load.cancelled;
            }
            String cursor = null;
            do {
                if (run.load.cancelled) {
                    return false;
                }
                FileListing page = run.metadata.files(run.load.spec.dataset(), path, null, cursor, PAGE);
                each.accept(page.files());
                cursor = page.nextCursor();
            } while (cursor != null);
            return true;
        }
    }

    /** Targets as directory prefixes or single files (a target that names a file is that file), then the files. */
    private List<Selection> selections(int defaultReplicas) {
        List<Selection> selections = new ArrayList<>();
        for (Target target : load.spec.targets()) {
            int replicas = target.replicas() == null ? defaultReplicas : target.replicas();
            String path = target.path();
            if (!path.isEmpty() && !path.endsWith("/") && isFile(path)) {
                selections.add(new Selection(path, true, replicas));
            } else {
                selections.add(new Selection(path.isEmpty() || path.endsWith("/") ? path : path + "/", false,
                        replicas));
            }
        }
        for (String file : load.spec.files()) {
            if (isFile(file)) {
                selections.add(new Selection(file, true, defaultReplicas));
            } else {
                progress.failed(file, "no such file in dataset " + load.spec.dataset());
            }
        }
        return selections;
    }

    private boolean isFile(String path) {
        return metadata.findFile(load.spec.dataset(), path).isPresent();
    }
}
