package io.granary.ufs;

import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;

import java.io.ByteArrayInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The multipart uploads of an {@link HdfsUnderStore}, staged in HDFS as {@link LocalUploads} stages them on a
 * disk: {@code <uploads>/<upload id>/} holds a file {@code key}, a file {@code metadata} and one file per part,
 * so any gateway replica can take any call. Completing or aborting first renames the upload's directory to a
 * hidden name (atomic on the namenode), so of two racing calls one wins and the parts cannot change while they
 * are joined; the parts are joined into a hidden file beside the object, their MD5s checked on the way, and that
 * file is renamed over the object.
 */
final class HdfsUploads {

    private static final String KEY_FILE = "key";
    private static final String METADATA_FILE = "metadata";
    private static final Pattern UPLOAD_ID =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private final HdfsUnderStore store;
    private final DistributedFileSystem fs;
    private final Path uploads;

    HdfsUploads(HdfsUnderStore store, DistributedFileSystem fs, Path uploads) {
        this.store = store;
        this.fs = fs;
        this.uploads = uploads;
    }

    String start(String key, Map<String, String> metadata) {
        String uploadId = UUID.randomUUID().toString();
        Path dir = new Path(uploads, uploadId);
        try {
            if (!fs.mkdirs(dir)) {
                throw new UnderStoreException("could not make " + dir + " for an upload of '" + key + "'");
            }
            writeSmall(new Path(dir, METADATA_FILE), ObjectMetadata.encode(metadata));
            writeSmall(new Path(dir, KEY_FILE), key);  // last: the upload exists now
            return uploadId;
        } catch (IOException e) {
            throw store.failure("start of an upload", key, e);
        }
    }

    String putPart(String key, String uploadId, int partNumber, InputStream data, long size) {
        Uploads.checkPart(partNumber, size);
        Path dir = upload(key, uploadId);
        Path temp = new Path(dir, Keys.TEMP_PREFIX + UUID.randomUUID());
        try {
            MessageDigest md5 = Md5.digest();
            // Not recursive: a part of an upload aborted meanwhile must not make its directory again.
            try (FSDataOutputStream out = fs.createFile(temp).build();
                 DigestOutputStream digesting = new DigestOutputStream(out, md5)) {
                long written = HdfsUnderStore.copy(new LimitedInputStream(data, size + 1), digesting);
                if (written != size) {
                    throw new UnderStoreException("part " + partNumber + " of the upload of '" + key + "' in "
                            + store.uri() + " got " + (written > size ? "more than " + size : written)
                            + " bytes, expected " + size);
                }
            }
            // A re-sent part replaces the old one whole: last one wins.
            fs.rename(temp, new Path(dir, Integer.toString(partNumber)), Options.Rename.OVERWRITE);
            temp = null;
            return Md5.hex(md5);
        } catch (FileNotFoundException e) {
            throw uploadNotFound(key, uploadId, e);  // aborted or completed meanwhile
        } catch (IOException e) {
            throw store.failure("upload of part " + partNumber, key, e);
        } finally {
            store.deleteQuietly(temp);
        }
    }

    void complete(String key, String uploadId, List<UploadedPart> parts, Path target) {
        Uploads.checkOrder(parts, key);
        Path dir = upload(key, uploadId);
        Path claimed = claim(dir, key, uploadId);
        Path temp = new Path(target.getParent(), Keys.TEMP_PREFIX + UUID.randomUUID());
        try {
            List<Path> files = new ArrayList<>(parts.size());
            for (int i = 0; i < parts.size(); i++) {
                UploadedPart part = parts.get(i);
                Path file = new Path(claimed, Integer.toString(part.partNumber()));
                FileStatus status;
                try {
                    status = fs.getFileStatus(file);
                } catch (FileNotFoundException e) {
                    throw Uploads.missing(part, key);
                }
                Uploads.checkSize(part, status.getLen(), i == parts.size() - 1, key);
                files.add(file);
            }
            try (FSDataOutputStream out = fs.create(temp, false)) {
                Uploads.join(parts, i -> fs.open(files.get(i)), out, key);
            }
            store.recordMetadata(temp, ObjectMetadata.decode(readSmall(new Path(claimed, METADATA_FILE))));
            fs.rename(temp, target, Options.Rename.OVERWRITE);
            temp = null;
        } catch (IOException | RuntimeException e) {
            store.deleteQuietly(temp);
            // As on S3, a failed completion leaves the upload in place, to be completed again or aborted.
            try {
                fs.rename(claimed, dir, Options.Rename.NONE);
            } catch (IOException restore) {
                e.addSuppressed(restore);
            }
            throw e instanceof IOException io ? store.failure("completion of the upload", key, io)
                    : (RuntimeException) e;
        }
        store.deleteQuietly(claimed);
    }

    void abort(String key, String uploadId) {
        try {
            store.deleteQuietly(claim(upload(key, uploadId), key, uploadId));
        } catch (UploadNotFoundException e) {
            // never started, already aborted or completed: nothing to drop
        }
    }

    /** The directory of an upload in progress of {@code key}; anything else is not found. */
    private Path upload(String key, String uploadId) {
        Uploads.checkUploadId(uploadId);
        if (!UPLOAD_ID.matcher(uploadId).matches()) {
            throw uploadNotFound(key, uploadId, null);
        }
        Path dir = new Path(uploads, uploadId);
        try {
            if (!readSmall(new Path(dir, KEY_FILE)).equals(key)) {
                throw uploadNotFound(key, uploadId, null);  // S3 too knows an upload id only with its key
            }
        } catch (FileNotFoundException e) {
            throw uploadNotFound(key, uploadId, e);
        } catch (IOException e) {
            throw store.failure("lookup of upload " + uploadId, key, e);
        }
        return dir;
    }

    private Path claim(Path dir, String key, String uploadId) {
        Path claimed = new Path(uploads, Keys.TEMP_PREFIX + UUID.randomUUID());
        try {
            fs.rename(dir, claimed, Options.Rename.NONE);
            return claimed;
        } catch (FileNotFoundException e) {
            throw uploadNotFound(key, uploadId, e);
        } catch (IOException e) {
            throw store.failure("claim of upload " + uploadId, key, e);
        }
    }

    private void writeSmall(Path file, String text) throws IOException {
        try (FSDataOutputStream out = fs.create(file, false)) {
            new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)).transferTo(out);
        }
    }

    private String readSmall(Path file) throws IOException {
        try (FSDataInputStream in = fs.open(file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private UploadNotFoundException uploadNotFound(String key, String uploadId, Exception cause) {
        return new UploadNotFoundException("no upload " + uploadId + " of '" + key + "' in progress in "
                + store.uri(), cause);
    }
}
