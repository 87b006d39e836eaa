package io.granary.simulator.policy;

import io.granary.simulator.trace.Trace;

import java.util.Arrays;

/**
 * Belady's optimum, with the whole future known and the choice of not storing a block: on a miss of a full cache,
 * the block read again last of all (or never) goes, the newcomer itself if it is that block. No policy without the
 * future can beat it: the bound a policy is judged against. Held blocks sit in a heap keyed by when each is read
 * next, updated in place on every read, so a replay makes no garbage.
 */
public final class Clairvoyant implements CachePolicy {

    private static final int NEVER = Integer.MAX_VALUE;

    private final int capacity;
    /** For each position of the trace, where its block is read next ({@link #NEVER}: never again). */
    private final int[] nextRead;
    /** A max-heap of held blocks by their next read: {@code heap[0]} is read again last. */
    private final int[] heap;
    /** Each block's place in {@code heap}, -1 when not held. */
    private final int[] place;
    private final int[] next;
    private int size;

    public Clairvoyant(Trace trace, int capacity) {
        this.capacity = capacity;
        int[] reads = trace.reads();
        this.nextRead = new int[reads.length];
        int[] following = new int[trace.blocks()];
        Arrays.fill(following, NEVER);
        for (int i = reads.length - 1; i >= 0; i--) {
            nextRead[i] = following[reads[i]];
            following[reads[i]] = i;
        }
        this.heap = new int[Math.max(1, capacity)];
        this.place = new int[trace.blocks()];
        Arrays.fill(place, -1);
        this.next = new int[trace.blocks()];
    }

    @Override
    public boolean read(int key, int position) {
        int when = nextRead[position];
        if (place[key] >= 0) {
            next[key] = when;
            down(up(place[key]));
            return true;
        }
        if (capacity == 0) {
            return false;
        }
        if (size == capacity) {
            int last = heap[0];
            if (next[last] <= when) {
                return false;  // the newcomer is read again last: not stored
            }
            place[last] = -1;
            size--;
            if (size > 0) {
                heap[0] = heap[size];
                place[heap[0]] = 0;
                down(0);
            }
        }
        next[key] = when;
        heap[size] = key;
        place[key] = size++;
        up(size - 1);
        return false;
    }

    private int up(int i) {
        while (i > 0) {
            int parent = (i - 1) / 2;
            if (next[heap[parent]] >= next[heap[i]]) {
                break;
            }
            swap(i, parent);
            i = parent;
        }
        return i;
    }

    private void down(int i) {
        while (true) {
            int left = 2 * i + 1;
            int largest = i;
            if (left < size && next[heap[left]] > next[heap[largest]]) {
                largest = left;
            }
            if (left + 1 < size && next[heap[left + 1]] > next[heap[largest]]) {
                largest = left + 1;
            }
            if (largest == i) {
                return;
            }
            swap(i, largest);
            i = largest;
        }
    }

    private void swap(int a, int b) {
        int keyA = heap[a];
        heap[a] = heap[b];
        heap[b] = keyA;
        place[heap[a]] = a;
        place[heap[b]] = b;
    }
}
