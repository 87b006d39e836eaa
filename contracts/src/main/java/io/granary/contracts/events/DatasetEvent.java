package io.granary.contracts.events;

import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.Validated;

import java.time.Instant;

/**
 * A change every service may care about: gateways drop their near cache, workers drop a deleted dataset's blocks
 * (or those under a path when an operator frees that cache), gateways and preload replicas recompute placement when
 * a worker joins or leaves.
 *
 * @param dataset  the dataset; null for WORKER_JOINED and WORKER_LEFT, which concern every dataset
 * @param path     for FILE_CHANGED: the file's path; for CACHE_FREED: the file or directory whose blocks every worker
 *                 drops, empty for the whole dataset; null otherwise
 * @param etag     for FILE_CHANGED: the file's new etag; null when it was removed
 * @param workerId for WORKER_JOINED and WORKER_LEFT: the worker; null otherwise
 */
public record DatasetEvent(Type type, String dataset, String path, String etag, String workerId, Instant at)
        implements Validated<DatasetEvent> {

    public enum Type {
        CREATED, UPDATED, DELETED, SYNCED, FILE_CHANGED, CACHE_FREED, WORKER_JOINED, WORKER_LEFT
    }

    public static DatasetEvent of(Type type, String dataset, Instant at) {
        return new DatasetEvent(type, dataset, null, null, null, at);
    }

    public static DatasetEvent fileChanged(String dataset, String path, String etag, Instant at) {
        return new DatasetEvent(Type.FILE_CHANGED, dataset, path, etag, null, at);
    }

    public static DatasetEvent cacheFreed(String dataset, String path, Instant at) {
        return new DatasetEvent(Type.CACHE_FREED, dataset, path, null, null, at);
    }

    public static DatasetEvent membership(Type type, String workerId, Instant at) {
        return new DatasetEvent(type, null, null, null, workerId, at);
    }

    @Override
    public DatasetEvent validate() {
        Check.required("type", type);
        return this;
    }

    /** The Kafka key: the dataset, so one dataset's events stay in order; the worker for membership events. */
    public String key() {
        return dataset != null ? dataset : workerId;
    }
}
