package io.granary.fuse.mount;

import com.kenai.jffi.MemoryIO;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.validation.ValidationException;
import io.granary.fuse.read.BlockReads;
import io.granary.fuse.read.OpenFile;
import io.granary.fuse.tree.MountPaths;
import io.granary.fuse.tree.Namespace;
import io.granary.fuse.tree.Node;
import io.granary.fuse.write.Checkpoints;
import jnr.constants.platform.OpenFlags;
import jnr.ffi.Pointer;
import jnr.ffi.types.mode_t;
import jnr.ffi.types.off_t;
import jnr.ffi.types.size_t;
import org.jboss.logging.Logger;
import ru.serce.jnrfuse.ErrorCodes;
import ru.serce.jnrfuse.FuseFillDir;
import ru.serce.jnrfuse.FuseStubFS;
import ru.serce.jnrfuse.struct.FileStat;
import ru.serce.jnrfuse.struct.FuseFileInfo;
import ru.serce.jnrfuse.struct.Statvfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The FUSE callbacks, kept thin: each translates to the tree ({@link Namespace}), the reads ({@link BlockReads}) or
 * the writes ({@link Checkpoints}) and maps what fails to an errno. Files are read-only but for new files and
 * files opened with O_TRUNC, which are written whole and uploaded when closed (checkpoints).
 */
public final class GranaryFs extends FuseStubFS {

    private static final Logger LOG = Logger.getLogger(GranaryFs.class);
    /** The largest read or write the kernel sends us (libfuse 2 caps requests at 128 KiB). */
    static final int MAX_REQUEST = 128 * 1024;
    /**
     * libfuse's own buffers, seen as ByteBuffers: reads land in the reply buffer and writes are taken from the
     * request's, with no copy of ours. (jnr's Pointer.transferFrom between a buffer and native memory copies byte by
     * byte: it held a sequential read to 200 MB/s.)
     */
    private static final MemoryIO MEMORY = MemoryIO.getInstance();

    private static final ClassLoader APPLICATION = GranaryFs.class.getClassLoader();

    private final Namespace namespace;
    private final BlockReads reads;
    private final Checkpoints checkpoints;
    private final Map<Long, OpenFile> readers = new ConcurrentHashMap<>();
    private final Map<Long, Checkpoints.Staged> writers = new ConcurrentHashMap<>();
    /** Files being written, by dataset path, so their size shows before they are uploaded. */
    private final Map<String, Checkpoints.Staged> writing = new ConcurrentHashMap<>();
    private final AtomicLong handles = new AtomicLong();

    /** @param checkpoints null for a read-only mount */
    public GranaryFs(Namespace namespace, BlockReads reads, Checkpoints checkpoints) {
        this.namespace = namespace;
        this.reads = reads;
        this.checkpoints = checkpoints;
    }

    @Override
    public int getattr(String path, FileStat stat) {
        return errno(() -> {
            MountPaths at = namespace.paths(path);
            Checkpoints.Staged staged = writing.get(key(at));
            if (staged != null) {
                fileStat(stat, staged.size(), System.currentTimeMillis() / 1000);
                return 0;
            }
            Optional<Node> node = namespace.resolve(at);
            if (node.isEmpty()) {
                return -ErrorCodes.ENOENT();
            }
            if (node.get() instanceof Node.File file) {
                long mtime = file.info().mtime() == null ? 0 : file.info().mtime().getEpochSecond();
                fileStat(stat, file.info().size(), mtime);
            } else {
                stat.st_mode.set(FileStat.S_IFDIR | (checkpoints == null ? 0555 : 0755));
                stat.st_nlink.set(2);
            }
            return 0;
        });
    }

    @Override
    public int readdir(String path, Pointer buf, FuseFillDir filler, @off_t long offset, FuseFileInfo fi) {
        return errno(() -> {
            Optional<Node> node = namespace.resolve(namespace.paths(path));
            if (node.isEmpty()) {
                return -ErrorCodes.ENOENT();
            }
            if (!(node.get() instanceof Node.Directory directory)) {
                return -ErrorCodes.ENOTDIR();
            }
            filler.apply(buf, ".", null, 0);
            filler.apply(buf, "..", null, 0);
            namespace.list(directory, (name, entry) -> filler.apply(buf, name, null, 0));
            return 0;
        });
    }

    @Override
    public int open(String path, FuseFileInfo fi) {
        return errno(() -> {
            MountPaths at = namespace.paths(path);
            int flags = fi.flags.get();
            if (writing(flags)) {
                if ((flags & OpenFlags.O_TRUNC.intValue()) == 0) {
                    return -ErrorCodes.EROFS();  // an existing file is replaced whole, never patched
                }
                return startWriting(at, fi);
            }
            Optional<Node> node = namespace.resolve(at);
            if (node.isEmpty()) {
                return -ErrorCodes.ENOENT();
            }
            if (!(node.get() instanceof Node.File file)) {
                return -ErrorCodes.EISDIR();
            }
            Dataset dataset = namespace.dataset(file.dataset()).orElse(null);
            if (dataset == null) {
                return -ErrorCodes.ENOENT();
            }
            long handle = handles.incrementAndGet();
            readers.put(handle, new OpenFile(dataset, file.info()));
            fi.fh.set(handle);
            return 0;
        });
    }

    @Override
    public int create(String path, @mode_t long mode, FuseFileInfo fi) {
        return errno(() -> startWriting(namespace.paths(path), fi));
    }

    @Override
    public int read(String path, Pointer buf, @size_t long size, @off_t long offset, FuseFileInfo fi) {
        return errno(() -> {
            ByteBuffer buffer = MEMORY.newDirectByteBuffer(buf.address(), (int) Math.min(size, MAX_REQUEST));
            int read;
            Checkpoints.Staged staged = writers.get(fi.fh.get());
            if (staged != null) {
                read = staged.read(buffer, offset);
            } else {
                OpenFile file = readers.get(fi.fh.get());
                if (file == null) {
                    return -ErrorCodes.EBADF();
                }
                try {
                    read = reads.read(file.dataset(), file.file(), offset, buffer, file);
                } catch (BlockReads.StaleFileException e) {
                    namespace.forgetFile(file.dataset().name(), file.file().path());  // reopening finds the new one
                    throw e;
                }
            }
            return read;
        });
    }

    @Override
    public int write(String path, Pointer buf, @size_t long size, @off_t long offset, FuseFileInfo fi) {
        return errno(() -> {
            Checkpoints.Staged staged = writers.get(fi.fh.get());
            if (staged == null) {
                return -ErrorCodes.EBADF();
            }
            return staged.write(MEMORY.newDirectByteBuffer(buf.address(), (int) Math.min(size, MAX_REQUEST)), offset);
        });
    }

    @Override
    public int truncate(String path, @off_t long size) {
        return errno(() -> {
            Checkpoints.Staged staged = writing.get(key(namespace.paths(path)));
            if (staged == null) {
                return -ErrorCodes.EROFS();
            }
            staged.truncate(size);
            return 0;
        });
    }

    @Override
    public int ftruncate(String path, @off_t long size, FuseFileInfo fi) {
        return errno(() -> {
            Checkpoints.Staged staged = writers.get(fi.fh.get());
            if (staged == null) {
                return -ErrorCodes.EROFS();
            }
            staged.truncate(size);
            return 0;
        });
    }

    /** close(2): a written file is uploaded now, so that it is there when close returns. */
    @Override
    public int flush(String path, FuseFileInfo fi) {
        return errno(() -> {
            Checkpoints.Staged staged = writers.get(fi.fh.get());
            if (staged != null) {
                staged.upload();
                namespace.forgetFile(staged.dataset(), staged.path());
            }
            return 0;
        });
    }

    @Override
    public int fsync(String path, int isdatasync, FuseFileInfo fi) {
        return flush(path, fi);
    }

    @Override
    public int release(String path, FuseFileInfo fi) {
        readers.remove(fi.fh.get());
        Checkpoints.Staged staged = writers.remove(fi.fh.get());
        if (staged == null) {
            return 0;
        }
        return errno(() -> {
            try {
                staged.upload();
                namespace.forgetFile(staged.dataset(), staged.path());
            } finally {
                writing.remove(staged.dataset() + '/' + staged.path(), staged);
                staged.discard();
            }
            return 0;
        });
    }

    @Override
    public int mkdir(String path, @mode_t long mode) {
        return errno(() -> {
            if (checkpoints == null) {
                return -ErrorCodes.EROFS();
            }
            MountPaths at = namespace.paths(path);
            if (at.mountRoot() || at.path().isEmpty()) {
                return -ErrorCodes.EEXIST();  // datasets are made through the management API
            }
            if (namespace.resolve(at).isPresent()) {
                return -ErrorCodes.EEXIST();
            }
            namespace.makeDirectory(at);
            return 0;
        });
    }

    @Override
    public int unlink(String path) {
        return errno(() -> {
            if (checkpoints == null) {
                return -ErrorCodes.EROFS();
            }
            MountPaths at = namespace.paths(path);
            Optional<Node> node = namespace.resolve(at);
            if (node.isEmpty()) {
                return -ErrorCodes.ENOENT();
            }
            if (!(node.get() instanceof Node.File)) {
                return -ErrorCodes.EISDIR();
            }
            checkpoints.delete(at.dataset(), at.path());
            namespace.forgetFile(at.dataset(), at.path());
            return 0;
        });
    }

    /** S3 has no rename: EXDEV makes mv and most tools copy and unlink, which the mount does. */
    @Override
    public int rename(String oldpath, String newpath) {
        return -ErrorCodes.EXDEV();
    }

    @Override
    public int statfs(String path, Statvfs stbuf) {
        // No meaningful capacity: the under-store is as large as it is. Tools like df want numbers, not zeros.
        stbuf.f_bsize.set(MAX_REQUEST);
        stbuf.f_frsize.set(MAX_REQUEST);
        stbuf.f_blocks.set(Long.MAX_VALUE / MAX_REQUEST / 2);
        stbuf.f_bfree.set(Long.MAX_VALUE / MAX_REQUEST / 2);
        stbuf.f_bavail.set(Long.MAX_VALUE / MAX_REQUEST / 2);
        stbuf.f_namemax.set(1024);
        return 0;
    }

    private int startWriting(MountPaths at, FuseFileInfo fi) throws IOException {
        if (checkpoints == null) {
            return -ErrorCodes.EROFS();
        }
        if (at.mountRoot() || at.path().isEmpty()) {
            return -ErrorCodes.EISDIR();
        }
        if (namespace.dataset(at.dataset()).isEmpty()) {
            return -ErrorCodes.ENOENT();
        }
        Checkpoints.Staged staged = checkpoints.create(at.dataset(), at.path());
        long handle = handles.incrementAndGet();
        writers.put(handle, staged);
        writing.put(key(at), staged);
        fi.fh.set(handle);
        return 0;
    }

    private static boolean writing(int flags) {
        int access = flags & OpenFlags.O_ACCMODE.intValue();
        return access == OpenFlags.O_WRONLY.intValue() || access == OpenFlags.O_RDWR.intValue();
    }

    private void fileStat(FileStat stat, long size, long mtimeSeconds) {
        stat.st_mode.set(FileStat.S_IFREG | (checkpoints == null ? 0444 : 0644));
        stat.st_nlink.set(1);
        stat.st_size.set(size);
        stat.st_mtim.tv_sec.set(mtimeSeconds);
        stat.st_blocks.set((size + 511) / 512);
    }

    private static String key(MountPaths at) {
        return at.dataset() + '/' + at.path();
    }

    private interface Call {
        int run() throws IOException, InterruptedException;
    }

    /**
     * Every callback's failures as an errno; nothing escapes into libfuse. libfuse's threads enter Java with the
     * system class loader as their context: each is given the application's once, or libraries that load classes
     * through it (CDI, Jackson) fail on them.
     */
    private static int errno(Call call) {
        Thread thread = Thread.currentThread();
        if (thread.getContextClassLoader() != APPLICATION) {
            thread.setContextClassLoader(APPLICATION);
        }
        try {
            return call.run();
        } catch (ValidationException e) {
            return -ErrorCodes.EINVAL();
        } catch (BlockReads.StaleFileException e) {
            LOG.debugf("%s", e.getMessage());
            return -ErrorCodes.ESTALE();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -ErrorCodes.EINTR();
        } catch (IOException | RuntimeException e) {
            LOG.warnf(e, "FUSE call failed");
            return -ErrorCodes.EIO();
        }
    }
}
