package io.granary.ufs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A local file's ETag, with the meaning S3 clients give it. A file Granary wrote carries the MD5 of its bytes (or,
 * joined from a multipart upload, the MD5 of its parts' MD5s and their count: {@code <hex>-<parts>}), kept in an
 * extended attribute ({@code user.granary.etag}) beside a stamp of the file (size, mtime in nanoseconds, identity),
 * so a file changed behind Granary's back loses it. Any other file gets a version tag ({@code <hex>-0}): the MD5 of
 * that stamp, which changes whenever the file does but reads no content, and which no client takes for the MD5 of
 * the bytes (a part count of 0 is no multipart upload either).
 */
final class LocalEtags {

    private static final String ATTRIBUTE = "granary.etag";
    private static final HexFormat HEX = HexFormat.of();

    private LocalEtags() {
    }

    /** The file's ETag, never quoted. */
    static String of(Path file, BasicFileAttributes attributes) {
        String stamp = stamp(attributes);
        String recorded = recorded(file);
        if (recorded != null && recorded.startsWith(stamp)) {
            return recorded.substring(stamp.length());
        }
        return HEX.formatHex(md5().digest(stamp.getBytes(StandardCharsets.UTF_8))) + "-0";
    }

    /**
     * Records {@code etag} as the content's for the file as it is now. Best effort: on a filesystem without user
     * extended attributes the file keeps its version tag.
     */
    static void record(Path file, String etag) {
        try {
            String value = stamp(Files.readAttributes(file, BasicFileAttributes.class)) + etag;
            view(file).write(ATTRIBUTE, ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8)));
        } catch (IOException | UnsupportedOperationException e) {
            // the version tag stands in
        }
    }

    /** S3's ETag of a multipart upload: the MD5 of the parts' binary MD5s, then '-' and how many parts. */
    static String multipart(List<String> partMd5s) {
        MessageDigest md5 = md5();
        partMd5s.forEach(part -> md5.update(HEX.parseHex(part)));
        return HEX.formatHex(md5.digest()) + "-" + partMd5s.size();
    }

    static MessageDigest md5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has MD5", e);
        }
    }

    static String hex(MessageDigest md5) {
        return HEX.formatHex(md5.digest());
    }

    /** What changes whenever the file does: a rewrite renames a new inode in, an edit in place moves the mtime. */
    private static String stamp(BasicFileAttributes attributes) {
        return attributes.size() + ":" + attributes.lastModifiedTime().to(TimeUnit.NANOSECONDS) + ":"
                + attributes.fileKey() + ":";
    }

    private static String recorded(Path file) {
        try {
            UserDefinedFileAttributeView view = view(file);
            ByteBuffer value = ByteBuffer.allocate(256);
            view.read(ATTRIBUTE, value);
            return new String(value.array(), 0, value.position(), StandardCharsets.UTF_8);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return null;  // none recorded (ENODATA), or no user attributes here
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
