package io.granary.gateway.read;

import io.granary.contracts.block.BlockApi;
import io.granary.contracts.worker.Tier;
import io.granary.contracts.worker.Worker;
import io.granary.gateway.config.GatewayConfig;
import io.granary.kit.config.GranaryConfig;
import jakarta.enterprise.context.ApplicationScoped;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Finds a block's file in the level directories of a worker on this node ({@code <level>/<dataset>/<blockId>}, the
 * block-service's file contract), so the gateway sends it itself: one hop less, as HDFS and Alluxio short-circuit
 * reads. A block file appears only when whole (written to a temporary name, then renamed), so one that exists
 * can be sent as it is.
 */
@ApplicationScoped
public class ShortCircuit {

    private final boolean enabled;
    private final String node;
    private final OpenBlockFiles openFiles;

    ShortCircuit(GatewayConfig config, GranaryConfig shared, OpenBlockFiles openFiles) {
        this.enabled = config.read().shortCircuit();
        this.node = shared.node();
        this.openFiles = openFiles;
    }

    /** Whether this worker's block files are read here (it runs on this node). */
    public boolean reaches(Worker owner) {
        return enabled && node.equals(owner.node());
    }

    /** Whether the block's whole file is on this node. */
    public boolean holds(Worker owner, String dataset, String blockId) {
        return reaches(owner) && inLevels(owner.tiers(), dataset, blockId).isPresent();
    }

    /** The block's file, open to be sent from, with a reference the caller releases; empty when not on this node. */
    Optional<OpenBlockFile> open(Worker owner, String dataset, String blockId) {
        if (!reaches(owner)) {
            return Optional.empty();
        }
        for (Tier tier : owner.tiers()) {
            Optional<OpenBlockFile> file = openFiles.open(BlockApi.blockFile(tier.path(), dataset, blockId));
            if (file.isPresent()) {
                return file;
            }
        }
        return Optional.empty();
    }

    /** The block's whole file in the first of these level directories that has it. */
    static Optional<Path> inLevels(List<Tier> tiers, String dataset, String blockId) {
        for (Tier tier : tiers) {
            Path file = BlockApi.blockFile(tier.path(), dataset, blockId);
            if (Files.isRegularFile(file)) {
                return Optional.of(file);
            }
        }
        return Optional.empty();
    }
}
