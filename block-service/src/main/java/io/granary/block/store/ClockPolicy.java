package io.granary.block.store;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Second chance (CLOCK), LRU's close approximation that a hit does not lock: a read only sets its block's reference
 * bit. Blocks wait in a ring in the order they came; the hand passes over a block read since it last came by (its
 * bit cleared, the block sent to the back) and stops at the first one not read since. Admitting, removing and
 * finding the victim take the ring's lock; the hit path (every warm read) takes none.
 */
public final class ClockPolicy implements EvictionPolicy {

    /** One admission of a block: a block admitted again is a new entry, and the old one is passed over. */
    private static final class Entry {
        final BlockKey key;
        volatile boolean referenced;

        Entry(BlockKey key) {
            this.key = key;
        }
    }

    private final ConcurrentHashMap<BlockKey, Entry> entries = new ConcurrentHashMap<>();
    /** Entries in the order the hand meets them; ones no longer in {@link #entries} are dropped as it meets them. */
    private final ArrayDeque<Entry> ring = new ArrayDeque<>();

    @Override
    public void admitted(BlockKey key) {
        Entry entry = new Entry(key);
        synchronized (ring) {
            entries.put(key, entry);
            ring.addLast(entry);
            if (ring.size() > 2 * entries.size() + 1024) {
                // Removed blocks the hand has not reached yet (a freed dataset, a level that never fills): dropped
                // now, so the ring stays the size of what the level holds.
                ring.removeIf(stale -> entries.get(stale.key) != stale);
            }
        }
    }

    @Override
    public void accessed(BlockKey key) {
        Entry entry = entries.get(key);
        if (entry != null) {
            entry.referenced = true;
        }
    }

    @Override
    public void removed(BlockKey key) {
        entries.remove(key);  // its place in the ring is dropped when the hand reaches it
    }

    @Override
    public BlockKey victim() {
        synchronized (ring) {
            // Each entry is passed over at most once per call: after a full turn every bit is clear.
            for (int passed = 0, turn = ring.size(); !ring.isEmpty(); ) {
                Entry head = ring.peekFirst();
                if (entries.get(head.key) != head) {
                    ring.pollFirst();  // removed, or admitted again further back
                    continue;
                }
                if (head.referenced && passed < turn) {
                    head.referenced = false;
                    ring.addLast(ring.pollFirst());
                    passed++;
                    continue;
                }
                return head.key;  // left at the head: asked again before it is removed, it is still the victim
            }
            return null;
        }
    }
}
