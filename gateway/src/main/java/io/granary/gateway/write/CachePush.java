package io.granary.gateway.write;

import io.granary.contracts.block.BlockFillRequest;
import io.granary.contracts.block.BlockId;
import io.granary.contracts.block.BlockRef;
import io.granary.contracts.block.Blocks;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.worker.Worker;
import io.granary.gateway.metrics.GatewayMetrics;
import io.granary.kit.client.BlockClient;
import io.granary.kit.client.LiveWorkers;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.file.OpenOptions;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Write-through into the cache: each block of a just-written object goes from the staged file to its owners
 * ({@code PUT /blocks/...}), so the next reader (a restarted job loading its checkpoint) hits the cache; or, when the
 * staged bytes are not all here, filled by its owners from the under-store. Best effort: a block that cannot be
 * placed is only a later miss, never a failed write.
 */
@ApplicationScoped
public class CachePush {

    private static final Logger LOG = Logger.getLogger(CachePush.class);

    private final Vertx vertx;
    private final BlockClient blocks;
    private final LiveWorkers liveWorkers;
    private final GatewayMetrics metrics;

    CachePush(Vertx vertx, BlockClient blocks, LiveWorkers liveWorkers, GatewayMetrics metrics) {
        this.vertx = vertx;
        this.blocks = blocks;
        this.liveWorkers = liveWorkers;
        this.metrics = metrics;
    }

    /** Pushes the blocks one after another (their replicas at once); completes, never fails, when all are tried. */
    Future<Void> push(Dataset dataset, FileInfo file, Path staged) {
        long blockSize = dataset.spec().blockSizeBytes();
        int count = Blocks.count(file.size(), blockSize);
        Future<Void> chain = Future.succeededFuture();
        for (int index = 0; index < count; index++) {
            int block = index;
            chain = chain.compose(previous -> pushBlock(dataset, file, staged, block, blockSize));
        }
        return chain;
    }

    private Future<Void> pushBlock(Dataset dataset, FileInfo file, Path staged, int index, long blockSize) {
        String blockId = BlockId.of(dataset.name(), file.path(), file.etag(), index).toString();
        long offset = index * blockSize;
        long length = Blocks.length(file.size(), blockSize, index);
        List<Future<Void>> copies = new ArrayList<>();
        for (Worker owner : liveWorkers.owners(blockId, dataset.spec().nodeSelector(), dataset.spec().replicas())) {
            copies.add(put(owner, dataset.name(), file, staged, index, offset, length).recover(failure -> {
                LOG.warnf("block %d of %s not written to %s: %s", index, file.path(), owner.id(), failure.getMessage());
                metrics.writeThrough(GatewayMetrics.FAILED, length);
                return Future.succeededFuture();
            }));
        }
        return Future.join(copies).mapEmpty();
    }

    /**
     * Has the owners fill the object's blocks from the under-store, one batch each: what written through means for
     * an upload whose parts went through other gateways too (a Service spreads them), so this one cannot push its
     * blocks. The store sends the object once more, and a restore that follows hits the cache. Completes, never
     * fails, when every owner answered.
     */
    Future<Void> fill(Dataset dataset, FileInfo file) {
        long blockSize = dataset.spec().blockSizeBytes();
        Map<String, Worker> owners = new LinkedHashMap<>();
        Map<String, List<BlockRef>> batches = new LinkedHashMap<>();
        for (int index = 0; index < Blocks.count(file.size(), blockSize); index++) {
            String blockId = BlockId.of(dataset.name(), file.path(), file.etag(), index).toString();
            for (Worker owner : liveWorkers.owners(blockId, dataset.spec().nodeSelector(), dataset.spec().replicas())) {
                owners.putIfAbsent(owner.id(), owner);
                batches.computeIfAbsent(owner.id(), id -> new ArrayList<>())
                        .add(new BlockRef(file.path(), file.etag(), index, file.size()));
            }
        }
        List<Future<Void>> fills = new ArrayList<>();
        batches.forEach((id, refs) -> fills.add(blocks.fill(owners.get(id),
                new BlockFillRequest(dataset.name(), refs, false)).<Void>map(result -> {
                    metrics.writeThrough(GatewayMetrics.FILLED, result.bytes());
                    if (result.failed() > 0) {
                        LOG.warnf("%d blocks of %s not filled on %s: %s", result.failed(), file.path(), id,
                                result.errors());
                    }
                    return null;
                }).recover(failure -> {
                    LOG.warnf("blocks of %s not filled on %s: %s", file.path(), id, failure.getMessage());
                    return Future.succeededFuture();
                })));
        return Future.join(fills).mapEmpty();
    }

    /** One copy, from a file handle of its own, closed once the client is done with it (answer and body both). */
    private Future<Void> put(Worker owner, String dataset, FileInfo file, Path staged, int index, long offset,
                             long length) {
        return vertx.fileSystem().open(staged.toString(), new OpenOptions().setRead(true))
                .compose(body -> blocks.put(owner, dataset, file, index, body.setReadPos(offset).setReadLength(length),
                        length).andThen(sent -> body.close()))
                .onSuccess(done -> metrics.writeThrough(GatewayMetrics.STORED, length));
    }
}
