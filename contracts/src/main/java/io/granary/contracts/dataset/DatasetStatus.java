package io.granary.contracts.dataset;

import java.time.Instant;

/**
 * What is known of a dataset now.
 *
 * @param reason           why it is Failed (never a secret); null otherwise
 * @param ufsTotalBytes    bytes of all its files in the under-store
 * @param cachedBytes      bytes of its blocks held by workers, all replicas counted
 * @param cachedPercentage cachedBytes / ufsTotalBytes, 0-100
 * @param hitRatio         cache hits / block reads, 0-1; null before any read
 * @param bytesRead        bytes readers got from the cache workers since they started: a counter, whose rate is the
 *                         dataset's read throughput
 * @param syncedAt         when metadata was last listed from the under-store
 */
public record DatasetStatus(DatasetPhase phase, String reason, long fileCount, long ufsTotalBytes, long cachedBytes,
                            double cachedPercentage, Double hitRatio, long bytesRead, Instant createdAt,
                            Instant syncedAt) {

    public static DatasetStatus pending(Instant now) {
        return new DatasetStatus(DatasetPhase.PENDING, null, 0, 0, 0, 0, null, 0, now, null);
    }

    /** Listed: what the under-store holds, as of {@code syncedAt}. */
    public DatasetStatus bound(long files, long bytes, Instant at) {
        return new DatasetStatus(DatasetPhase.BOUND, null, files, bytes, cachedBytes, cachedPercentage, hitRatio,
                bytesRead, createdAt, at);
    }

    /** Failed, keeping what was last listed. */
    public DatasetStatus failed(String why) {
        return new DatasetStatus(DatasetPhase.FAILED, why, fileCount, ufsTotalBytes, cachedBytes, cachedPercentage,
                hitRatio, bytesRead, createdAt, syncedAt);
    }

    /** The same status with live cache figures; the percentage follows from the bytes. */
    public DatasetStatus withCache(long cached, Double hits, long read) {
        double percentage = ufsTotalBytes <= 0 ? 0 : Math.min(100.0, 100.0 * cached / ufsTotalBytes);
        return new DatasetStatus(phase, reason, fileCount, ufsTotalBytes, cached, percentage, hits, read,
                createdAt, syncedAt);
    }
}
