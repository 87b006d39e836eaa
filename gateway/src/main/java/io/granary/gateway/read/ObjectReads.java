package io.granary.gateway.read;

import io.granary.contracts.block.BlockSlice;
import io.granary.contracts.block.Blocks;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
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

import java.util.List;

/** The read path: streams a byte range of a file into a response, block by block, from wherever it is. */
@ApplicationScoped
public class ObjectReads {

    final Vertx vertx;
    final BlockClient blocks;
    final LiveWorkers liveWorkers;
    final ShortCircuit shortCircuit;
    final MountedStores stores;
    final GatewayMetrics metrics;
    final LocalReadReports localReads;
    final int readAhead;

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
        return new ObjectStream(this, request, dataset, file, slices).run();
    }
}
