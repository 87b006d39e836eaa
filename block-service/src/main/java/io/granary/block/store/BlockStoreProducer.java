package io.granary.block.store;

import io.granary.block.config.BlockConfig;
import io.granary.contracts.block.ByteSize;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.util.List;

/** Opens the configured levels when the worker starts, so it rescans its cache before it serves anything. */
@ApplicationScoped
public class BlockStoreProducer {

    @Produces
    @Singleton
    @Startup
    BlockStore store(BlockConfig config, BlockListener listener) {
        List<LevelSpec> levels = config.levels().stream()
                .map(level -> new LevelSpec(level.medium(), level.paths(), ByteSize.parse(level.quota()),
                        level.high(), level.low()))
                .toList();
        return BlockStore.open(levels, LruPolicy::new, listener, config.verifyOnStart());
    }
}
