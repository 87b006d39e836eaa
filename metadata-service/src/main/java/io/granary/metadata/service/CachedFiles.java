package io.granary.metadata.service;

import io.granary.contracts.block.BlockApi;
import io.granary.contracts.block.BlockId;
import io.granary.contracts.block.Blocks;
import io.granary.contracts.dataset.DatasetSpec;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.worker.Worker;
import io.granary.kit.client.BlockClient;
import io.vertx.core.Future;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How much of each file of a listing page the workers hold, as {@code ls} and the console show it: the page's block
 * ids are asked of every live worker the dataset may use, and a block counts once however many replicas hold it.
 * A listing never fails for a worker: one that does not answer in time holds nothing for this answer, and when none
 * answers the page says nothing of its cache. Files past {@link #MAX_BLOCKS} blocks on one page are left out (unknown):
 * a page of huge files must not cost millions of hashes and questions.
 */
@ApplicationScoped
public class CachedFiles {

    static final int MAX_BLOCKS = 100_000;
    private static final Logger LOG = Logger.getLogger(CachedFiles.class);
    private static final Duration WARN_EVERY = Duration.ofMinutes(1);

    private final Membership membership;
    private final BlockClient blocks;
    private final Map<String, Instant> warned = new ConcurrentHashMap<>();

    CachedFiles(Membership membership, BlockClient blocks) {
        this.membership = membership;
        this.blocks = blocks;
    }

    /** path → cached bytes, for the files given (as many as {@link #MAX_BLOCKS} allow); null when no worker answered. */
    public CompletionStage<Map<String, Long>> of(DatasetSpec dataset, List<FileInfo> files) {
        long blockSize = dataset.blockSizeBytes();
        Map<String, String> fileOfBlock = new HashMap<>();
        List<FileInfo> asked = new ArrayList<>();
        for (FileInfo file : files) {
            int count = Blocks.count(file.size(), blockSize);
            if (fileOfBlock.size() + count > MAX_BLOCKS) {
                break;
            }
            asked.add(file);
            String hash = BlockId.fileHash(dataset.name(), file.path(), file.etag());
            for (int index = 0; index < count; index++) {
                fileOfBlock.put(new BlockId(hash, index).toString(), file.path());
            }
        }
        List<Worker> workers = membership.workers().stream()
                .filter(worker -> worker.live() && worker.matches(dataset.nodeSelector())).toList();
        if (workers.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        List<String> ids = new ArrayList<>(fileOfBlock.keySet());
        List<Future<Map<String, Long>>> answers = new ArrayList<>();
        for (Worker worker : workers) {
            for (int from = 0; from < ids.size(); from += BlockApi.MAX_HELD_QUERY) {
                answers.add(held(worker, dataset.name(), ids.subList(from,
                        Math.min(ids.size(), from + BlockApi.MAX_HELD_QUERY))));
            }
        }
        return Future.join(answers).transform(done -> {
            if (!ids.isEmpty() && answers.stream().noneMatch(Future::succeeded)) {
                return Future.succeededFuture((Map<String, Long>) null);
            }
            Map<String, Long> blocks = new HashMap<>();
            answers.stream().filter(Future::succeeded).forEach(answer -> blocks.putAll(answer.result()));
            Map<String, Long> cached = new HashMap<>();
            asked.forEach(file -> cached.put(file.path(), 0L));
            blocks.forEach((id, length) -> {
                String path = fileOfBlock.get(id);
                if (path != null) {
                    cached.merge(path, length, Long::sum);
                }
            });
            return Future.succeededFuture(cached);
        }).toCompletionStage();
    }

    private Future<Map<String, Long>> held(Worker worker, String dataset, List<String> ids) {
        return blocks.held(worker, dataset, ids).onFailure(failure -> warn(worker, failure));
    }

    /** Once a minute per worker: a listing polled every few seconds must not flood the log. */
    private void warn(Worker worker, Throwable failure) {
        Instant now = Instant.now();
        Instant last = warned.get(worker.id());
        if (last == null || last.plus(WARN_EVERY).isBefore(now)) {
            warned.put(worker.id(), now);
            LOG.warnf("worker %s did not say which blocks it holds (listings show them uncached): %s", worker.id(),
                    failure.getMessage());
        }
    }
}
