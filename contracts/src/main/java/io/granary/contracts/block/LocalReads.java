package io.granary.contracts.block;

import java.util.Map;

/**
 * Reads a gateway or a FUSE client served from a worker's block files on its own node (short-circuit), reported to
 * that worker now and then: those reads never reach it, yet its eviction policy must see them as accesses (or it evicts the
 * hottest blocks first) and its hit ratio must count them.
 *
 * @param hits   block id → how many reads found the block's file
 * @param misses reads whose block the worker had to fill first
 * @param bytes  bytes those reads sent
 */
public record LocalReads(Map<String, Integer> hits, int misses, long bytes) {

    public LocalReads {
        hits = hits == null ? Map.of() : Map.copyOf(hits);
    }
}
