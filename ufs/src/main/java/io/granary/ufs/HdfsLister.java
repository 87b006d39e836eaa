package io.granary.ufs;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DirectoryListing;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One page of an HDFS listing, in S3's key order: a depth-first walk, as {@link LocalLister} does, that starts in
 * each directory where the cursor points (a binary search) and stops once the page is full.
 *
 * <p>The namenode lists a directory in the order of its names' bytes taken as signed, a thousand at a time:
 * "été" before "a", and a directory "a" before "a.txt", where S3 puts "a.txt" &lt; "a/" &lt; "a0" &lt; "été". So
 * a directory is read whole and sorted before its first entry is given. A directory larger than one answer of the
 * namenode is kept sorted for {@value #KEEP_MILLIS} ms while its modification time stays, so that paging through a
 * directory of a million files reads it once, not once a page. Files that change in place (an append) within that
 * time keep their old length in the listing; a stat gives the new one.
 */
final class HdfsLister {

    static final long KEEP_MILLIS = 30_000;
    private static final int KEPT_DIRECTORIES = 4;
    /** The namenode's own page ({@code dfs.ls.limit}): a directory that fits is not worth keeping. */
    private static final int ONE_ANSWER = 1000;

    /** A directory's child: its key is its name, with '/' for a directory. */
    private record Entry(String name, String key, boolean directory, long fileId, long mtime, long length) {
    }

    private record Sorted(long dirId, long dirMtime, long readAt, List<Entry> entries) {
    }

    private final DistributedFileSystem fs;
    private final Path root;
    private final Map<String, Sorted> kept = new LinkedHashMap<>(8, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Sorted> eldest) {
            return size() > KEPT_DIRECTORIES;
        }
    };

    HdfsLister(DistributedFileSystem fs, Path root) {
        this.fs = fs;
        this.root = root;
    }

    ListPage page(String prefix, boolean delimited, String cursor, int limit) throws IOException {
        Walk walk = new Walk(delimited, cursor == null || cursor.isEmpty() ? null : cursor, limit);
        int slash = prefix.lastIndexOf('/');
        walk.walk(prefix.substring(0, slash + 1), prefix.substring(slash + 1));
        return new ListPage(walk.objects, walk.commonPrefixes, walk.more ? walk.last : null);
    }

    private final class Walk {

        private final boolean delimited;
        private final String cursor;
        private final int limit;
        private final List<ObjectInfo> objects = new ArrayList<>();
        private final List<String> commonPrefixes = new ArrayList<>();
        private String last;
        private boolean more;

        Walk(boolean delimited, String cursor, int limit) {
            this.delimited = delimited;
            this.cursor = cursor;
            this.limit = limit;
        }

        /** @return false once the page is full */
        boolean walk(String dirKey, String namePrefix) throws IOException {
            List<Entry> children = children(dirKey);
            for (int i = start(children, dirKey, namePrefix); i < children.size(); i++) {
                Entry child = children.get(i);
                if (!child.name().startsWith(namePrefix)) {
                    return true;  // the names with a prefix sit together in key order: the rest are after them
                }
                String key = dirKey + child.key();
                if (!child.directory() || delimited) {
                    if (after(key) && !add(key, child)) {
                        return false;
                    }
                } else if ((after(key) || cursor.startsWith(key)) && !walk(key, "")) {
                    return false;
                }
            }
            return true;
        }

        /** The first child that can be on the page: at the name prefix, and past the cursor if it points here. */
        private int start(List<Entry> children, String dirKey, String namePrefix) {
            int from = firstAtLeast(children, namePrefix);
            if (cursor != null && cursor.startsWith(dirKey)) {
                String rest = cursor.substring(dirKey.length());
                int past = firstAtLeast(children, rest);
                if (past < children.size() && children.get(past).key().equals(rest)) {
                    past++;
                }
                // A directory the cursor lies inside is the last child at or before it: walk on in it.
                if (past > 0 && children.get(past - 1).directory() && rest.startsWith(children.get(past - 1).key())) {
                    past--;
                }
                from = Math.max(from, past);
            }
            return from;
        }

        private boolean after(String key) {
            return cursor == null || Keys.compare(key, cursor) > 0;
        }

        private boolean add(String key, Entry entry) {
            if (objects.size() + commonPrefixes.size() == limit) {
                more = true;
                return false;
            }
            if (entry.directory()) {
                commonPrefixes.add(key);
            } else {
                objects.add(HdfsUnderStore.info(key, entry.fileId(), entry.mtime(), entry.length()));
            }
            last = key;
            return true;
        }
    }

    private static int firstAtLeast(List<Entry> children, String key) {
        int low = 0;
        int high = children.size();
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (Keys.compare(children.get(middle).key(), key) < 0) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    /** The directory's listed children in key order; none if it is missing or a file. */
    private List<Entry> children(String dirKey) throws IOException {
        Path dir = dirKey.isEmpty() ? root : new Path(root, dirKey.substring(0, dirKey.length() - 1));
        HdfsFileStatus status;
        try {
            status = fs.getClient().getFileInfo(dir.toUri().getPath());
        } catch (FileNotFoundException e) {
            return List.of();
        }
        if (status == null || !status.isDirectory()) {
            return List.of();
        }
        String src = dir.toUri().getPath();
        synchronized (kept) {
            Sorted sorted = kept.get(src);
            if (sorted != null && sorted.dirId() == status.getFileId() && sorted.dirMtime() == status.getModificationTime()
                    && System.currentTimeMillis() - sorted.readAt() < KEEP_MILLIS) {
                return sorted.entries();
            }
        }
        long readAt = System.currentTimeMillis();
        List<Entry> entries = new ArrayList<>();
        int answers = 0;
        byte[] startAfter = HdfsFileStatus.EMPTY_NAME;
        DirectoryListing listing;
        do {
            try {
                listing = fs.getClient().listPaths(src, startAfter, false);
            } catch (FileNotFoundException e) {
                listing = null;
            }
            if (listing == null) {
                break;  // removed meanwhile: what was read stands
            }
            answers++;
            for (HdfsFileStatus child : listing.getPartialListing()) {
                String name = child.getLocalName();
                if (!name.isEmpty() && !child.isSymlink() && !name.startsWith(Keys.TEMP_PREFIX)
                        && !Keys.reserved(dirKey + name)) {
                    boolean directory = child.isDirectory();
                    entries.add(new Entry(name, directory ? name + "/" : name, directory, child.getFileId(),
                            child.getModificationTime(), child.getLen()));
                }
            }
            startAfter = listing.getLastName();
        } while (listing.hasMore());
        entries.sort(Comparator.comparing(Entry::key, Keys::compare));
        List<Entry> sorted = List.copyOf(entries);
        if (answers > 1 || sorted.size() >= ONE_ANSWER) {
            synchronized (kept) {
                kept.put(src, new Sorted(status.getFileId(), status.getModificationTime(), readAt, sorted));
            }
        }
        return sorted;
    }
}
