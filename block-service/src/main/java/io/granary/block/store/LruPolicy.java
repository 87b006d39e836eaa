package io.granary.block.store;

import java.util.Iterator;
import java.util.LinkedHashMap;

/** Least recently used first: a linked map in access order. */
public final class LruPolicy implements EvictionPolicy {

    private final LinkedHashMap<BlockKey, Boolean> order = new LinkedHashMap<>(1024, 0.75f, true);

    @Override
    public synchronized void admitted(BlockKey key) {
        order.put(key, Boolean.TRUE);
    }

    @Override
    public synchronized void accessed(BlockKey key) {
        order.get(key);
    }

    @Override
    public synchronized void removed(BlockKey key) {
        order.remove(key);
    }

    @Override
    public synchronized BlockKey victim() {
        Iterator<BlockKey> eldest = order.keySet().iterator();
        return eldest.hasNext() ? eldest.next() : null;
    }
}
