package io.granary.ufs;

import java.io.InputStream;

/**
 * The storage a dataset mount points at (an S3 bucket prefix or a local directory), seen as a flat set of
 * objects keyed by path. Paths are relative to the mount root without a leading slash; a leading '/' and
 * repeated '/' are tolerated, '.' segments are dropped, and any '..' segment is refused with
 * {@link PathOutsideMountException}. Implementations are thread-safe.
 */
public interface UnderStore extends AutoCloseable {

    /** At most this many entries come back in one page, whatever the caller asks for (S3's own cap). */
    int MAX_PAGE = 1000;

    /** @throws ObjectNotFoundException if there is no object at {@code path} */
    ObjectInfo stat(String path);

    /**
     * One page of the objects whose keys start with {@code prefix}, in key order (UTF-8 byte order, as S3).
     *
     * @param prefix    key prefix; null or empty for everything
     * @param delimiter null or empty for a flat listing; "/" to roll deeper keys up into common prefixes
     * @param cursor    null for the first page, then the previous page's {@link ListPage#nextCursor()}
     * @param limit     objects plus common prefixes on the page, 1..{@link #MAX_PAGE} (larger is capped)
     */
    ListPage list(String prefix, String delimiter, String cursor, int limit);

    /**
     * Streams {@code length} bytes from {@code offset} (fewer at the end of the object; -1 reads to the end).
     * A missing object fails here, not on the first read of the stream. The caller closes the stream.
     */
    InputStream read(String path, long offset, long length);

    /**
     * As {@link #read(String, long, long)}, but only from the version of the object whose etag is {@code etag}:
     * a cache filling a block must never store another version's bytes under this version's block id.
     *
     * @throws ObjectChangedException when the object now has another etag
     */
    InputStream read(String path, String etag, long offset, long length);

    /**
     * Stores the stream as the object at {@code path}, replacing any previous one. Readers see the old or the
     * new object, never a partial one.
     *
     * @param size bytes the stream holds, or -1 if unknown
     * @return the stored object as {@link #stat} would return it
     */
    ObjectInfo write(String path, InputStream data, long size);

    /** Deletes the object; deleting a missing object is not an error (as in S3). */
    void delete(String path);

    /**
     * A cheap request (a listing of one entry) that surfaces wrong credentials, a missing bucket or directory,
     * or an unreachable endpoint before a dataset is created on top of this store.
     */
    default void probe() {
        list("", "/", null, 1);
    }

    /** Releases connections; never throws. */
    @Override
    void close();
}
