package io.granary.metadata.service;

import java.time.Instant;

/**
 * An accepted request to free a dataset's cache.
 *
 * @param path the file or directory whose blocks the workers drop; empty for the whole dataset
 */
public record CacheFreeing(String dataset, String path, Instant requestedAt) {
}
