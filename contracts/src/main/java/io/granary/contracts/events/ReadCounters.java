package io.granary.contracts.events;

/**
 * Block reads of one dataset on one worker since it started: served from cache, or fetched from the under-store,
 * and the bytes readers got (whether the worker sent them or a reader on its node read its files).
 */
public record ReadCounters(long hits, long misses, long bytes) {
}
