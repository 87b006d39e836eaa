package io.granary.block.store;

import io.granary.block.config.BlockConfig;
import io.granary.contracts.block.ByteSize;
import io.granary.contracts.worker.Tier;
import jakarta.enterprise.context.ApplicationScoped;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** What each configured level holds: its quota and the bytes of the block files under its paths. */
@ApplicationScoped
public class LevelUsage {

    private final BlockConfig config;

    LevelUsage(BlockConfig config) {
        this.config = config;
    }

    public List<Tier> tiers() {
        List<Tier> tiers = new ArrayList<>();
        for (BlockConfig.Level level : config.levels()) {
            long quota = ByteSize.parse(level.quota()) / level.paths().size();
            for (Path path : level.paths()) {
                tiers.add(new Tier(level.medium(), path.toAbsolutePath().toString(), quota, bytesUnder(path)));
            }
        }
        return tiers;
    }

    private static long bytesUnder(Path dir) {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.mapToLong(LevelUsage::sizeOf).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long sizeOf(Path path) {
        try {
            BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
            return attributes.isRegularFile() ? attributes.size() : 0;
        } catch (IOException e) {
            return 0; // removed while we walked: it holds nothing any more
        }
    }
}
