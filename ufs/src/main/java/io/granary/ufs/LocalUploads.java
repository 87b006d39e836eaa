package io.granary.ufs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The multipart uploads of a {@link LocalUnderStore}, staged on its disk in {@code <uploads>/<upload id>/}: a file
 * {@code key} naming the object, and one file per part, named by its number. Since the state is on disk, any
 * process sharing the directory can take any call of an upload. Completing or aborting first renames the upload's
 * directory to a hidden name, so that of two racing calls exactly one wins and the parts cannot change while they
 * are joined.
 */
final class LocalUploads {

    /** In an upload's directory: the key of the object it makes. */
    private static final String KEY_FILE = "key";
    /** The object's metadata, given at the start, kept with it once complete. */
    private static final String METADATA_FILE = "metadata";

    /** Upload ids are random UUIDs; checking the form keeps any other string from ever becoming a path. */
    private static final Pattern UPLOAD_ID =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private final LocalUnderStore store;
    private final Path uploads;

    LocalUploads(LocalUnderStore store, Path uploads) {
        this.store = store;
        this.uploads = uploads;
    }

    /** @param key a key already checked writable and inside the store */
    String start(String key, Map<String, String> metadata) {
        String uploadId = UUID.randomUUID().toString();
        try {
            Files.createDirectories(uploads);
            store.requireInside(uploads, key);
            Path dir = Files.createDirectory(uploads.resolve(uploadId));
            Files.writeString(dir.resolve(METADATA_FILE), ObjectMetadata.encode(metadata), StandardCharsets.UTF_8);
            Files.writeString(dir.resolve(KEY_FILE), key, StandardCharsets.UTF_8);  // last: the upload exists now
            return uploadId;
        } catch (IOException e) {
            throw store.failure("start of an upload", key, e);
        }
    }

    String putPart(String key, String uploadId, int partNumber, InputStream data, long size) {
        Uploads.checkPart(partNumber, size);
        Path dir = upload(key, uploadId);
        Path temp = null;
        try {
            // Written aside and renamed over the part: a re-sent part replaces the old one whole, last one wins.
            temp = Files.createFile(dir.resolve(Keys.TEMP_PREFIX + UUID.randomUUID()));
            MessageDigest md5 = Md5.digest();
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE);
                 OutputStream out = new DigestOutputStream(Channels.newOutputStream(channel), md5)) {
                long written = new LimitedInputStream(data, size + 1).transferTo(out);
                if (written != size) {
                    throw new UnderStoreException("part " + partNumber + " of the upload of '" + key + "' in "
                            + store.root().toUri() + " got " + (written > size ? "more than " + size : written)
                            + " bytes, expected " + size);
                }
                channel.force(true);
            }
            Files.move(temp, dir.resolve(Integer.toString(partNumber)), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
            temp = null;
            return Md5.hex(md5);
        } catch (NoSuchFileException e) {
            throw uploadNotFound(key, uploadId, e);  // aborted or completed meanwhile
        } catch (IOException e) {
            throw store.failure("upload of part " + partNumber, key, e);
        } finally {
            LocalUnderStore.deleteQuietly(temp);
        }
    }

    /** Joins the parts into {@code target}, replacing it at once; a failure leaves the upload as it was. */
    void complete(String key, String uploadId, List<UploadedPart> parts, Path target) {
        Uploads.checkOrder(parts, key);
        Path dir = upload(key, uploadId);
        Path claimed = claim(dir, key, uploadId);
        Path temp = null;
        try {
            List<Path> files = new ArrayList<>(parts.size());
            for (int i = 0; i < parts.size(); i++) {
                UploadedPart part = parts.get(i);
                Path file = claimed.resolve(Integer.toString(part.partNumber()));
                long size;
                try {
                    size = Files.size(file);
                } catch (NoSuchFileException e) {
                    throw Uploads.missing(part, key);
                }
                Uploads.checkSize(part, size, i == parts.size() - 1, key);
                files.add(file);
            }
            temp = LocalUnderStore.newTempFile(target);
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE);
                 OutputStream out = Channels.newOutputStream(channel)) {
                Uploads.join(parts, i -> Files.newInputStream(files.get(i)), out, key);
                channel.force(true);
            }
            Path metadata = claimed.resolve(METADATA_FILE);
            LocalAttributes.record(temp, UploadedPart.objectEtag(parts),
                    Files.exists(metadata) ? ObjectMetadata.decode(Files.readString(metadata, StandardCharsets.UTF_8))
                            : Map.of());
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            temp = null;
        } catch (IOException | RuntimeException e) {
            LocalUnderStore.deleteQuietly(temp);
            // As on S3, a failed completion leaves the upload in place, to be completed again or aborted.
            try {
                Files.move(claimed, dir, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException restore) {
                e.addSuppressed(restore);
            }
            throw e instanceof IOException io ? store.failure("completion of the upload", key, io)
                    : (RuntimeException) e;
        }
        deleteTree(claimed);
    }

    void abort(String key, String uploadId) {
        try {
            deleteTree(claim(upload(key, uploadId), key, uploadId));
        } catch (UploadNotFoundException e) {
            // Never started, already aborted or completed: nothing to drop, as S3 would have it for a retry.
        }
    }

    /** The directory of an upload in progress of {@code key}; anything else is not found. */
    private Path upload(String key, String uploadId) {
        Uploads.checkUploadId(uploadId);
        if (!UPLOAD_ID.matcher(uploadId).matches()) {
            throw uploadNotFound(key, uploadId, null);
        }
        Path dir = uploads.resolve(uploadId);
        try {
            if (!Files.readString(dir.resolve(KEY_FILE), StandardCharsets.UTF_8).equals(key)) {
                throw uploadNotFound(key, uploadId, null);  // S3 too knows an upload id only with its key
            }
        } catch (NoSuchFileException e) {
            throw uploadNotFound(key, uploadId, e);
        } catch (IOException e) {
            throw store.failure("lookup of upload " + uploadId, key, e);
        }
        store.requireInside(uploads, key);
        return dir;
    }

    /** Renames the upload's directory out of reach of other calls; of two racing claims, one fails here. */
    private Path claim(Path dir, String key, String uploadId) {
        Path claimed = dir.resolveSibling(Keys.TEMP_PREFIX + UUID.randomUUID());
        try {
            Files.move(dir, claimed, StandardCopyOption.ATOMIC_MOVE);
            return claimed;
        } catch (NoSuchFileException e) {
            throw uploadNotFound(key, uploadId, e);
        } catch (IOException e) {
            throw store.failure("claim of upload " + uploadId, key, e);
        }
    }

    private UploadNotFoundException uploadNotFound(String key, String uploadId, Exception cause) {
        return new UploadNotFoundException("no upload " + uploadId + " of '" + key + "' in progress in "
                + store.root().toUri(), cause);
    }

    /** Best effort: what is left is hidden in the uploads directory and only costs disk space. */
    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(LocalUnderStore::deleteQuietly);
        } catch (IOException | UncheckedIOException e) {
            // see above
        }
    }
}
