package io.granary.ufs;

import java.io.InputStream;
import java.util.List;
import java.util.Map;

/**
 * The storage a dataset mount points at (an S3 bucket prefix or a local directory), seen as a flat set of
 * objects keyed by path. Paths are relative to the mount root without a leading slash; a leading '/' and
 * repeated '/' are tolerated, '.' segments are dropped, and any '..' segment is refused with
 * {@link PathOutsideMountException}. Implementations are thread-safe.
 */
public interface UnderStore extends AutoCloseable {

    /** At most this many entries come back in one page, whatever the caller asks for (S3's own cap). */
    int MAX_PAGE = 1000;

    /** Multipart uploads: every part but the last holds at least this many bytes (S3's EntityTooSmall). */
    long MIN_PART_SIZE = 5L << 20;

    /** Multipart uploads: no part holds more than this (S3's EntityTooLarge). */
    long MAX_PART_SIZE = 5L << 30;

    /** Multipart uploads: part numbers run from 1 to this. */
    int MAX_PART_NUMBER = 10_000;

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
     * @param size     bytes the stream holds, or -1 if unknown
     * @param metadata its standard headers and user metadata ({@link ObjectMetadata}), kept with it
     * @return the stored object as {@link #stat} would return it
     */
    ObjectInfo write(String path, InputStream data, long size, Map<String, String> metadata);

    /** {@link #write(String, InputStream, long, Map)} without metadata. */
    default ObjectInfo write(String path, InputStream data, long size) {
        return write(path, data, size, Map.of());
    }

    /** Deletes the object; deleting a missing object is not an error (as in S3). */
    void delete(String path);

    /**
     * Replaces the metadata kept with the object, its bytes untouched, if it is still version {@code etag}.
     *
     * @return the object as it is now: an S3 store copies the object onto itself, which gives an object uploaded
     *         in parts a new ETag
     * @throws ObjectNotFoundException if it is gone
     * @throws ObjectChangedException  if it is no longer that version
     */
    ObjectInfo replaceMetadata(String path, String etag, Map<String, String> metadata);

    /*
     * Multipart uploads, as S3 has them. All their state lives in the store itself (S3's own uploads, or a
     * hidden staging directory locally), so each call may come from another process than the last. Parts are
     * invisible to stat, read and list until the upload completes; then the object replaces any previous one
     * at once, as with write.
     */

    /**
     * Starts a multipart upload of the object at {@code path}.
     *
     * @param metadata the object's standard headers and user metadata, kept with it once complete
     * @return the upload id, as S3 would return it: opaque and URL-safe
     */
    String startUpload(String path, Map<String, String> metadata);

    /** {@link #startUpload(String, Map)} without metadata. */
    default String startUpload(String path) {
        return startUpload(path, Map.of());
    }

    /**
     * Stores part {@code partNumber} of the upload. A part may be re-sent: the last one wins.
     *
     * @param partNumber 1..{@link #MAX_PART_NUMBER}
     * @param size       bytes the stream holds, 0..{@link #MAX_PART_SIZE} (known: S3 needs it); a stream that
     *                   holds another number of bytes fails the call and stores nothing
     * @return the part's etag (hex MD5 of its bytes on S3 without KMS encryption, and locally), never quoted
     * @throws UploadNotFoundException if the upload is unknown, aborted or completed, or is for another path
     */
    String uploadPart(String path, String uploadId, int partNumber, InputStream data, long size);

    /**
     * Joins the named parts, in the given order, into the object and ends the upload. Parts uploaded but not
     * named are dropped. A failed completion leaves the upload as it was, so it can be completed again with a
     * corrected list or aborted.
     *
     * @param parts in strictly ascending part number order, each with the etag {@link #uploadPart} returned
     * @return the object as {@link #stat} returns it
     * @throws UploadNotFoundException if the upload is unknown, aborted or completed, or is for another path (an
     *                                 S3 server may instead answer a repeated completion with the object again)
     * @throws InvalidPartException    if a part is missing or has another etag, if the parts are not in
     *                                 ascending order, or if a part other than the last holds fewer than
     *                                 {@link #MIN_PART_SIZE} bytes; {@link InvalidPartException#reason()} says which
     */
    ObjectInfo completeUpload(String path, String uploadId, List<UploadedPart> parts);

    /** Drops the upload and its parts; an unknown (or already ended) upload is not an error. */
    void abortUpload(String path, String uploadId);

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
