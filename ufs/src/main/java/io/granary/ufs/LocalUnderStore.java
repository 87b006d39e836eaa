package io.granary.ufs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A local directory ({@code file:///root}) as an under-store. Every path is resolved under the root and refused
 * if it leaves it, by '..' or through a symlink whose target is outside (checked on the real path of the file,
 * or of its nearest existing ancestor for a new file). The check guards against dataset definitions and client
 * paths, not against someone swapping symlinks inside the root at the same moment.
 *
 * <p>Multipart uploads are staged in {@value Keys#UPLOADS_DIR} under the root ({@link LocalUploads}). That
 * directory is not part of the mount: it is never listed, stat and read do not find it, writes into it are
 * refused and deletes ignored.
 */
public final class LocalUnderStore implements UnderStore {

    private final Path root;
    private final URI uri;
    private final LocalUploads uploads;

    /** @param root an existing directory; symlinks in it are resolved once, here */
    public LocalUnderStore(Path root) {
        try {
            this.root = root.toRealPath();
        } catch (IOException e) {
            throw new UnderStoreException("local under-store root " + root + " does not exist", e);
        }
        if (!Files.isDirectory(this.root)) {
            throw new UnderStoreException("local under-store root " + root + " is not a directory");
        }
        this.uri = this.root.toUri();
        this.uploads = new LocalUploads(this, this.root.resolve(Keys.UPLOADS_DIR));
    }

    public Path root() {
        return root;
    }

    @Override
    public ObjectInfo stat(String path) {
        String key = Keys.object(path);
        if (Keys.reserved(key)) {
            throw notFound(key);
        }
        Path file = existingFile(key);
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            return new ObjectInfo(key, attributes.size(), attributes.lastModifiedTime().toInstant(),
                    LocalAttributes.etag(file, attributes), LocalAttributes.metadata(file, attributes));
        } catch (NoSuchFileException e) {
            throw notFound(key);
        } catch (IOException e) {
            throw failure("stat", key, e);
        }
    }

    @Override
    public ListPage list(String prefix, String delimiter, String cursor, int limit) {
        String keyPrefix = Keys.prefix(prefix);
        boolean delimited = Keys.delimited(delimiter);
        int pageSize = Keys.pageSize(limit);
        if (keyPrefix.indexOf('/') >= 0 && Keys.reserved(keyPrefix)) {
            return new ListPage(List.of(), List.of(), null);
        }
        Path start = root.resolve(keyPrefix.substring(0, keyPrefix.lastIndexOf('/') + 1));
        if (!Files.isDirectory(start)) {
            return new ListPage(List.of(), List.of(), null);
        }
        requireInside(start, keyPrefix);
        try {
            return new LocalLister(root, keyPrefix, delimited, cursor, pageSize).page();
        } catch (IOException e) {
            throw failure("list", keyPrefix, e);
        }
    }

    @Override
    public InputStream read(String path, long offset, long length) {
        return read(path, null, offset, length);
    }

    @Override
    public InputStream read(String path, String etag, long offset, long length) {
        Keys.checkRange(offset, length);
        String key = Keys.object(path);
        if (Keys.reserved(key)) {
            throw notFound(key);
        }
        Path file = existingFile(key);
        try {
            requireVersion(file, key, etag);
            FileChannel channel = FileChannel.open(file, StandardOpenOption.READ);
            try {
                // Same etag before and after the open: the channel holds that inode, and a rewrite renames a new one in.
                requireVersion(file, key, etag);
                channel.position(offset);
            } catch (IOException | RuntimeException e) {
                channel.close();
                throw e;
            }
            InputStream in = Channels.newInputStream(channel);
            return length < 0 ? in : new LimitedInputStream(in, length);
        } catch (NoSuchFileException e) {
            throw notFound(key);
        } catch (IOException e) {
            throw failure("read", key, e);
        }
    }

    @Override
    public ObjectInfo write(String path, InputStream data, long size, Map<String, String> metadata) {
        String key = Keys.writable(path, uri);
        Path target = resolve(key);
        Path temp = null;
        try {
            temp = newTempFile(target);
            MessageDigest md5 = Md5.digest();
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE);
                 OutputStream out = new DigestOutputStream(Channels.newOutputStream(channel), md5)) {
                long written = data.transferTo(out);
                if (size >= 0 && written != size) {
                    throw new UnderStoreException("write of '" + key + "' in " + uri + " got " + written
                            + " bytes, expected " + size);
                }
                channel.force(true);
            }
            // The rename keeps the inode and mtime the record is stamped with.
            LocalAttributes.record(temp, Md5.hex(md5), metadata);
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            temp = null;
            return stat(key);
        } catch (IOException e) {
            throw failure("write", key, e);
        } finally {
            deleteQuietly(temp);
        }
    }

    @Override
    public ObjectInfo replaceMetadata(String path, String etag, Map<String, String> metadata) {
        String key = Keys.writable(path, uri);
        Path file = existingFile(key);
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
            if (!LocalAttributes.etag(file, attributes).equals(etag)) {
                throw new ObjectChangedException("'" + key + "' in " + uri + " is no longer version " + etag);
            }
            LocalAttributes.replaceMetadata(file, attributes, metadata);
            return stat(key);
        } catch (NoSuchFileException e) {
            throw notFound(key);
        } catch (IOException e) {
            throw failure("replace the metadata of", key, e);
        }
    }

    @Override
    public void delete(String path) {
        String key = Keys.object(path);
        if (Keys.reserved(key)) {
            return;  // not an object of the mount: nothing to delete
        }
        Path file = resolve(key);
        try {
            if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
                return;  // a directory is not an object: nothing to delete, as S3 would say
            }
            if (Files.deleteIfExists(file)) {
                pruneEmptyParents(file.getParent());
            }
        } catch (IOException e) {
            throw failure("delete", key, e);
        }
    }

    @Override
    public String startUpload(String path, Map<String, String> metadata) {
        String key = Keys.writable(path, uri);
        resolve(key);  // a symlink out of the root fails now, not when the upload completes
        return uploads.start(key, metadata);
    }

    @Override
    public String uploadPart(String path, String uploadId, int partNumber, InputStream data, long size) {
        return uploads.putPart(Keys.object(path), uploadId, partNumber, data, size);
    }

    @Override
    public ObjectInfo completeUpload(String path, String uploadId, List<UploadedPart> parts) {
        String key = Keys.object(path);
        uploads.complete(key, uploadId, parts, resolve(key));
        return stat(key);
    }

    @Override
    public void abortUpload(String path, String uploadId) {
        uploads.abort(Keys.object(path), uploadId);
    }

    @Override
    public void close() {
        // Nothing held open: every call opens and closes its own files.
    }

    @Override
    public String toString() {
        return "LocalUnderStore[" + uri + "]";
    }

    /** The object a file is, as a listing gives it: its ETag as {@link LocalAttributes} has it, no metadata. */
    static ObjectInfo info(String key, Path file, BasicFileAttributes attributes) {
        return new ObjectInfo(key, attributes.size(), attributes.lastModifiedTime().toInstant(),
                LocalAttributes.etag(file, attributes));
    }


    /** The file for a key, refused if it (or, for a new file, its nearest existing ancestor) is outside. */
    Path resolve(String key) {
        Path file = root.resolve(key);
        Path ancestor = file.getParent();
        while (!Files.exists(ancestor)) {
            ancestor = ancestor.getParent();
        }
        requireInside(ancestor, key);
        if (Files.exists(file)) {
            requireInside(file, key);
        }
        return file;
    }

    /** Only regular files are objects: a directory, or a path through a file, is simply not found. */
    private Path existingFile(String key) {
        Path file = resolve(key);
        if (!Files.isRegularFile(file)) {
            throw notFound(key);
        }
        return file;
    }

    void requireInside(Path path, String key) {
        Path real;
        try {
            real = path.toRealPath();
        } catch (IOException e) {
            throw failure("resolve", key, e);
        }
        if (!real.startsWith(root)) {
            throw new PathOutsideMountException("'" + key + "' leaves the mount root " + uri + " through a symlink");
        }
    }

    /** Files.createTempFile would make it 0600; a plain new file keeps the umask like any other writer. */
    static Path newTempFile(Path target) throws IOException {
        Path temp = target.resolveSibling(Keys.TEMP_PREFIX + UUID.randomUUID());
        try {
            Files.createDirectories(target.getParent());
            return Files.createFile(temp);
        } catch (NoSuchFileException e) {
            // A delete pruned the directory between the two calls: one retry settles it.
            Files.createDirectories(target.getParent());
            return Files.createFile(temp);
        }
    }

    /** Keeps the directory tree like S3's implicit one: a directory disappears with its last object. */
    private void pruneEmptyParents(Path dir) throws IOException {
        for (Path d = dir; d != null && !d.equals(root) && d.startsWith(root); d = d.getParent()) {
            try {
                Files.delete(d);
            } catch (DirectoryNotEmptyException | NoSuchFileException e) {
                return;
            }
        }
    }

    private void requireVersion(Path file, String key, String etag) throws IOException {
        if (etag != null && !etag.equals(LocalAttributes.etag(file, Files.readAttributes(file, BasicFileAttributes.class)))) {
            throw new ObjectChangedException("'" + key + "' in " + uri + " is no longer version " + etag);
        }
    }


    private ObjectNotFoundException notFound(String key) {
        return new ObjectNotFoundException("no object '" + key + "' in " + uri);
    }

    UnderStoreException failure(String operation, String key, Exception e) {
        return new UnderStoreException(operation + " of '" + key + "' in " + uri + " failed: " + e, e);
    }

    static void deleteQuietly(Path temp) {  // a file, or an empty directory
        if (temp != null) {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException e) {
                // The temp name is hidden from listings; a leftover only costs disk space.
            }
        }
    }
}
