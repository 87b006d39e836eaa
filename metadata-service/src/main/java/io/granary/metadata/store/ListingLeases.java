package io.granary.metadata.store;

import org.infinispan.Cache;

import java.time.Duration;
import java.time.Instant;

/**
 * Which datasets some replica is listing now: a lease per listing ({@code listing:<dataset>} → last renewal, epoch
 * millis), renewed while the listing runs. A Pending dataset whose lease has lapsed lost its replica mid-listing,
 * and the coordinator lists it again. Kept in the stats cache: small, replicated, and ':' is in no dataset name.
 */
public final class ListingLeases {

    private static final String PREFIX = "listing:";

    private final Cache<String, Long> leases;

    public ListingLeases(Cache<String, Long> leases) {
        this.leases = leases;
    }

    public void renew(String dataset, Instant now) {
        leases.put(PREFIX + dataset, now.toEpochMilli());
    }

    public void release(String dataset) {
        leases.remove(PREFIX + dataset);
    }

    /** True when nobody holds the lease, or its holder stopped renewing it more than {@code ttl} ago. */
    public boolean lapsed(String dataset, Instant now, Duration ttl) {
        Long renewed = leases.get(PREFIX + dataset);
        return renewed == null || Instant.ofEpochMilli(renewed).plus(ttl).isBefore(now);
    }
}
