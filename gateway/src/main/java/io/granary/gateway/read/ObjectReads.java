package io.granary.gateway.read;

import io.granary.contracts.block.BlockSlice;
import io.granary.contracts.block.Blocks;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.Mount;
import io.granary.gateway.metrics.GatewayMetrics;
import io.granary.kit.client.BlockClient;
import io.granary.kit.client.LiveWorkers;
import io.granary.kit.client.LocalReadReports;
import io.granary.kit.config.ReadConfig;
import io.granary.ufs.MountedStores;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The read path: streams a byte range of a file into a response, block by block, from wherever it is. */
@ApplicationScoped
public class ObjectReads {

    private static final Logger LOG = Logger.getLogger(ObjectReads.class);

    final Vertx vertx;
    final BlockClient blocks;
    final LiveWorkers liveWorkers;
    final ShortCircuit shortCircuit;
    final MountedStores stores;
    final GatewayMetrics metrics;
    final LocalReadReports localReads;
    final int readAhead;
    /** Mounts whose under-store was made ready for reads around workers (asked once each). */
    private final Set<Mount> prepared = ConcurrentHashMap.newKeySet();

    ObjectReads(Vertx vertx, BlockClient blocks, LiveWorkers liveWorkers, ShortCircuit shortCircuit,
                MountedStores stores, GatewayMetrics metrics, LocalReadReports localReads, ReadConfig read) {
        this.vertx = vertx;
        this.blocks = blocks;
        this.liveWorkers = liveWorkers;
        this.shortCircuit = shortCircuit;
        this.stores = stores;
        this.metrics = metrics;
        this.localReads = localReads;
        this.readAhead = read.readAhead();
    }

    /**
     * Writes {@code length} bytes of {@code file} from {@code offset} into the request's response, whose head
     * (status, length) the caller has set. It does not end the response.
     */
    public Future<Void> stream(HttpServerRequest request, Dataset dataset, FileInfo file, long offset, long length) {
        List<BlockSlice> slices = Blocks.covering(file.size(), dataset.spec().blockSizeBytes(), offset, length);
        prepare(dataset);
        return new ObjectStream(this, request, dataset, file, slices).run();
    }

    /**
     * A dataset's first read here has its under-store made ready in the background ({@link MountedStores#prepare}):
     * otherwise the first reads around a failed worker also start the store's client, 3.4-3.9 s each in a chaos
     * run's first worker kill, where the next ones took tens of milliseconds.
     */
    private void prepare(Dataset dataset) {
        for (Mount mount : dataset.spec().mounts()) {  // a loop, not a stream: this runs for every GET
            if (prepared.add(mount)) {
                vertx.executeBlocking(() -> {
                    stores.prepare(List.of(mount));
                    return null;
                }, false).onFailure(failure -> LOG.warnf("the under-store of dataset %s cannot be read from here"
                        + " (%s): a read whose workers fail will fail", dataset.name(), failure.getMessage()));
            }
        }
    }
}
