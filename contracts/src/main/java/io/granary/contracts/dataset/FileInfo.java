package io.granary.contracts.dataset;

import java.time.Instant;

/**
 * One file of a dataset, from the metadata cache.
 *
 * @param path  normalised path inside the dataset, no leading '/'
 * @param etag  the under-store's version tag, unquoted; block ids derive from it
 */
public record FileInfo(String path, long size, Instant mtime, String etag) {
}
