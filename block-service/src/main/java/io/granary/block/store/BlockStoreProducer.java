package io.granary.block.store;

import io.granary.block.client.DatasetDirectory;
import io.granary.block.config.BlockConfig;
import io.granary.block.plan.WorkerPlans;
import io.granary.contracts.block.ByteSize;
import io.quarkus.runtime.Startup;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.util.List;

/** Opens the configured levels when the worker starts, so it rescans its cache before it serves anything. */
@ApplicationScoped
public class BlockStoreProducer {

    private static final Logger LOG = Logger.getLogger(BlockStoreProducer.class);
    private ReadTrace trace;

    /** The smallest block a sketch of reads is sized for: a file of 128 KiB is a block of its own. */
    private static final long SMALL_BLOCK = 128 << 10;

    @Produces
    @Singleton
    @Startup
    BlockStore store(BlockConfig config, BlockListener listener, DatasetDirectory datasets, WorkerPlans plans) {
        List<LevelSpec> levels = config.levels().stream()
                .map(level -> new LevelSpec(level.medium(), level.paths(), ByteSize.parse(level.quota()),
                        level.high(), level.low()))
                .toList();
        EvictionPolicy.Factory policies = config.eviction() == BlockConfig.Eviction.LRU ? LruPolicy::new
                : ClockPolicy::new;
        LOG.infof("block store: %s; eviction %s, admission %s", levels.stream()
                .map(level -> level.medium() + " " + ByteSize.format(level.quota())).toList(),
                config.eviction().name().toLowerCase(), config.admission().name().toLowerCase());
        BlockListener told = listener;
        if (config.readTrace().isPresent()) {
            trace = new ReadTrace(config.readTrace().get(), listener);
            told = trace;
            LOG.infof("recording every read to %s", config.readTrace().get());
        }
        return BlockStore.open(levels, policies, admission(config, levels), datasets::share, plans, told,
                config.verifyOnStart());
    }

    @PreDestroy
    void close() throws IOException {
        if (trace != null) {
            trace.close();
        }
    }

    static Admission admission(BlockConfig config, List<LevelSpec> levels) {
        return switch (config.admission()) {
            case ALWAYS -> Admission.ALWAYS;
            case KEEP -> Admission.KEEP;
            case TINYLFU -> new TinyLfuAdmission(levels.stream().mapToLong(LevelSpec::quota).sum() / SMALL_BLOCK,
                    TinyLfuAdmission.MARGIN, config.idleAfter().toNanos(), System::nanoTime);
        };
    }
}
