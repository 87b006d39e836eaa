package io.granary.contracts.worker;

/** One cache directory of a worker: its medium, where it is, how much it may hold and holds. */
public record Tier(Medium medium, String path, long quotaBytes, long usedBytes) {
}
