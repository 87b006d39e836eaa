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
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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

    /** Store-specific checks of the object {@link #multipartUploadRoundTrips()} makes of three parts. */
    protected void checkMultipartObject(ObjectInfo info) {
    }

    /**
     * Whether the store knows an upload only by its id and path until it ends, as S3 does: it refuses a part of
     * an upload that is unknown, aborted, completed or for another path, and a second completion, and an abort
     * for another path leaves the upload alone. A test server may be laxer; the store adds no requests to check.
     */
    protected boolean strictUploadIds() {
        return true;
    }

    @Test
    void metadataIsKeptWithTheObjectAndGivenByAStatNotAListing() {
        Map<String, String> metadata = Map.of("content-type", "application/json", "cache-control", "max-age=60",
                "x-amz-meta-purpose", "training", "x-amz-meta-odd", "a b=c;d");
        store().write("meta/put", new ByteArrayInputStream(new byte[] {1}), 1, metadata);
        assertThat(store().stat("meta/put").metadata()).containsAllEntriesOf(metadata);
        assertThat(store().list("meta/", null, null, 10).objects().get(0).metadata()).isEmpty();

        String id = store().startUpload("meta/multipart", metadata);
        String etag = store().uploadPart("meta/multipart", id, 1, new ByteArrayInputStream(new byte[] {2}), 1);
        store().completeUpload("meta/multipart", id, List.of(new UploadedPart(1, etag)));
        assertThat(store().stat("meta/multipart").metadata()).containsAllEntriesOf(metadata);

        store().write("meta/put", new ByteArrayInputStream(new byte[] {3}), 1);
        assertThat(store().stat("meta/put").metadata()).as("a rewrite without metadata has none of the old")
                .doesNotContainKeys("x-amz-meta-purpose", "cache-control");
    }

    @Test
    void metadataIsReplacedWithoutTouchingTheBytesIfTheVersionIsStillTheOneAskedFor() {
        byte[] content = "kept bytes".getBytes(StandardCharsets.UTF_8);
        ObjectInfo written = store().write("replace/obj", new ByteArrayInputStream(content), content.length,
                Map.of("content-type", "text/plain", "x-amz-meta-a", "1"));
        ObjectInfo replaced = store().replaceMetadata("replace/obj", written.etag(),
                Map.of("content-type", "text/csv", "x-amz-meta-b", "2"));
        assertThat(replaced.etag()).as("a single-part object keeps its MD5").isEqualTo(written.etag());
        assertThat(store().stat("replace/obj").metadata()).containsEntry("content-type", "text/csv")
                .containsEntry("x-amz-meta-b", "2").doesNotContainKey("x-amz-meta-a");
        assertThat(readAll("replace/obj", 0, -1)).isEqualTo(content);

        assertThatThrownBy(() -> store().replaceMetadata("replace/obj", "0123456789abcdef0123456789abcdef", Map.of()))
                .isInstanceOf(ObjectChangedException.class);
        assertThatThrownBy(() -> store().replaceMetadata("replace/missing", written.etag(), Map.of()))
                .isInstanceOf(ObjectNotFoundException.class);
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

    // --- multipart uploads ---

    @Test
    void multipartUploadRoundTrips() {
        byte[] one = random(5 * MIB, 21);
        byte[] two = random(5 * MIB, 22);
        byte[] three = random(MIB + 17, 23);
        String id = store().startUpload("mpu/round/blob");
        assertThat(id).as("URL-safe").matches("[A-Za-z0-9._~-]+");

        // In any order: each part may come through another gateway replica.
        String etag3 = part("mpu/round/blob", id, 3, three);
        String etag1 = part("mpu/round/blob", id, 1, one);
        String etag2 = part("mpu/round/blob", id, 2, two);
        assertThat(List.of(etag1, etag2, etag3)).containsExactly(md5(one), md5(two), md5(three));
        ObjectInfo info = store().completeUpload("mpu/round/blob", id, List.of(new UploadedPart(1, etag1),
                new UploadedPart(2, "\"" + etag2 + "\""), new UploadedPart(3, etag3)));

        assertThat(info.path()).isEqualTo("mpu/round/blob");
        assertThat(info.size()).isEqualTo(11L * MIB + 17);
        assertThat(info.etag()).isNotBlank().doesNotContain("\"");
        assertThat(store().stat("mpu/round/blob")).isEqualTo(info);
        checkMultipartObject(info);
        assertThat(readAll("mpu/round/blob", 0, -1)).isEqualTo(concat(one, two, three));
        assertThat(readAll("mpu/round/blob", 5L * MIB - 3, 6)).as("across a part boundary")
                .isEqualTo(Arrays.copyOfRange(concat(one, two), 5 * MIB - 3, 5 * MIB + 3));

        if (strictUploadIds()) {
            assertThatThrownBy(() -> part("mpu/round/blob", id, 4, new byte[1])).as("a completed upload is gone")
                    .isInstanceOf(UploadNotFoundException.class);
            assertThatThrownBy(() -> store().completeUpload("mpu/round/blob", id, List.of(new UploadedPart(1, etag1))))
                    .isInstanceOf(UploadNotFoundException.class);
        }
    }

    @Test
    void partsAreInvisibleUntilTheUploadCompletes() {
        write("mpu/hidden/x", "old".getBytes(StandardCharsets.UTF_8));
        String id = store().startUpload("mpu/hidden/x");
        String etag1 = part("mpu/hidden/x", id, 1, random(5 * MIB, 24));
        String etag2 = part("mpu/hidden/y", store().startUpload("mpu/hidden/y"), 1, new byte[] {1, 2, 3});

        assertThat(store().stat("mpu/hidden/x").size()).as("still the old object").isEqualTo(3);
        assertThat(readAll("mpu/hidden/x", 0, -1)).asString(StandardCharsets.UTF_8).isEqualTo("old");
        assertThatThrownBy(() -> store().stat("mpu/hidden/y")).isInstanceOf(ObjectNotFoundException.class);
        assertThat(store().list("mpu/hidden/", null, null, 100).objects()).extracting(ObjectInfo::path)
                .containsExactly("mpu/hidden/x");
        assertThat(store().list("mpu/", "/", null, 100).commonPrefixes()).contains("mpu/hidden/");
        assertThat(store().list("", "/", null, 1000).commonPrefixes()).noneMatch(prefix -> prefix.startsWith("."));
        List<String> everything = listAll("", null, 1000).stream()
                .flatMap(page -> page.objects().stream()).map(ObjectInfo::path).toList();
        assertThat(everything).contains("mpu/hidden/x").doesNotContain("mpu/hidden/y")
                .noneMatch(key -> key.contains(id) || key.contains("granary-upload"));

        ObjectInfo info = store().completeUpload("mpu/hidden/x", id, List.of(new UploadedPart(1, etag1)));
        assertThat(store().stat("mpu/hidden/x")).isEqualTo(info);
        assertThat(info.size()).isEqualTo(5 * MIB);
        assertThat(etag2).isEqualTo(md5(new byte[] {1, 2, 3}));
    }

    @Test
    void aResentPartWins() {
        byte[] first = random(5 * MIB, 25);
        byte[] second = random(5 * MIB, 26);
        byte[] tail = random(100, 27);
        String id = store().startUpload("mpu/resent/x");
        String etagFirst = part("mpu/resent/x", id, 1, first);
        String etagTail = part("mpu/resent/x", id, 2, tail);
        String etagSecond = part("mpu/resent/x", id, 1, second);
        assertThat(etagSecond).isNotEqualTo(etagFirst);

        assertThatThrownBy(() -> store().completeUpload("mpu/resent/x", id,
                List.of(new UploadedPart(1, etagFirst), new UploadedPart(2, etagTail))))
                .as("the first version is gone").isInstanceOf(InvalidPartException.class)
                .extracting(e -> ((InvalidPartException) e).reason()).isEqualTo(InvalidPartException.Reason.INVALID_PART);
        store().completeUpload("mpu/resent/x", id, List.of(new UploadedPart(1, etagSecond), new UploadedPart(2, etagTail)));

        assertThat(readAll("mpu/resent/x", 0, -1)).isEqualTo(concat(second, tail));
    }

    @Test
    void anAbortedUploadIsGone() {
        String id = store().startUpload("mpu/abort/x");
        String etag = part("mpu/abort/x", id, 1, random(1000, 28));
        store().abortUpload("mpu/abort/x", id);

        assertThatThrownBy(() -> store().completeUpload("mpu/abort/x", id, List.of(new UploadedPart(1, etag))))
                .isInstanceOf(UploadNotFoundException.class);
        if (strictUploadIds()) {
            assertThatThrownBy(() -> part("mpu/abort/x", id, 2, new byte[1])).isInstanceOf(UploadNotFoundException.class);
        }
        store().abortUpload("mpu/abort/x", id);  // again: not an error
        assertThatThrownBy(() -> store().stat("mpu/abort/x")).isInstanceOf(ObjectNotFoundException.class);
        assertThat(store().list("mpu/abort/", null, null, 10).objects()).isEmpty();
    }

    @Test
    void anUploadIsKnownOnlyWithItsOwnPath() {
        String id = store().startUpload("mpu/own/x");
        String etag = part("mpu/own/x", id, 1, new byte[] {1});

        if (strictUploadIds()) {
            assertThatThrownBy(() -> part("mpu/own/y", id, 1, new byte[] {2})).isInstanceOf(UploadNotFoundException.class);
            assertThatThrownBy(() -> store().completeUpload("mpu/own/y", id, List.of(new UploadedPart(1, etag))))
                    .isInstanceOf(UploadNotFoundException.class);
            store().abortUpload("mpu/own/y", id);  // an upload unknown there: no error, and nothing happens
        }
        assertThatThrownBy(() -> store().stat("mpu/own/y")).isInstanceOf(ObjectNotFoundException.class);

        store().completeUpload("mpu/own/x", id, List.of(new UploadedPart(1, etag)));
        assertThat(readAll("mpu/own/x", 0, -1)).containsExactly(1);
    }

    @Test
    void unknownUploadIds() {
        for (String bogus : List.of("no-such-upload", "00000000-0000-0000-0000-000000000000")) {
            if (strictUploadIds()) {
                assertThatThrownBy(() -> part("mpu/unknown/x", bogus, 1, new byte[1]))
                        .isInstanceOf(UploadNotFoundException.class);
            }
            assertThatThrownBy(() -> store().completeUpload("mpu/unknown/x", bogus, List.of(new UploadedPart(1, "x"))))
                    .isInstanceOf(UploadNotFoundException.class);
            store().abortUpload("mpu/unknown/x", bogus);
        }
        assertThatThrownBy(() -> part("mpu/unknown/x", "", 1, new byte[1])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aWrongEtagOrAMissingPartIsInvalidPart() {
        String id = store().startUpload("mpu/wrong/x");
        String etag1 = part("mpu/wrong/x", id, 1, random(5 * MIB, 29));
        String etag2 = part("mpu/wrong/x", id, 2, random(10, 30));

        assertInvalid(id, InvalidPartException.Reason.INVALID_PART, "mpu/wrong/x",
                new UploadedPart(1, etag1), new UploadedPart(2, "0123456789abcdef0123456789abcdef"));
        assertInvalid(id, InvalidPartException.Reason.INVALID_PART, "mpu/wrong/x",
                new UploadedPart(1, etag1), new UploadedPart(3, etag2));
        assertThatThrownBy(() -> store().stat("mpu/wrong/x")).isInstanceOf(ObjectNotFoundException.class);

        ObjectInfo info = store().completeUpload("mpu/wrong/x", id,
                List.of(new UploadedPart(1, etag1), new UploadedPart(2, etag2)));
        assertThat(info.size()).as("a failed completion keeps the upload").isEqualTo(5 * MIB + 10);
    }

    @Test
    void everyPartButTheLastHoldsFiveMiB() {
        byte[] small = random(10, 33);
        String id = store().startUpload("mpu/small/x");
        String etag1 = part("mpu/small/x", id, 1, random((int) UnderStore.MIN_PART_SIZE - 1, 32));
        String etag2 = part("mpu/small/x", id, 2, small);

        assertInvalid(id, InvalidPartException.Reason.ENTITY_TOO_SMALL, "mpu/small/x",
                new UploadedPart(1, etag1), new UploadedPart(2, etag2));
        assertThatThrownBy(() -> store().stat("mpu/small/x")).isInstanceOf(ObjectNotFoundException.class);

        store().completeUpload("mpu/small/x", id, List.of(new UploadedPart(2, etag2)));
        assertThat(readAll("mpu/small/x", 0, -1)).as("a lone part is the last one").isEqualTo(small);
    }

    @Test
    void partsOutOfOrderAreRefused() {
        String id = store().startUpload("mpu/order/x");
        String etag1 = part("mpu/order/x", id, 1, random(5 * MIB, 34));
        String etag2 = part("mpu/order/x", id, 2, random(10, 35));

        assertInvalid(id, InvalidPartException.Reason.INVALID_PART_ORDER, "mpu/order/x",
                new UploadedPart(2, etag2), new UploadedPart(1, etag1));
        assertInvalid(id, InvalidPartException.Reason.INVALID_PART_ORDER, "mpu/order/x",
                new UploadedPart(1, etag1), new UploadedPart(1, etag1), new UploadedPart(2, etag2));
        assertThatThrownBy(() -> store().stat("mpu/order/x")).isInstanceOf(ObjectNotFoundException.class);

        assertThat(store().completeUpload("mpu/order/x", id,
                List.of(new UploadedPart(1, etag1), new UploadedPart(2, etag2))).size()).isEqualTo(5 * MIB + 10);
    }

    @Test
    void aPartOfAnotherSizeThanAnnouncedIsNotStored() {
        String id = store().startUpload("mpu/size/x");
        String etag2 = part("mpu/size/x", id, 2, new byte[] {2});
        assertThatThrownBy(() -> store().uploadPart("mpu/size/x", id, 1, new ByteArrayInputStream(new byte[5]), 10))
                .isInstanceOf(UnderStoreException.class).hasMessageContaining("expected 10");
        assertThatThrownBy(() -> store().uploadPart("mpu/size/x", id, 1, new ByteArrayInputStream(new byte[20]), 10))
                .isInstanceOf(UnderStoreException.class).hasMessageContaining("expected 10");
        assertThatThrownBy(() -> part("mpu/size/x", id, 0, new byte[1])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> part("mpu/size/x", id, UnderStore.MAX_PART_NUMBER + 1, new byte[1]))
                .isInstanceOf(IllegalArgumentException.class);

        assertInvalid(id, InvalidPartException.Reason.INVALID_PART, "mpu/size/x",
                new UploadedPart(1, md5(new byte[10])), new UploadedPart(2, etag2));
        String etag = part("mpu/size/x", id, 1, new byte[0]);
        assertThat(store().completeUpload("mpu/size/x", id, List.of(new UploadedPart(1, etag))).size())
                .as("an empty last part is fine").isZero();
    }

    @Test
    void uploadTraversalIsRefused() {
        String id = store().startUpload("mpu/trav/x");
        assertThatThrownBy(() -> store().startUpload("../x")).isInstanceOf(PathOutsideMountException.class);
        assertThatThrownBy(() -> part("mpu/../../x", id, 1, new byte[1])).isInstanceOf(PathOutsideMountException.class);
        assertThatThrownBy(() -> store().completeUpload("a/../../x", id, List.of(new UploadedPart(1, "x"))))
                .isInstanceOf(PathOutsideMountException.class);
        assertThatThrownBy(() -> store().abortUpload("../x", id)).isInstanceOf(PathOutsideMountException.class);
        store().abortUpload("mpu/trav/x", id);
    }

    // --- helpers ---

    ObjectInfo write(String path, byte[] content) {
        return store().write(path, new ByteArrayInputStream(content), content.length);
    }

    String part(String path, String uploadId, int partNumber, byte[] content) {
        return store().uploadPart(path, uploadId, partNumber, new ByteArrayInputStream(content), content.length);
    }

    private void assertInvalid(String uploadId, InvalidPartException.Reason reason, String path, UploadedPart... parts) {
        assertThatThrownBy(() -> store().completeUpload(path, uploadId, List.of(parts)))
                .isInstanceOf(InvalidPartException.class).hasMessageContaining(path)
                .extracting(e -> ((InvalidPartException) e).reason()).isEqualTo(reason);
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

    /** Eight writers at once (stores are thread-safe): a store whose writes wait on a server is not slowed 2,500-fold. */
    private void writeTree() {
        if (!treeWritten) {
            ExecutorService writers = Executors.newFixedThreadPool(8);
            try {
                List<Future<?>> writes = new ArrayList<>();
                for (String key : treeKeys()) {
                    writes.add(writers.submit(() -> seed(key, key.getBytes(StandardCharsets.UTF_8))));
                }
                for (Future<?> write : writes) {
                    write.get();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (ExecutionException e) {
                throw new IllegalStateException("seeding the tree failed", e.getCause());
            } finally {
                writers.shutdownNow();
            }
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
