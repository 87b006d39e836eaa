package io.granary.gateway.read;

import io.granary.contracts.block.BlockApi;
import io.granary.contracts.worker.Medium;
import io.granary.contracts.worker.Tier;
import io.granary.contracts.worker.Worker;
import io.granary.gateway.config.GatewayConfig;
import io.granary.kit.config.GranaryConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
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

    @Inject
    ShortCircuit(GatewayConfig config, GranaryConfig shared, OpenBlockFiles openFiles) {
        this(config.read().shortCircuit(), shared.node(), openFiles);
    }

    ShortCircuit(boolean enabled, String node, OpenBlockFiles openFiles) {
        this.enabled = enabled;
        this.node = node;
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
        List<Tier> tiers = owner.tiers();
        Path[] files = new Path[tiers.size()];
        for (int i = 0; i < files.length; i++) {
            files[i] = BlockApi.blockFile(tiers.get(i).path(), dataset, blockId);
        }
        // The level a file is kept open from is asked first: asking a level that has no file costs a failed stat.
        int kept = -1;
        for (int i = 0; i < files.length && kept < 0; i++) {
            kept = openFiles.keeps(files[i]) ? i : -1;
        }
        if (kept >= 0) {
            Optional<OpenBlockFile> file = openFiles.open(files[kept], tiers.get(kept).medium() == Medium.MEM);
            if (file.isPresent()) {
                return file;
            }
        }
        for (int i = 0; i < files.length; i++) {
            Optional<OpenBlockFile> file = i == kept ? Optional.empty()
                    : openFiles.open(files[i], tiers.get(i).medium() == Medium.MEM);
            if (file.isPresent()) {
                return file;
            }
        }
        return Optional.empty();
    }

    /** The block's whole file, as its worker installed it, in the first of these level directories that has it. */
    static Optional<Path> inLevels(List<Tier> tiers, String dataset, String blockId) {
        for (Tier tier : tiers) {
            Path file = BlockApi.blockFile(tier.path(), dataset, blockId);
            try {
                BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
                if (attributes.isRegularFile() && BlockApi.sealed(attributes)) {
                    return Optional.of(file);
                }
            } catch (IOException e) {
                // not in this level
            }
        }
        return Optional.empty();
    }
}
