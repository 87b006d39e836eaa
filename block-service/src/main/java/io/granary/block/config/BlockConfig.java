package io.granary.block.config;

import io.granary.contracts.worker.Medium;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Configuration of one cache worker, under {@code granary.block}. */
@ConfigMapping(prefix = "granary.block")
public interface BlockConfig {

    /** Unique id of this worker; placement hashes it, so keep it stable across restarts. */
    String workerId();

    /** Base URL gateways and the preload-service use to reach this worker. */
    String advertisedAddress();

    /** Labels matched against a dataset's nodeSelector. */
    Map<String, String> labels();

    @WithDefault("5s")
    Duration heartbeatInterval();

    /** How often the blocks cached and evicted since the last time are sent, summed, as block events. */
    @WithDefault("1s")
    Duration eventsInterval();

    /** Share of cache hits whose block is checksummed before it is sent (0 to 1). */
    @WithDefault("0.01")
    double verifySample();

    /**
     * Checksum every block when the worker starts. Off: block files are sealed when installed, so a file a crash
     * tore or anything else wrote to has lost its seal and is checked on start anyway; the rest are not read
     * (a restarted worker is ready in seconds, not after reading its whole cache).
     */
    @WithDefault("false")
    boolean verifyOnStart();

    /**
     * A file every read the store counts is appended to, {@code <dataset> <blockId>} a line: a trace of this worker's
     * reads for the simulator ({@code bench/simulate.sh --trace FILE}). Unset (the default): nothing is recorded.
     */
    Optional<Path> readTrace();

    /** Blocks filled at once for the preloads' batches, for the whole worker (a reader's fills are not limited). */
    @WithDefault("4")
    int fillParallelism();

    /**
     * The order blocks leave a full level in: {@code clock} (second chance: LRU's close approximation, whose hit path
     * takes no lock) or {@code lru}.
     */
    @WithDefault("clock")
    Eviction eviction();

    /**
     * Whether a block may replace another when the cache is full: {@code tinylfu} (only one read more often lately,
     * by more than one read, than the block it would push out, or one whose dataset was idle for {@code idle-after}:
     * shuffled epochs of a dataset larger than the cache keep cache/dataset of their reads), {@code keep} (what
     * filled the cache stays) or {@code always} (every block, as plain LRU). Judged by the simulator: bench/README.md.
     */
    @WithDefault("tinylfu")
    AdmissionMode admission();

    /** A dataset nobody read for this long gives its blocks up to any other's, under {@code tinylfu}. */
    @WithDefault("30m")
    Duration idleAfter();

    /**
     * How long this worker keeps its part of an epoch plan nobody read, fetched or asked about: the preload-service
     * ends a plan whose reader stopped sooner; this frees what a plan left when that service went away.
     */
    @WithDefault("10m")
    Duration planExpireAfter();

    /**
     * How long a block an epoch plan read stays before it may leave for another: the read that spent it may not have
     * opened its file yet (a reader opens a block it had filled after the fill).
     */
    @WithDefault("1s")
    Duration planSpentGrace();

    enum Eviction { LRU, CLOCK }

    enum AdmissionMode { ALWAYS, KEEP, TINYLFU }

    /** How long a dataset's definition is trusted before it is asked for again; events drop it sooner. */
    @WithDefault("60s")
    Duration datasetTtl();

    /** How long a drain may take: past it, the blocks not handed over yet are dropped. */
    @WithDefault("10m")
    Duration drainDeadline();

    /**
     * Drain before stopping on SIGTERM (a scale-in). Off by default: a restart on the same node keeps the blocks on
     * its disk and its share of placement, so moving them away and back would only cost.
     */
    @WithDefault("false")
    boolean drainOnStop();

    /**
     * Bytes per second this worker hands over to new owners when it drains or when a joining worker takes its share
     * (rebalance): moves share the links and disks with readers. 0 stops the rebalance on join (drains still run,
     * unthrottled).
     */
    @WithDefault("64MiB")
    String moveRate();

    /** Cache levels, fastest first, as Fluid's tieredstore: MEM is a tmpfs directory, SSD/HDD disk directories. */
    List<Level> levels();

    interface Level {
        Medium medium();

        List<Path> paths();

        /** Capacity of the level, e.g. {@code 2GiB}. */
        String quota();

        @WithDefault("0.95")
        double high();

        @WithDefault("0.7")
        double low();
    }
}
