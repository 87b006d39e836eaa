package io.granary.contracts.events;

import java.time.Instant;

/**
 * A change every service may care about: gateways drop their near cache, workers drop a deleted dataset's blocks.
 *
 * @param path for FILE_CHANGED: the file's path; null otherwise
 * @param etag for FILE_CHANGED: the file's new etag; null when it was removed
 */
public record DatasetEvent(Type type, String dataset, String path, String etag, Instant at) {

    public enum Type {
        CREATED, UPDATED, DELETED, SYNCED, FILE_CHANGED
    }
}
