package io.granary.simulator.policy;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * Caffeine's own W-TinyLFU (an LRU window, a segmented main space, TinyLFU admission, the window adapted by hill
 * climbing) as a cache of {@code capacity} blocks: the reference a policy of ours is compared with. Its maintenance
 * runs on the reading thread, so every read sees the evictions the ones before it caused.
 */
public final class CaffeineModel implements CachePolicy {

    private final Cache<Integer, Boolean> cache;

    public CaffeineModel(int capacity) {
        this.cache = Caffeine.newBuilder().maximumSize(capacity).executor(Runnable::run).build();
    }

    @Override
    public boolean read(int key, int position) {
        if (cache.getIfPresent(key) != null) {
            return true;
        }
        cache.put(key, Boolean.TRUE);
        return false;
    }
}
