package io.granary.ufs;

import java.io.IOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One page of a local listing: a depth-first walk that visits keys in S3 order and stops as soon as the page
 * is full, so memory is one page plus one directory's entries per level, however big the tree. The cursor is
 * the last key or common prefix returned; subtrees wholly before it are skipped without being read.
 *
 * <p>Children of a directory are ordered by their key, a directory's key ending in '/': "a.txt" &lt; "a/" &lt;
 * "a0", exactly where S3 puts "a.txt", "a/x" and "a0". Symlinked files inside the root are listed; symlinks to
 * directories are not followed (a link to an ancestor would loop) and links that leave the root are skipped.
 * In-progress writes and the multipart uploads directory are never listed.
 */
final class LocalLister {

    private record Entry(String key, Path path, boolean directory, BasicFileAttributes attributes) {
    }

    private final Path root;
    private final String prefix;
    private final boolean delimited;
    private final String cursor;
    private final int limit;

    private final List<ObjectInfo> objects = new ArrayList<>();
    private final List<String> commonPrefixes = new ArrayList<>();
    private String last;
    private boolean more;

    LocalLister(Path realRoot, String prefix, boolean delimited, String cursor, int limit) {
        this.root = realRoot;
        this.prefix = prefix;
        this.delimited = delimited;
        this.cursor = cursor == null || cursor.isEmpty() ? null : cursor;
        this.limit = limit;
    }

    ListPage page() throws IOException {
        // Start in the deepest directory the prefix names; its remainder filters that directory's children.
        int slash = prefix.lastIndexOf('/');
        String dirKey = prefix.substring(0, slash + 1);
        walk(root.resolve(dirKey), dirKey, prefix.substring(slash + 1));
        return new ListPage(objects, commonPrefixes, more ? last : null);
    }

    /** @return false once the page is full */
    private boolean walk(Path dir, String dirKey, String namePrefix) throws IOException {
        for (Entry child : children(dir, dirKey, namePrefix)) {
            if (!child.directory()) {
                if (after(child.key()) && !add(child)) {
                    return false;
                }
            } else if (delimited) {
                if (after(child.key()) && !add(child)) {
                    return false;
                }
            } else if ((after(child.key()) || cursor.startsWith(child.key()))
                    && !walk(child.path(), child.key(), "")) {
                return false;
            }
        }
        return true;
    }

    private boolean after(String key) {
        return cursor == null || Keys.compare(key, cursor) > 0;
    }

    private boolean add(Entry entry) {
        if (objects.size() + commonPrefixes.size() == limit) {
            more = true;
            return false;
        }
        if (entry.directory()) {
            commonPrefixes.add(entry.key());
        } else {
            objects.add(LocalUnderStore.info(entry.key(), entry.path(), entry.attributes()));
        }
        last = entry.key();
        return true;
    }

    private List<Entry> children(Path dir, String dirKey, String namePrefix) throws IOException {
        List<Entry> children = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (Path path : stream) {
                String name = path.getFileName().toString();
                if (name.startsWith(namePrefix) && !name.startsWith(Keys.TEMP_PREFIX)
                        && !Keys.reserved(dirKey + name)) {
                    Entry entry = entry(path, dirKey + name);
                    if (entry != null) {
                        children.add(entry);
                    }
                }
            }
        } catch (NoSuchFileException e) {
            return List.of();  // removed while we walked: as if it had never been there
        } catch (DirectoryIteratorException e) {
            throw e.getCause();
        }
        children.sort(Comparator.comparing(Entry::key, Keys::compare));
        return children;
    }

    /** @return null for what is not listed: special files, symlinked directories, links out of the root */
    private Entry entry(Path path, String key) throws IOException {
        try {
            BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            if (attributes.isSymbolicLink()) {
                if (!path.toRealPath().startsWith(root)) {
                    return null;
                }
                attributes = Files.readAttributes(path, BasicFileAttributes.class);
                return attributes.isRegularFile() ? new Entry(key, path, false, attributes) : null;
            }
            if (attributes.isDirectory()) {
                return new Entry(key + "/", path, true, attributes);
            }
            return attributes.isRegularFile() ? new Entry(key, path, false, attributes) : null;
        } catch (NoSuchFileException e) {
            return null;  // deleted since the directory was read, or a dangling symlink
        }
    }
}
