package io.granary.ufs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.security.MessageDigest;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What Granary keeps of a local file it wrote, beside the bytes: its ETag and its metadata, in extended attributes
 * ({@code user.granary.etag}, {@code user.granary.metadata}), each behind a stamp of the file (size, mtime in
 * nanoseconds, identity) so that a file changed behind Granary's back loses them.
 *
 * <p>The ETag means what S3 clients take it for: the MD5 of the bytes, or for a file joined from a multipart
 * upload the MD5 of its parts' MD5s and their count ({@code <hex>-<parts>}). A file Granary did not write gets a
 * version tag ({@code <hex>-0}): the MD5 of its stamp, which changes whenever the file does but reads no content,
 * and which no client takes for the MD5 of the bytes (a part count of 0 is no multipart upload either).
 */
final class LocalAttributes {

    private static final String ETAG = "granary.etag";
    private static final String METADATA = "granary.metadata";

    private LocalAttributes() {
    }

    /** The file's ETag, never quoted. */
    static String etag(Path file, BasicFileAttributes attributes) {
        String stamp = stamp(attributes);
        String recorded = recorded(file, ETAG, stamp);
        if (recorded != null) {
            return recorded;
        }
        MessageDigest md5 = Md5.digest();
        md5.update(stamp.getBytes(StandardCharsets.UTF_8));
        return Md5.hex(md5) + "-0";
    }

    /** The metadata recorded with the file as it is now; empty if none was, or the file changed since. */
    static Map<String, String> metadata(Path file, BasicFileAttributes attributes) {
        String recorded = recorded(file, METADATA, stamp(attributes));
        return recorded == null || recorded.isEmpty() ? Map.of() : ObjectMetadata.decode(recorded);
    }

    /**
     * Records {@code etag} as the content's and {@code metadata} as the object's, for the file as it is now. Best
     * effort: on a filesystem without user extended attributes the file keeps its version tag and no metadata.
     */
    static void record(Path file, String etag, Map<String, String> metadata) {
        try {
            String stamp = stamp(Files.readAttributes(file, BasicFileAttributes.class));
            UserDefinedFileAttributeView view = view(file);
            view.write(ETAG, StandardCharsets.UTF_8.encode(stamp + etag));
            if (!metadata.isEmpty()) {
                view.write(METADATA, StandardCharsets.UTF_8.encode(stamp + ObjectMetadata.encode(metadata)));
            }
        } catch (IOException | UnsupportedOperationException e) {
            // the version tag stands in
        }
    }

    /**
     * Records {@code metadata} for the file as it is now (setting an attribute moves its ctime, not its mtime, so
     * the etag recorded stays valid).
     *
     * @throws IOException if the filesystem keeps no user extended attributes
     */
    static void replaceMetadata(Path file, BasicFileAttributes attributes, Map<String, String> metadata)
            throws IOException {
        String stamp = stamp(attributes);
        try {
            UserDefinedFileAttributeView view = view(file);
            if (metadata.isEmpty()) {
                if (view.list().contains(METADATA)) {
                    view.delete(METADATA);
                }
            } else {
                view.write(METADATA, StandardCharsets.UTF_8.encode(stamp + ObjectMetadata.encode(metadata)));
            }
        } catch (UnsupportedOperationException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /** What changes whenever the file does: a rewrite renames a new inode in, an edit in place moves the mtime. */
    private static String stamp(BasicFileAttributes attributes) {
        return attributes.size() + ":" + attributes.lastModifiedTime().to(TimeUnit.NANOSECONDS) + ":"
                + attributes.fileKey() + ":";
    }

    /** The attribute's value after the stamp, if it was recorded for the file as it is now. */
    private static String recorded(Path file, String name, String stamp) {
        try {
            UserDefinedFileAttributeView view = view(file);
            if (!view.list().contains(name)) {
                return null;  // the common case for a file Granary did not write: no exception thrown per file listed
            }
            ByteBuffer value = ByteBuffer.allocate(view.size(name));
            view.read(name, value);
            String text = new String(value.array(), 0, value.position(), StandardCharsets.UTF_8);
            return text.startsWith(stamp) ? text.substring(stamp.length()) : null;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return null;  // removed meanwhile, or no user attributes here
        }
    }

    private static UserDefinedFileAttributeView view(Path file) {
        UserDefinedFileAttributeView view = Files.getFileAttributeView(file, UserDefinedFileAttributeView.class);
        if (view == null) {
            throw new UnsupportedOperationException("no user-defined attributes on " + file.getFileSystem());
        }
        return view;
    }
}
