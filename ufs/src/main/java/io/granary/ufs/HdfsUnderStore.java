package io.granary.ufs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.fs.XAttrSetFlag;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.client.HdfsDataInputStream;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.ipc.RemoteException;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.PrivilegedExceptionAction;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * A directory of an HDFS file system ({@code hdfs://namenode:port/root}, or {@code hdfs://nameservice/root} for
 * an HA pair) as an under-store, through the Hadoop client (the shaded {@code hadoop-client-api} and
 * {@code -runtime} jars). Objects are the regular files under the root; directories are the key prefixes, made
 * by writes and pruned with their last file, as S3's implicit ones.
 *
 * <p>The ETag is derived from what the namenode gives in a listing as in a stat, so both agree without reading a
 * byte or an attribute: the MD5 of {@code <file id>:<modification time in ms>:<length>} in hex, then {@code -0}
 * (a part count no multipart upload has, so no client takes it for the MD5 of the bytes). A file replaced
 * (written anew, renamed over) gets a new file id, an append moves its length and time: either changes the ETag.
 *
 * <p>Writes go to a hidden file beside the target and are renamed over it (a rename keeps the file id and the
 * time). Metadata lives in the extended attribute {@code user.granary.metadata}, behind the same stamp, so a
 * file changed behind Granary's back loses it. Multipart uploads are staged in {@value Keys#UPLOADS_DIR} under
 * the root ({@link HdfsUploads}).
 */
public final class HdfsUnderStore implements UnderStore {

    static final String METADATA_XATTR = "user.granary.metadata";

    /** What the namenode's refusals and restarts look like: retry later, the store is not gone. */
    private static final Set<String> UNAVAILABLE = Set.of("org.apache.hadoop.ipc.StandbyException",
            "org.apache.hadoop.ipc.RetriableException", "org.apache.hadoop.hdfs.server.namenode.SafeModeException",
            "org.apache.hadoop.ipc.ObserverRetryOnActiveException", "org.apache.hadoop.ipc.RetryException");

    private static final int COPY_BUFFER = 1 << 20;

    private final URI uri;
    private final Path root;
    private final DistributedFileSystem fs;
    private final HdfsLister lister;
    private final HdfsUploads uploads;

    /**
     * @param uri   {@code hdfs://authority/root}, the root an existing directory (checked by {@link #probe()})
     * @param conf  the client's settings ({@link HdfsOptions})
     * @param login who to act as; null for the process's own user
     * @param principal the Kerberos principal of a keytab login
     */
    HdfsUnderStore(URI uri, Configuration conf, HdfsLogin login, String principal) {
        this.uri = uri;
        String rootPath = uri.getPath() == null || uri.getPath().isEmpty() ? "/" : uri.getPath();
        this.root = new Path(rootPath.length() > 1 && rootPath.endsWith("/")
                ? rootPath.substring(0, rootPath.length() - 1) : rootPath);
        try {
            UserGroupInformation ugi = login(conf, login, principal);
            URI filesystem = URI.create("hdfs://" + uri.getRawAuthority());
            this.fs = ugi.doAs((PrivilegedExceptionAction<DistributedFileSystem>) () ->
                    (DistributedFileSystem) FileSystem.newInstance(filesystem, conf));
        } catch (IOException e) {
            throw failure("opening", "/", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnderStoreUnavailableException("opening " + uri + " was interrupted", e);
        }
        this.lister = new HdfsLister(fs, root);
        this.uploads = new HdfsUploads(this, fs, new Path(root, Keys.UPLOADS_DIR));
    }

    private UserGroupInformation login(Configuration conf, HdfsLogin login, String principal) throws IOException {
        if (principal != null && !principal.isBlank()) {
            if (login == null || login.keytab() == null) {
                throw new UnderStoreException("mount " + uri + " names Kerberos principal " + principal
                        + " but its credentialsRef holds no keytab");
            }
            // Kerberos is a process-wide mode in the Hadoop client: the first Kerberos mount turns it on.
            UserGroupInformation.setConfiguration(conf);
            return UserGroupInformation.loginUserFromKeytabAndReturnUGI(principal, login.keytab().toString());
        }
        if (login != null && login.keytab() != null) {
            throw new UnderStoreException("mount " + uri + " has a keytab in its credentialsRef but no option "
                    + "principal");
        }
        return login != null ? UserGroupInformation.createRemoteUser(login.user())
                : UserGroupInformation.getCurrentUser();
    }

    @Override
    public ObjectInfo stat(String path) {
        String key = Keys.object(path);
        if (Keys.reserved(key)) {
            throw notFound(key);
        }
        Path file = path(key);
        try {
            FileStatus status = fileStatus(file, key);
            return info(key, status, metadata(file, status));
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
        try {
            return lister.page(keyPrefix, delimited, cursor, pageSize);
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
        Path file = path(key);
        try {
            FSDataInputStream in = fs.open(file);
            try {
                long visible = ((HdfsDataInputStream) in).getVisibleLength();
                if (etag != null) {
                    // Asked after the open: the same file id, time and length as the version asked for means the
                    // stream holds that version's blocks (ids are never reused; an append moves time and length).
                    FileStatus status = fileStatus(file, key);
                    if (!etag.equals(etag(status)) || status.getLen() != visible) {
                        throw new ObjectChangedException("'" + key + "' in " + uri + " is no longer version " + etag);
                    }
                }
                in.seek(Math.min(offset, visible));
            } catch (IOException | RuntimeException e) {
                in.close();
                throw e;
            }
            return length < 0 ? in : new LimitedInputStream(in, length);
        } catch (IOException e) {
            throw failure("read", key, e);
        }
    }

    @Override
    public ObjectInfo write(String path, InputStream data, long size, Map<String, String> metadata) {
        String key = Keys.writable(path, uri);
        Path target = path(key);
        Path temp = new Path(target.getParent(), Keys.TEMP_PREFIX + UUID.randomUUID());
        try {
            try (FSDataOutputStream out = fs.create(temp, false)) {
                long written = copy(data, out);
                if (size >= 0 && written != size) {
                    throw new UnderStoreException("write of '" + key + "' in " + uri + " got " + written
                            + " bytes, expected " + size);
                }
            }
            recordMetadata(temp, metadata);
            fs.rename(temp, target, Options.Rename.OVERWRITE);
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
        Path file = path(key);
        try {
            FileStatus status = fileStatus(file, key);
            if (!etag(status).equals(etag)) {
                throw new ObjectChangedException("'" + key + "' in " + uri + " is no longer version " + etag);
            }
            if (metadata.isEmpty()) {
                if (fs.getXAttrs(file).containsKey(METADATA_XATTR)) {
                    fs.removeXAttr(file, METADATA_XATTR);
                }
            } else {
                // Setting an attribute moves neither the time nor the id: the ETag stays.
                fs.setXAttr(file, METADATA_XATTR, (stamp(status) + ObjectMetadata.encode(metadata))
                        .getBytes(StandardCharsets.UTF_8), EnumSet.of(XAttrSetFlag.CREATE, XAttrSetFlag.REPLACE));
            }
            return stat(key);
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
        Path file = path(key);
        try {
            FileStatus status = fs.getFileStatus(file);
            if (status.isDirectory()) {
                return;  // a directory is not an object: nothing to delete, as S3 would say
            }
            if (fs.delete(file, false)) {
                pruneEmptyParents(file.getParent());
            }
        } catch (FileNotFoundException e) {
            // deleting a missing object is not an error
        } catch (IOException e) {
            throw failure("delete", key, e);
        }
    }

    @Override
    public String startUpload(String path, Map<String, String> metadata) {
        return uploads.start(Keys.writable(path, uri), metadata);
    }

    @Override
    public String uploadPart(String path, String uploadId, int partNumber, InputStream data, long size) {
        return uploads.putPart(Keys.object(path), uploadId, partNumber, data, size);
    }

    @Override
    public ObjectInfo completeUpload(String path, String uploadId, List<UploadedPart> parts) {
        String key = Keys.writable(path, uri);
        uploads.complete(key, uploadId, parts, path(key));
        return stat(key);
    }

    @Override
    public void abortUpload(String path, String uploadId) {
        uploads.abort(Keys.object(path), uploadId);
    }

    /** The root must be a directory this mount's user may list. */
    @Override
    public void probe() {
        try {
            FileStatus status = fs.getFileStatus(root);
            if (!status.isDirectory()) {
                throw new UnderStoreException("mount root " + uri + " is a file, not a directory");
            }
            fs.getClient().listPaths(root.toUri().getPath(), HdfsFileStatus.EMPTY_NAME, false);
        } catch (FileNotFoundException e) {
            throw new UnderStoreException("mount root " + uri + " is no directory in HDFS", e);
        } catch (IOException e) {
            throw failure("list", "/", e);
        }
    }

    /** Makes the root directory, for a dataset that starts empty. */
    void createRoot() {
        try {
            fs.mkdirs(root);
        } catch (IOException e) {
            throw failure("make the root directory", "/", e);
        }
    }

    @Override
    public void close() {
        try {
            fs.close();
        } catch (IOException e) {
            // closing releases connections only; nothing to report
        }
    }

    @Override
    public String toString() {
        return "HdfsUnderStore[" + uri + "]";
    }

    // --- shared with the lister and the uploads ---

    /** The object's ETag (see the class comment). */
    static String etag(long fileId, long mtime, long length) {
        MessageDigest md5 = Md5.digest();
        md5.update((fileId + ":" + mtime + ":" + length).getBytes(StandardCharsets.UTF_8));
        return Md5.hex(md5) + "-0";
    }

    static String etag(FileStatus status) {
        return etag(fileId(status), status.getModificationTime(), status.getLen());
    }

    static ObjectInfo info(String key, long fileId, long mtime, long length) {
        return new ObjectInfo(key, length, Instant.ofEpochMilli(mtime), etag(fileId, mtime, length));
    }

    Path path(String key) {
        return new Path(root, key);
    }

    URI uri() {
        return uri;
    }

    /** Copies with a buffer the size of a few HDFS packets: the stream's own transferTo moves 16 KiB at a time. */
    static long copy(InputStream in, java.io.OutputStream out) throws IOException {
        byte[] buffer = new byte[COPY_BUFFER];
        long total = 0;
        for (int n; (n = in.read(buffer)) > 0; ) {
            out.write(buffer, 0, n);
            total += n;
        }
        return total;
    }

    /** Records {@code metadata} on a file just written, behind its stamp (which a rename keeps). */
    void recordMetadata(Path file, Map<String, String> metadata) throws IOException {
        if (!metadata.isEmpty()) {
            fs.setXAttr(file, METADATA_XATTR, (stamp(fs.getFileStatus(file)) + ObjectMetadata.encode(metadata))
                    .getBytes(StandardCharsets.UTF_8), EnumSet.of(XAttrSetFlag.CREATE, XAttrSetFlag.REPLACE));
        }
    }

    void deleteQuietly(Path path) {
        if (path != null) {
            try {
                fs.delete(path, true);
            } catch (IOException e) {
                // a hidden leftover only costs space
            }
        }
    }

    ObjectNotFoundException notFound(String key) {
        return new ObjectNotFoundException("no object '" + key + "' in " + uri);
    }

    /**
     * The failure as the contract has it: a missing path is not found, a refusal is access denied naming the path,
     * a namenode that cannot be reached or is not serving (standby, safe mode, restarting) is unavailable.
     */
    UnderStoreException failure(String operation, String key, IOException e) {
        IOException cause = e instanceof RemoteException remote ? remote.unwrapRemoteException() : e;
        String what = operation + " of '" + key + "' in " + uri;
        if (cause instanceof FileNotFoundException) {
            return notFound(key);
        }
        if (cause instanceof AccessControlException) {
            return new AccessDeniedException(what + " was denied: " + firstLine(cause.getMessage()), e);
        }
        if (unavailable(e)) {
            return new UnderStoreUnavailableException(what + " failed, HDFS unavailable: " + firstLine(cause.toString()), e);
        }
        if (cause instanceof ParentNotDirectoryException) {
            return new UnderStoreException(what + " failed: a parent of it is a file", e);
        }
        return new UnderStoreException(what + " failed: " + firstLine(cause.toString()), e);
    }

    // --- private ---

    /**
     * A NameNode or DataNode that went away or is not serving yet, anywhere in the chain (the client wraps socket
     * errors in IOExceptions of its own): a refused, reset or timed-out connection, a stream cut short, standby,
     * safe mode, retriable.
     */
    private static boolean unavailable(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SocketException || cause instanceof SocketTimeoutException
                    || cause instanceof EOFException || cause instanceof UnknownHostException
                    || cause instanceof InterruptedIOException || UNAVAILABLE.contains(cause.getClass().getName())
                    || cause instanceof RemoteException remote && UNAVAILABLE.contains(remote.getClassName())) {
                return true;
            }
        }
        return false;
    }


    /** A regular file's status; a directory is not an object. */
    private FileStatus fileStatus(Path file, String key) throws IOException {
        FileStatus status = fs.getFileStatus(file);
        if (!status.isFile()) {
            throw notFound(key);
        }
        return status;
    }

    private Map<String, String> metadata(Path file, FileStatus status) throws IOException {
        byte[] value = fs.getXAttrs(file).get(METADATA_XATTR);
        if (value == null) {
            return Map.of();
        }
        String text = new String(value, StandardCharsets.UTF_8);
        String stamp = stamp(status);
        return text.startsWith(stamp) ? ObjectMetadata.decode(text.substring(stamp.length())) : Map.of();
    }

    private ObjectInfo info(String key, FileStatus status, Map<String, String> metadata) {
        return new ObjectInfo(key, status.getLen(), Instant.ofEpochMilli(status.getModificationTime()),
                etag(status), metadata);
    }

    private static String stamp(FileStatus status) {
        return fileId(status) + ":" + status.getModificationTime() + ":" + status.getLen() + ":";
    }

    private static long fileId(FileStatus status) {
        return status instanceof HdfsFileStatus hdfs ? hdfs.getFileId() : 0;
    }

    /** Keeps S3's implicit directories: a directory goes with its last object, up to the root. */
    private void pruneEmptyParents(Path dir) throws IOException {
        for (Path d = dir; d != null && !d.equals(root) && d.depth() > root.depth(); d = d.getParent()) {
            try {
                if (!fs.delete(d, false)) {
                    return;
                }
            } catch (PathIsNotEmptyDirectoryException e) {
                return;
            } catch (RemoteException e) {
                if (e.unwrapRemoteException() instanceof PathIsNotEmptyDirectoryException) {
                    return;
                }
                throw e;
            }
        }
    }

    private static String firstLine(String text) {
        if (text == null) {
            return "";
        }
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }
}
