package org.jrdma.soft;

import java.util.Arrays;

/**
 * A map from 32-bit keys (lkeys, rkeys, QPNs) to objects, read without locks and without
 * allocation from any thread, written under a lock (copy on write: writes are control-path
 * operations such as {@code ibv_reg_mr}). Key 0 is never stored.
 *
 * @param <T> the value type
 */
public final class KeyTable<T> {
    private static final class Snapshot {
        final int[] keys;
        final Object[] values;
        final int size;

        Snapshot(int capacity, int size) {
            this.keys = new int[capacity];
            this.values = new Object[capacity];
            this.size = size;
        }
    }

    private volatile Snapshot snapshot = new Snapshot(16, 0);

    private static int slot(int key, int mask) {
        int h = key * 0x9E3779B9;
        return (h ^ (h >>> 16)) & mask;
    }

    /** The value for {@code key}, or null. Lock-free, allocation-free. */
    @SuppressWarnings("unchecked")
    public T get(int key) {
        if (key == 0) {
            return null;
        }
        Snapshot s = snapshot;
        int mask = s.keys.length - 1;
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            int k = s.keys[i];
            if (k == key) {
                return (T) s.values[i];
            }
            if (k == 0) {
                return null;
            }
        }
    }

    /** True when {@code key} is present. */
    public boolean containsKey(int key) {
        return get(key) != null;
    }

    /** Adds {@code key} → {@code value}; false (and no change) when the key is 0 or present. */
    public synchronized boolean putIfAbsent(int key, T value) {
        if (key == 0 || get(key) != null) {
            return false;
        }
        Snapshot s = snapshot;
        int capacity = s.keys.length;
        if ((s.size + 1) * 2 > capacity) {
            capacity *= 2;
        }
        snapshot = rebuild(s, capacity, key, value, 0);
        return true;
    }

    /** Removes {@code key}; returns the value it had, or null. */
    @SuppressWarnings("unchecked")
    public synchronized T remove(int key) {
        T old = get(key);
        if (old != null) {
            snapshot = rebuild(snapshot, snapshot.keys.length, 0, null, key);
        }
        return old;
    }

    /** The number of entries. */
    public int size() {
        return snapshot.size;
    }

    /** A copy of the values (control path). */
    @SuppressWarnings("unchecked")
    public synchronized java.util.List<T> values() {
        Snapshot s = snapshot;
        java.util.List<T> out = new java.util.ArrayList<>(s.size);
        for (int i = 0; i < s.keys.length; i++) {
            if (s.keys[i] != 0) {
                out.add((T) s.values[i]);
            }
        }
        return out;
    }

    private static Snapshot rebuild(Snapshot old, int capacity, int addKey, Object addValue, int removeKey) {
        int size = old.size + (addKey != 0 ? 1 : 0) - (removeKey != 0 ? 1 : 0);
        Snapshot s = new Snapshot(capacity, size);
        int mask = capacity - 1;
        for (int i = 0; i < old.keys.length; i++) {
            int k = old.keys[i];
            if (k != 0 && k != removeKey) {
                insert(s, mask, k, old.values[i]);
            }
        }
        if (addKey != 0) {
            insert(s, mask, addKey, addValue);
        }
        return s;
    }

    private static void insert(Snapshot s, int mask, int key, Object value) {
        int i = slot(key, mask);
        while (s.keys[i] != 0) {
            i = (i + 1) & mask;
        }
        s.keys[i] = key;
        s.values[i] = value;
    }

    @Override
    public String toString() {
        return "KeyTable" + Arrays.toString(snapshot.keys);
    }
}
