package io.granary.contracts.events;

/** Block reads of one dataset on one worker since it started: served from cache, or fetched from the under-store. */
public record ReadCounters(long hits, long misses) {
}
