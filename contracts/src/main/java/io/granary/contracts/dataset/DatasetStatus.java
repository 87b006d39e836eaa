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
 * @param syncedAt         when metadata was last listed from the under-store
 */
public record DatasetStatus(DatasetPhase phase, String reason, long fileCount, long ufsTotalBytes, long cachedBytes,
                            double cachedPercentage, Double hitRatio, Instant createdAt, Instant syncedAt) {

    public static DatasetStatus pending(Instant now) {
        return new DatasetStatus(DatasetPhase.PENDING, null, 0, 0, 0, 0, null, now, null);
    }

    public static double percentage(long cachedBytes, long totalBytes) {
        return totalBytes <= 0 ? 0 : Math.min(100.0, 100.0 * cachedBytes / totalBytes);
    }
}
