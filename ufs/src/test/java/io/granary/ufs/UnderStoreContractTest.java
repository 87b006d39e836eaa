package io.granary.ufs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What every under-store must do alike, run against each implementation. Tests share one store per class, so
 * each works under its own top-level directory; the 2,500-object tree is written once, on first use.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class UnderStoreContractTest {

    static final int MIB = 1 << 20;
    private static final int DIRS = 20;
    private static final int FILES_PER_DIR = 120;
    private static final int LOOSE_PER_DIR = 4;

    private boolean treeWritten;

    protected abstract UnderStore store();

    /** Puts a fixture object in place; stores with a faster way than {@link UnderStore#write} may override. */
    protected void seed(String key, byte[] content) {
        store().write(key, new ByteArrayInputStream(content), content.length);
    }

    /** Store-specific checks of the 40 MiB object of {@link #largeStreamedWriteRoundTrips()}. */
    protected void checkLargeWrite(ObjectInfo info) {
    }

    @Test
    void writeThenStat() {
        Instant before = Instant.now().minusSeconds(2);
        byte[] content = "hello, granary".getBytes(StandardCharsets.UTF_8);
        ObjectInfo written = store().write("ws/hello.txt", new ByteArrayInputStream(content), content.length);
        Instant after = Instant.now().plusSeconds(2);

        ObjectInfo info = store().stat("ws/hello.txt");
        assertThat(info).isEqualTo(written);
        assertThat(info.path()).isEqualTo("ws/hello.txt");
        assertThat(info.size()).isEqualTo(content.length);
        assertThat(info.mtime()).isBetween(before, after);
        assertThat(info.etag()).isNotBlank().doesNotContain("\"");
        assertThat(store().stat("ws/hello.txt").etag()).as("etag is stable").isEqualTo(info.etag());
        assertThat(readAll("ws/hello.txt", 0, -1)).isEqualTo(content);
    }

    @Test
    void rewriteChangesTheEtag() {
        ObjectInfo first = write("rw/x", "aaaa".getBytes(StandardCharsets.UTF_8));
        ObjectInfo sameSize = write("rw/x", "bbbb".getBytes(StandardCharsets.UTF_8));
        ObjectInfo longer = write("rw/x", "ccccc".getBytes(StandardCharsets.UTF_8));

        assertThat(Stream.of(first, sameSize, longer).map(ObjectInfo::etag).distinct()).hasSize(3);
        assertThat(readAll("rw/x", 0, -1)).asString(StandardCharsets.UTF_8).isEqualTo("ccccc");
    }

    @Test
    void readOfOneVersionRefusesAnother() throws IOException {
        ObjectInfo first = write("ver/x", "version one".getBytes(StandardCharsets.UTF_8));
        try (InputStream in = store().read("ver/x", first.etag(), 8, 3)) {
            assertThat(in.readAllBytes()).asString(StandardCharsets.UTF_8).isEqualTo("one");
        }
        ObjectInfo second = write("ver/x", "version two".getBytes(StandardCharsets.UTF_8));

        assertThatThrownBy(() -> store().read("ver/x", first.etag(), 0, 4).close())
                .isInstanceOf(ObjectChangedException.class).hasMessageContaining("ver/x");
        assertThatThrownBy(() -> store().read("ver/x", first.etag(), 100, 4).close())
                .as("past the end too").isInstanceOf(ObjectChangedException.class);
        try (InputStream in = store().read("ver/x", second.etag(), 8, -1)) {
            assertThat(in.readAllBytes()).asString(StandardCharsets.UTF_8).isEqualTo("two");
        }
        assertThatThrownBy(() -> store().read("ver/none", first.etag(), 0, 1))
                .isInstanceOf(ObjectNotFoundException.class);
    }

    @Test
    void writeOfUnknownSize() {
        byte[] content = "size not told".getBytes(StandardCharsets.UTF_8);
        ObjectInfo info = store().write("unknown/size", new ByteArrayInputStream(content), -1);

        assertThat(info.size()).isEqualTo(content.length);
        assertThat(readAll("unknown/size", 0, -1)).isEqualTo(content);
    }

    @Test
    void emptyObject() {
        ObjectInfo info = write("empty/x", new byte[0]);

        assertThat(info.size()).isZero();
        assertThat(readAll("empty/x", 0, -1)).isEmpty();
        assertThat(readAll("empty/x", 0, 10)).isEmpty();
    }

    @Test
    void aFailedWriteKeepsTheOldObject() {
        write("failed/x", "old".getBytes(StandardCharsets.UTF_8));
        InputStream broken = new SequenceInputStream(new ByteArrayInputStream(new byte[1000]), new InputStream() {
            @Override
            public int read() throws IOException {
                throw new IOException("client went away");
            }
        });

        assertThatThrownBy(() -> store().write("failed/x", new ByteArrayInputStream(new byte[2]), 10))
                .as("shorter than announced").isInstanceOf(UnderStoreException.class);
        assertThatThrownBy(() -> store().write("failed/x", broken, -1)).isInstanceOf(UnderStoreException.class)
                .isNotInstanceOf(UnderStoreUnavailableException.class).hasMessageContaining("client went away");
        assertThat(readAll("failed/x", 0, -1)).asString(StandardCharsets.UTF_8).isEqualTo("old");
        assertThat(store().list("failed/", null, null, 10).objects()).hasSize(1);
    }

    @Test
    void rangedReadsAtBlockBoundaries() {
        int size = 3 * MIB + MIB / 2;
        byte[] content = random(size, 7);
        write("ranges/blob", content);

        assertRange(content, 0, MIB);
        assertRange(content, MIB - 1, 2);
        assertRange(content, MIB - 1, MIB + 2);
        assertRange(content, MIB, MIB);
        assertRange(content, MIB + 1, 10);
        assertRange(content, 3L * MIB, MIB);           // the last, partial block: half a MiB comes back
        assertRange(content, size - 1, -1);
        assertRange(content, MIB + 1, -1);
        assertRange(content, 0, -1);
        assertThat(readAll("ranges/blob", size, 10)).as("at the end").isEmpty();
        assertThat(readAll("ranges/blob", 5, 0)).as("empty range").isEmpty();
    }

    @Test
    void flatListingPagesThroughTheWholeTree() {
        writeTree();
        List<ListPage> pages = listAll("tree/", null, 1000);

        assertThat(pages).hasSize(3);
        assertThat(pages).extracting(page -> page.objects().size()).containsExactly(1000, 1000, 500);
        assertThat(pages).allSatisfy(page -> assertThat(page.commonPrefixes()).isEmpty());
        List<String> keys = pages.stream().flatMap(page -> page.objects().stream()).map(ObjectInfo::path).toList();
        assertThat(keys).doesNotHaveDuplicates().isSorted().containsExactlyInAnyOrderElementsOf(treeKeys());
        assertThat(pages.get(0).objects().get(0).size()).isEqualTo("tree/a00-0".length());
    }

    @Test
    void delimitedListingPagesThroughPrefixesAndObjects() {
        writeTree();
        List<ListPage> pages = listAll("tree/", "/", 7);

        assertThat(pages).hasSize(15);  // 80 loose objects and 20 directories, 7 at a time
        List<String> expected = new ArrayList<>();
        for (int d = 0; d < DIRS; d++) {
            for (int j = 0; j < LOOSE_PER_DIR; j++) {
                expected.add("tree/a%02d-%d".formatted(d, j));
            }
            expected.add("tree/a%02d/".formatted(d));
        }
        assertThat(entries(pages)).containsExactlyElementsOf(expected);
    }

    @Test
    void delimitedListingOfOneDirectory() {
        writeTree();
        List<ListPage> pages = listAll("tree/a03/", "/", 50);

        assertThat(pages).extracting(page -> page.objects().size() + page.commonPrefixes().size())
                .containsExactly(50, 50, 21);
        List<String> entries = entries(pages);
        assertThat(entries).hasSize(FILES_PER_DIR + 1).doesNotHaveDuplicates()
                .startsWith("tree/a03/f000").endsWith("tree/a03/f119", "tree/a03/sub/");
        assertThat(pages.get(2).commonPrefixes()).containsExactly("tree/a03/sub/");
    }

    @Test
    void delimitedListingWithAPartialName() {
        writeTree();
        ListPage page = store().list("tree/a1", "/", null, 1000);

        assertThat(page.nextCursor()).isNull();
        assertThat(page.objects()).hasSize(10 * LOOSE_PER_DIR);
        assertThat(page.commonPrefixes()).hasSize(10).first().isEqualTo("tree/a10/");
        assertThat(page.objects()).extracting(ObjectInfo::path).allMatch(key -> key.startsWith("tree/a1"));
    }

    @Test
    void flatListingUnderAPrefixIsRecursive() {
        writeTree();
        ListPage page = store().list("tree/a05/", null, null, 1000);

        assertThat(page.nextCursor()).isNull();
        assertThat(page.objects()).hasSize(FILES_PER_DIR + 1).last()
                .extracting(ObjectInfo::path).isEqualTo("tree/a05/sub/deep");
        assertThat(store().list("no-such-prefix/", "/", null, 10)).isEqualTo(new ListPage(List.of(), List.of(), null));
    }

    @Test
    void missingObjectIsNotFound() {
        write("present/dir/file", new byte[] {1});

        assertThatThrownBy(() -> store().stat("present/missing")).isInstanceOf(ObjectNotFoundException.class)
                .hasMessageContaining("present/missing");
        assertThatThrownBy(() -> store().read("present/missing", 0, -1)).isInstanceOf(ObjectNotFoundException.class);
        assertThatThrownBy(() -> store().read("present/missing", 10, 5)).isInstanceOf(ObjectNotFoundException.class);
        assertThatThrownBy(() -> store().stat("present/dir")).as("a directory is not an object")
                .isInstanceOf(ObjectNotFoundException.class);
    }

    @Test
    void traversalIsRefused() {
        byte[] one = {1};
        assertThatThrownBy(() -> store().stat("../x")).isInstanceOf(PathOutsideMountException.class);
        assertThatThrownBy(() -> store().read("a/../../x", 0, -1)).isInstanceOf(PathOutsideMountException.class);
        assertThatThrownBy(() -> store().write("../x", new ByteArrayInputStream(one), 1))
                .isInstanceOf(PathOutsideMountException.class);
        assertThatThrownBy(() -> store().delete("a/../../x")).isInstanceOf(PathOutsideMountException.class);
        assertThatThrownBy(() -> store().list("../", "/", null, 10)).isInstanceOf(PathOutsideMountException.class);
    }

    @Test
    void pathsAreNormalised() {
        write("/norm//a.txt", new byte[] {1, 2});

        assertThat(store().stat("norm/a.txt").path()).isEqualTo("norm/a.txt");
        assertThat(store().stat("/norm/./a.txt").size()).isEqualTo(2);
        assertThat(store().list("/norm/", "/", null, 10).objects()).extracting(ObjectInfo::path)
                .containsExactly("norm/a.txt");
    }

    @Test
    void keysWithSpacesAndUnicodeRoundTrip() {
        String key = "odd/a b+c%20 ü€😀 #?&=.txt";
        write(key, new byte[] {1, 2, 3});

        assertThat(store().stat(key).size()).isEqualTo(3);
        assertThat(store().list("odd/", "/", null, 10).objects()).extracting(ObjectInfo::path).containsExactly(key);
        assertThat(store().list("odd/a b", null, null, 10).objects()).hasSize(1);
    }

    @Test
    void largeStreamedWriteRoundTrips() throws IOException {
        byte[] content = random(40 * MIB, 11);
        ObjectInfo info = store().write("large/blob", new ByteArrayInputStream(content), -1);

        assertThat(info.size()).isEqualTo(content.length);
        assertThat(store().stat("large/blob")).isEqualTo(info);
        checkLargeWrite(info);
        try (InputStream in = store().read("large/blob", 0, -1)) {
            assertThat(sha256(in)).isEqualTo(sha256(new ByteArrayInputStream(content)));
        }
    }

    @Test
    void deleteThenStatIsNotFound() {
        write("gone/deep/x", new byte[] {1});
        store().delete("gone/deep/x");

        assertThatThrownBy(() -> store().stat("gone/deep/x")).isInstanceOf(ObjectNotFoundException.class);
        store().delete("gone/deep/x");  // deleting what is not there is fine
        assertThat(store().list("gone/", null, null, 10).objects()).isEmpty();
        assertThat(store().list("", "/", null, 1000).commonPrefixes()).as("no empty directory left behind")
                .doesNotContain("gone/");
    }

    @Test
    void probeSucceeds() {
        store().probe();
    }

    // --- helpers ---

    ObjectInfo write(String path, byte[] content) {
        return store().write(path, new ByteArrayInputStream(content), content.length);
    }

    String part(String path, String uploadId, int partNumber, byte[] content) {
        return store().uploadPart(path, uploadId, partNumber, new ByteArrayInputStream(content), content.length);
    }

    static String md5(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] concat(byte[]... arrays) {
        byte[] all = new byte[Arrays.stream(arrays).mapToInt(a -> a.length).sum()];
        int at = 0;
        for (byte[] array : arrays) {
            System.arraycopy(array, 0, all, at, array.length);
            at += array.length;
        }
        return all;
    }

    byte[] readAll(String path, long offset, long length) {
        try (InputStream in = store().read(path, offset, length)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] random(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private void assertRange(byte[] content, long offset, long length) {
        int end = length < 0 ? content.length : (int) Math.min(content.length, offset + length);
        assertThat(readAll("ranges/blob", offset, length)).as("offset %d length %d", offset, length)
                .isEqualTo(Arrays.copyOfRange(content, (int) offset, end));
    }

    /** All pages of a listing, checking the paging rules on the way. */
    private List<ListPage> listAll(String prefix, String delimiter, int limit) {
        List<ListPage> pages = new ArrayList<>();
        Set<String> cursors = new HashSet<>();
        String cursor = null;
        do {
            ListPage page = store().list(prefix, delimiter, cursor, limit);
            assertThat(page.objects().size() + page.commonPrefixes().size()).isBetween(1, limit);
            pages.add(page);
            cursor = page.nextCursor();
            assertThat(cursor == null || cursors.add(cursor)).as("cursor %s repeats", cursor).isTrue();
        } while (cursor != null && pages.size() < 1000);
        return pages;
    }

    /** Objects and common prefixes of all pages in one list, checked to be strictly increasing. */
    private static List<String> entries(List<ListPage> pages) {
        List<String> entries = new ArrayList<>();
        for (ListPage page : pages) {
            List<String> onPage = new ArrayList<>(page.commonPrefixes());
            page.objects().forEach(object -> onPage.add(object.path()));
            onPage.sort(Keys::compare);
            entries.addAll(onPage);
        }
        for (int i = 1; i < entries.size(); i++) {
            assertThat(Keys.compare(entries.get(i - 1), entries.get(i))).as("order at %d", i).isNegative();
        }
        return entries;
    }

    private void writeTree() {
        if (!treeWritten) {
            treeKeys().forEach(key -> seed(key, key.getBytes(StandardCharsets.UTF_8)));
            treeWritten = true;
        }
    }

    /** 2,500 keys: 20 directories of 120 files and a nested one each, and loose files sorting between them. */
    private static List<String> treeKeys() {
        List<String> keys = new ArrayList<>();
        for (int d = 0; d < DIRS; d++) {
            for (int f = 0; f < FILES_PER_DIR; f++) {
                keys.add("tree/a%02d/f%03d".formatted(d, f));
            }
            keys.add("tree/a%02d/sub/deep".formatted(d));
            for (int j = 0; j < LOOSE_PER_DIR; j++) {
                keys.add("tree/a%02d-%d".formatted(d, j));  // '-' sorts before '/': between the directories
            }
        }
        return keys;
    }

    private static String sha256(InputStream in) throws IOException {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
