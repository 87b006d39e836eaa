package io.granary.gateway.read;

import io.granary.contracts.block.ByteSize;
import io.granary.contracts.worker.Medium;
import io.granary.contracts.worker.Worker;
import io.granary.gateway.config.GatewayConfig;
import io.granary.kit.blockfile.BlockFileReader;
import io.granary.kit.blockfile.OpenBlockFile;
import io.granary.kit.blockfile.ZeroCopy;
import io.granary.kit.config.GranaryConfig;
import io.quarkus.scheduler.Scheduled;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The block files of the workers on this node, which the gateway sends itself (see {@link ZeroCopy}): one hop less,
 * as HDFS and Alluxio short-circuit reads. Finding, checking and keeping them open is service-kit's
 * {@link BlockFileReader}, the FUSE client's too; this is its switch ({@code read.short-circuit}), its settings
 * ({@code read.open-files}, {@code read.map-at-least}: a big file in memory is sent from its mapping) and its timer.
 */
@ApplicationScoped
public class ShortCircuit {

    private final boolean enabled;
    private final BlockFileReader files;

    @Inject
    ShortCircuit(GatewayConfig config, GranaryConfig shared) {
        this(config.read().shortCircuit(), new BlockFileReader(shared.node(), config.read().openFiles(),
                ByteSize.parse("granary.gateway.read.map-at-least", config.read().mapAtLeast())));
    }

    ShortCircuit(boolean enabled, BlockFileReader files) {
        this.enabled = enabled;
        this.files = files;
    }

    /** Whether this worker's block files are read here (it runs on this node). */
    public boolean reaches(Worker owner) {
        return enabled && files.reaches(owner);
    }

    /** Whether the block's whole file is on this node. */
    public boolean holds(Worker owner, String dataset, String blockId) {
        return enabled && files.find(owner, dataset, blockId).isPresent();
    }

    /** The block's file, open to be sent from, with a reference the caller releases; empty when not on this node. */
    Optional<OpenBlockFile> open(Worker owner, String dataset, String blockId) {
        return enabled ? files.open(owner, dataset, blockId) : Optional.empty();
    }

    /** The temporary file its owner on this node is filling the block in, as the owner named it. */
    Optional<Path> filling(Worker owner, String dataset, String blockId, Medium medium, String name) {
        return enabled ? files.filling(owner, dataset, blockId, medium, name) : Optional.empty();
    }

    /** A block evicted or freed since its last read does not hold its space (memory, for a memory level) for long. */
    @Scheduled(every = "${granary.read.open-files-check}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void closeStale() {
        files.closeStale();
    }

    @PreDestroy
    void close() {
        files.close();
    }
}
