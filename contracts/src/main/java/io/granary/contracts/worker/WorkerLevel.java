package io.granary.contracts.worker;

/**
 * One directory of a worker's cache level, as the worker reports it: the level's medium, where the directory is,
 * how much it may hold and holds (a level with two directories is two of these).
 */
public record WorkerLevel(Medium medium, String path, long quotaBytes, long usedBytes) {
}
