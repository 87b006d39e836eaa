package io.granary.gateway.read;

import io.granary.contracts.block.BlockId;
import io.granary.contracts.block.BlockSlice;
import io.granary.contracts.block.ByteRange;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.worker.Worker;
import io.granary.gateway.metrics.GatewayMetrics;
import io.granary.kit.blockfile.SendBroken;
import io.granary.kit.blockfile.OpenBlockFile;
import io.granary.kit.blockfile.ZeroCopy;
import io.granary.kit.client.BlockClient;
import io.granary.kit.client.BlockFetch;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.http.HttpServerRequest;
import org.jboss.logging.Logger;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One response body, block by block, in order. Each block comes from the first of: its file on this node
 * (short-circuit, zero-copy; a miss an owner on this node is asked to fill is sent from the block's file as the fill
 * writes it), its owners in placement order over HTTP (a miss streamed as the owner fills it), the under-store. The
 * next blocks are filled (by an owner on this node, to be sent from their files) or fetched while the current one is
 * sent (read-ahead). A failed owner is suspected (by the {@link BlockClient}) and the rest of its
 * block read around it, so a dead worker slows the read but the client still gets every byte.
 */
final class ObjectStream {

    private static final Logger LOG = Logger.getLogger(ObjectStream.class);

    private final ObjectReads reads;
    private final HttpServerRequest request;
    private final Dataset dataset;
    private final FileInfo file;
    private final List<BlockSlice> slices;
    private final Map<Integer, BlockFetch> ahead = new HashMap<>();
    private final Map<Integer, Future<Void>> fills = new HashMap<>();
    private final Promise<Void> done = Promise.promise();
    private final boolean zeroCopy;
    private int position;
    /** The fetch being streamed to the client now, cancelled with the rest if the client goes away. */
    private BlockFetch streaming;

    ObjectStream(ObjectReads reads, HttpServerRequest request, Dataset dataset, FileInfo file, List<BlockSlice> slices) {
        this.reads = reads;
        this.request = request;
        this.dataset = dataset;
        this.file = file;
        this.slices = slices;
        this.zeroCopy = ZeroCopy.possible(request);
    }

    Future<Void> run() {
        request.response().closeHandler(closed -> fail(new IllegalStateException("the client went away")));
        next();
        return done.future();
    }

    private void next() {
        if (done.future().isComplete()) {
            return;
        }
        if (position == slices.size()) {
            done.tryComplete();
            return;
        }
        BlockSlice slice = slices.get(position);
        String blockId = blockId(slice);
        List<Worker> owners = owners(blockId);
        Optional<LocalFile> local = zeroCopy ? local(owners, blockId) : Optional.empty();
        if (local.isPresent()) {
            BlockFetch fetched = ahead.remove(position);  // read ahead over the network before the block became local
            if (fetched != null) {
                fetched.cancel();
            }
            boolean filledAhead = fills.remove(position) != null;  // read ahead only fills a block not there
            sendFile(slice, blockId, local.get(), owners, filledAhead);
            return;
        }
        fills.remove(position);  // a fill started ahead is joined where it has got to
        Worker near = zeroCopy ? near(owners) : null;
        if (near != null) {
            follow(slice, blockId, near, owners);
        } else {
            fromOwners(slice, owners, 0);
        }
    }

    /**
     * The owner on this node fills the block and it is sent from its file as the fill writes it: the client never
     * waits for the whole block, and no byte passes through the worker's HTTP. A failed fill is read around.
     */
    private void follow(BlockSlice slice, String blockId, Worker near, List<Worker> owners) {
        long started = System.nanoTime();
        reads.blocks.follow(near, dataset.name(), file, slice.index()).onComplete(followed -> {
            reads.metrics.coldStage(GatewayMetrics.FILL, System.nanoTime() - started);
            if (done.future().isComplete()) {
                return;  // the client went away meanwhile: start nothing more
            }
            if (followed.failed() || followed.result().bypassed()) {
                fromOwners(slice, owners, 0);  // not stored (no room), or the worker failed: it decides
                return;
            }
            BlockClient.Following following = followed.result();
            Optional<Path> temp = following.filling() == null ? Optional.empty()
                    : reads.shortCircuit.filling(near, dataset.name(), blockId, following.level(), following.filling());
            if (temp.isPresent()) {
                sendFilling(slice, blockId, near, owners, temp.get());
                return;
            }
            Optional<OpenBlockFile> held = reads.shortCircuit.open(near, dataset.name(), blockId);
            if (held.isPresent()) {
                sendFile(slice, blockId, new LocalFile(near, held.get()), owners, true);
            } else {
                fromOwners(slice, owners, 0);
            }
        });
        readAhead();
    }

    private void sendFilling(BlockSlice slice, String blockId, Worker near, List<Worker> owners, Path temp) {
        FollowedFill fill = new FollowedFill(reads.vertx, request, temp,
                () -> reads.shortCircuit.open(near, dataset.name(), blockId), slice.offsetInBlock(), slice.length(),
                reads.blocks.hedgeDelay());  // a fill that writes nothing for as long as an owner may be silent
        fill.run().onComplete(sent -> {
            if (sent.succeeded()) {
                reads.metrics.served(GatewayMetrics.SHORT_CIRCUIT, slice.length());
                reads.localReads.read(near, dataset.name(), blockId, slice.length(), true);
                advance();
            } else if (sent.cause() instanceof SendBroken broken) {
                fail(broken);  // bytes of it may be out: the response breaks off and the client asks again
            } else if (!done.future().isComplete()) {
                LOG.debugf("block %d of %s, followed as %s filled it, broke off after %d bytes: %s", slice.index(),
                        file.path(), near.id(), fill.sent(), sent.cause().getMessage());
                if (fill.sent() == 0) {
                    fromOwners(slice, owners, 0);
                } else {
                    fromUnderStore(slice, fill.sent(), GatewayMetrics.OWNER_FAILED);
                }
            }
        });
    }

    /** Sends the block from its file; {@code filled}: its worker filled it for this read (a miss, to it). */
    private void sendFile(BlockSlice slice, String blockId, LocalFile local, List<Worker> owners, boolean filled) {
        ZeroCopy.send(request, local.file(), slice.offsetInBlock(), slice.length()).onComplete(sent -> {
            if (sent.succeeded()) {
                reads.metrics.served(GatewayMetrics.SHORT_CIRCUIT, slice.length());
                reads.localReads.read(local.owner(), dataset.name(), blockId, slice.length(), filled);
                advance();
            } else if (sent.cause() instanceof SendBroken broken) {
                LOG.warn(broken.getMessage());
                fail(broken);  // bytes of it may be out: the response breaks off and the client asks again
            } else if (!done.future().isComplete()) {
                LOG.debugf("block %d of %s could not be sent from %s: %s", slice.index(), file.path(),
                        local.owner().id(), sent.cause().getMessage());
                fromOwners(slice, owners, 0);
            }
        });
    }

    private Future<Void> fill(Worker near, BlockSlice slice) {
        long started = System.nanoTime();
        return reads.blocks.fill(near, dataset.name(), file, slice.index())
                .onComplete(filled -> reads.metrics.coldStage(GatewayMetrics.FILL, System.nanoTime() - started))
                .mapEmpty();
    }

    private void fromOwners(BlockSlice slice, List<Worker> owners, int attempt) {
        if (done.future().isComplete()) {
            return;
        }
        BlockFetch fetch = ahead.remove(position);
        if (fetch == null || attempt > 0) {
            if (fetch != null) {
                fetch.cancel();
            }
            if (attempt >= owners.size()) {
                fromUnderStore(slice, 0,
                        owners.isEmpty() ? GatewayMetrics.NO_LIVE_WORKER : GatewayMetrics.OWNERS_FAILED);
                return;
            }
            fetch = start(slice, owners.get(attempt));
        }
        readAhead();
        pipe(slice, owners, attempt, fetch, false);
    }

    /**
     * Streams a fetch of the block into the response. One that gave nothing before failing goes to the next owner or
     * the under-store, unless its owner was {@link BlockClient#busy busy} on it: then the
     * owner is asked again, once, and waited on; a failure in mid-block reads the rest from the under-store.
     */
    private void pipe(BlockSlice slice, List<Worker> owners, int attempt, BlockFetch current, boolean askedAgain) {
        streaming = current;
        current.pipeTo(request.response()).onComplete(piped -> {
            streaming = null;
            if (done.future().isComplete()) {
                return;  // the client went away and this fetch was cancelled with the rest
            }
            if (piped.succeeded()) {
                reads.metrics.served(GatewayMetrics.WORKER, slice.length());
                advance();
                return;
            }
            Throwable cause = piped.cause();
            boolean ownerAtFault = BlockClient.workersFault(cause);
            LOG.debugf("block %d of %s from %s failed after %d bytes: %s", slice.index(), file.path(),
                    current.owner().id(), current.written(), cause.getMessage());
            if (current.written() > 0 || !ownerAtFault) {
                fromUnderStore(slice, current.written(),
                        ownerAtFault ? GatewayMetrics.OWNER_FAILED : GatewayMetrics.OWNER_REFUSED);
            } else if (askedAgain) {
                nextOwner(slice, owners, attempt);
            } else {
                reads.blocks.busy(current.owner(), cause).onComplete(busy -> {
                    if (done.future().isComplete()) {
                        return;
                    }
                    if (busy.succeeded() && busy.result()) {
                        pipe(slice, owners, attempt,
                                reads.blocks.fetchAgain(current.owner(), dataset.name(), file, slice), true);
                    } else {
                        nextOwner(slice, owners, attempt);
                    }
                });
            }
        });
    }

    private void nextOwner(BlockSlice slice, List<Worker> owners, int attempt) {
        if (attempt + 1 < owners.size()) {
            fromOwners(slice, owners, attempt + 1);
        } else {
            fromUnderStore(slice, 0, GatewayMetrics.OWNER_FAILED);
        }
    }

    private void fromUnderStore(BlockSlice slice, long skip, String reason) {
        reads.metrics.fallback(reason);
        ByteRange.Slice rest = rest(slice, skip);
        long started = System.nanoTime();
        UnderStoreRange.send(reads.vertx, reads.stores, dataset, file, rest.offset(), rest.length(), request.response())
                .onComplete(sent -> {
                    LOG.debugf("block %d of %s from the under-store (%s): %d bytes in %d ms", slice.index(),
                            file.path(), reason, rest.length(), (System.nanoTime() - started) / 1_000_000);
                    if (sent.succeeded()) {
                        reads.metrics.served(GatewayMetrics.UNDER_STORE, sent.result());
                        advance();
                    } else {
                        fail(sent.cause());
                    }
                });
    }

    /** The next blocks are asked for now: filled on this node, or fetched over the network. */
    private void readAhead() {
        if (done.future().isComplete()) {
            return;
        }
        for (int i = position + 1; i < slices.size() && i <= position + reads.readAhead; i++) {
            if (ahead.containsKey(i) || fills.containsKey(i)) {
                continue;
            }
            BlockSlice slice = slices.get(i);
            String blockId = blockId(slice);
            List<Worker> owners = owners(blockId);
            if (owners.isEmpty() || zeroCopy && held(owners, blockId)) {
                continue;
            }
            Worker near = zeroCopy ? near(owners) : null;
            if (near != null) {
                fills.put(i, fill(near, slice));
            } else {
                ahead.put(i, start(slice, owners.get(0)));
            }
        }
    }

    private Worker near(List<Worker> owners) {
        return owners.isEmpty() || !reads.shortCircuit.reaches(owners.get(0)) ? null : owners.get(0);
    }

    private BlockFetch start(BlockSlice slice, Worker owner) {
        return reads.blocks.fetch(owner, dataset.name(), file, slice);
    }

    private void advance() {
        position++;
        next();
    }

    private void fail(Throwable cause) {
        if (done.tryFail(cause)) {
            if (streaming != null) {
                streaming.cancel();
            }
            ahead.values().forEach(BlockFetch::cancel);
            ahead.clear();
        }
    }

    private String blockId(BlockSlice slice) {
        return BlockId.of(dataset.name(), file.path(), file.etag(), slice.index()).toString();
    }

    private List<Worker> owners(String blockId) {
        return reads.liveWorkers.owners(blockId, dataset.spec().nodeSelector(), dataset.spec().replicas());
    }

    /** The block's file on this node, open, with a reference that sending it releases. */
    private Optional<LocalFile> local(List<Worker> owners, String blockId) {
        for (Worker owner : owners) {
            Optional<OpenBlockFile> file = reads.shortCircuit.open(owner, dataset.name(), blockId);
            if (file.isPresent()) {
                return Optional.of(new LocalFile(owner, file.get()));
            }
        }
        return Optional.empty();
    }

    private boolean held(List<Worker> owners, String blockId) {
        return owners.stream().anyMatch(owner -> reads.shortCircuit.holds(owner, dataset.name(), blockId));
    }

    /** A block's file on this node, and the worker that holds it. */
    private record LocalFile(Worker owner, OpenBlockFile file) {
    }

    /** The bytes of the file the under-store sends for {@code slice} when {@code sent} of them went out already. */
    static ByteRange.Slice rest(BlockSlice slice, long sent) {
        return new ByteRange.Slice(slice.blockOffset() + slice.offsetInBlock() + sent, slice.length() - sent);
    }
}
