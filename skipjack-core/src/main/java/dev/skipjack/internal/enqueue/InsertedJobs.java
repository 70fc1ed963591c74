package dev.skipjack.internal.enqueue;

import dev.skipjack.EnqueueResult;

import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * The results of a batch of which every row was inserted (none was a duplicate): the ids alone,
 * each result made when asked for, rather than an object per job built in a pass nobody may read.
 */
public final class InsertedJobs extends AbstractList<EnqueueResult> implements RandomAccess {

    private final long[] ids;

    InsertedJobs(long[] ids) {
        this.ids = ids;
    }

    @Override
    public EnqueueResult get(int index) {
        return new EnqueueResult(ids[index], false);
    }

    @Override
    public int size() {
        return ids.length;
    }

    /** The results of consecutive chunks of one call, as one list in their order. */
    public static List<EnqueueResult> concat(List<List<EnqueueResult>> chunks) {
        if (chunks.size() == 1) {
            return chunks.get(0);
        }
        int size = 0;
        boolean allInserted = true;
        for (List<EnqueueResult> chunk : chunks) {
            size += chunk.size();
            allInserted &= chunk instanceof InsertedJobs;
        }
        if (!allInserted) {
            List<EnqueueResult> all = new java.util.ArrayList<>(size);
            chunks.forEach(all::addAll);
            return java.util.Collections.unmodifiableList(all);
        }
        long[] ids = new long[size];
        int at = 0;
        for (List<EnqueueResult> chunk : chunks) {
            long[] part = ((InsertedJobs) chunk).ids;
            System.arraycopy(part, 0, ids, at, part.length);
            at += part.length;
        }
        return new InsertedJobs(ids);
    }

    /** The ids of {@code results}, in order, as an unmodifiable list. */
    public static List<Long> ids(List<EnqueueResult> results) {
        if (results instanceof InsertedJobs inserted) {
            return new Ids(inserted.ids);
        }
        Long[] ids = new Long[results.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = results.get(i).id();
        }
        return List.of(ids);
    }

    private static final class Ids extends AbstractList<Long> implements RandomAccess {
        private final long[] ids;

        Ids(long[] ids) {
            this.ids = ids;
        }

        @Override
        public Long get(int index) {
            return ids[index];
        }

        @Override
        public int size() {
            return ids.length;
        }
    }
}
