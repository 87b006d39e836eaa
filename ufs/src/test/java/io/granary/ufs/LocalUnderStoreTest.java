package io.granary.ufs;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LocalUnderStoreTest extends UnderStoreContractTest {

    @TempDir
    static Path dir;

    private static LocalUnderStore store;
    private static Path outside;

    @BeforeAll
    static void open() throws IOException {
        Path root = Files.createDirectories(dir.resolve("root"));
        outside = Files.createDirectories(dir.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "not yours");
        store = new LocalUnderStore(root);
    }

    @Override
    protected UnderStore store() {
        return store;
    }

    @Test
    void symlinksOutOfTheRootAreRefused() throws IOException {
        Path root = store.root();
        Files.createDirectories(root.resolve("links"));
        Files.createSymbolicLink(root.resolve("links/out"), outside);
        Files.createSymbolicLink(root.resolve("links/passwd"), outside.resolve("secret.txt"));
        Files.writeString(root.resolve("links/real.txt"), "inside");
        Files.createSymbolicLink(root.resolve("links/alias.txt"), root.resolve("links/real.txt"));

        assertThatThrownBy(() -> store.stat("links/passwd")).isInstanceOf(PathOutsideMountException.class);
        assertThatThrownBy(() -> store.read("links/out/secret.txt", 0, -1))
                .isInstanceOf(PathOutsideMountException.class);
        assertThatThrownBy(() -> store.write("links/out/planted.txt", new ByteArrayInputStream(new byte[1]), 1))
                .isInstanceOf(PathOutsideMountException.class);
        assertThatThrownBy(() -> store.write("links/out/new/planted.txt", new ByteArrayInputStream(new byte[1]), 1))
                .isInstanceOf(PathOutsideMountException.class);
        assertThatThrownBy(() -> store.list("links/out/", "/", null, 10))
                .isInstanceOf(PathOutsideMountException.class);
        assertThat(outside.resolve("planted.txt")).doesNotExist();
        assertThat(outside.resolve("new")).doesNotExist();

        assertThat(store.stat("links/alias.txt").size()).as("a link inside the root is fine").isEqualTo(6);
        assertThat(store.list("links/", null, null, 10).objects()).extracting(ObjectInfo::path)
                .containsExactly("links/alias.txt", "links/real.txt");
    }

    @Test
    void inProgressWritesAreNotListed() throws IOException {
        write("tmp/done.txt", new byte[] {1});
        Files.writeString(store.root().resolve("tmp").resolve(Keys.TEMP_PREFIX + "123"), "partial");

        assertThat(store.list("tmp/", "/", null, 10).objects()).extracting(ObjectInfo::path)
                .containsExactly("tmp/done.txt");
    }

    @Test
    void writesLeaveNoTempFilesAndKeepTheUmask() throws IOException {
        write("perm/file", "x".getBytes(StandardCharsets.UTF_8));

        try (var files = Files.list(store.root().resolve("perm"))) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("file");
        }
        Path reference = Files.createFile(dir.resolve("reference"));
        assertThat(Files.getPosixFilePermissions(store.root().resolve("perm/file")))
                .isEqualTo(Files.getPosixFilePermissions(reference));
    }

    @Test
    void granarysOwnStateBesideTheDataIsNeverServed() throws IOException {
        // ./granary up keeps its S3 keys and secrets in <data>/.granary, and ./data may be mounted as a dataset.
        Path keys = Files.createDirectories(store.root().resolve(Keys.STATE_DIR)).resolve("s3-keys");
        Files.writeString(keys, "AWS_SECRET_ACCESS_KEY=secret");
        assertThatThrownBy(() -> store.stat(".granary/s3-keys")).isInstanceOf(ObjectNotFoundException.class);
        assertThatThrownBy(() -> store.read(".Granary/s3-keys", 0, -1)).isInstanceOf(ObjectNotFoundException.class);
        assertThat(store.list("", null, null, 1000).objects()).noneMatch(o -> o.path().startsWith(".granary"));
        assertThat(store.list(".granary/", null, null, 10).objects()).isEmpty();
        assertThatThrownBy(() -> store.write(".granary/s3-keys", new ByteArrayInputStream(new byte[1]), 1))
                .isInstanceOf(PathOutsideMountException.class);
        store.delete(".granary/s3-keys");
        assertThat(keys).exists();
    }

    @Test
    void uploadsInProgressAreNotPartOfTheMount() throws Exception {
        String id = store.startUpload("staged/x");
        String etag = part("staged/x", id, 1, new byte[] {1, 2, 3});
        Path uploads = store.root().resolve(Keys.UPLOADS_DIR);
        assertThat(uploads.resolve(id).resolve("1")).hasBinaryContent(new byte[] {1, 2, 3});
        String staged = Keys.UPLOADS_DIR + "/" + id + "/1";
        ListPage empty = new ListPage(List.of(), List.of(), null);

        assertThatThrownBy(() -> store.stat(staged)).isInstanceOf(ObjectNotFoundException.class);
        assertThatThrownBy(() -> store.stat(".GRANARY-uploads/" + id + "/1")).isInstanceOf(ObjectNotFoundException.class);
        assertThatThrownBy(() -> store.read(staged, 0, -1)).isInstanceOf(ObjectNotFoundException.class);
        assertThatThrownBy(() -> store.read("/./" + staged, "any", 0, 1)).isInstanceOf(ObjectNotFoundException.class);
        assertThat(store.list(Keys.UPLOADS_DIR + "/", null, null, 10)).isEqualTo(empty);
        assertThat(store.list(Keys.UPLOADS_DIR + "/" + id + "/", "/", null, 10)).isEqualTo(empty);
        assertThat(store.list(Keys.UPLOADS_DIR, "/", null, 10)).isEqualTo(empty);
        assertThat(store.list(".granary", null, null, 10)).isEqualTo(empty);
        assertThat(store.list("", "/", null, 1000).commonPrefixes()).isNotEmpty().noneMatch(p -> p.startsWith("."));
        assertThatThrownBy(() -> store.write(staged, new ByteArrayInputStream(new byte[1]), 1))
                .isInstanceOf(PathOutsideMountException.class);
        assertThatThrownBy(() -> store.startUpload(Keys.UPLOADS_DIR + "/y"))
                .isInstanceOf(PathOutsideMountException.class);
        store.delete(staged);
        assertThat(uploads.resolve(id).resolve("1")).as("a delete there does nothing").exists();

        ObjectInfo info = store.completeUpload("staged/x", id, List.of(new UploadedPart(1, etag)));
        assertThat(uploads.resolve(id)).as("the staging directory goes with the upload").doesNotExist();
        try (Stream<Path> left = Files.list(uploads)) {
            assertThat(left.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith(Keys.TEMP_PREFIX));
        }
        assertThat(info.etag()).as("S3's multipart etag: the MD5 of the parts' MD5s, then their count")
                .isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(HexFormat.of().parseHex(etag)))
                        + "-1");
    }

    @Test
    void etagsMeanWhatS3ClientsTakeThemFor() throws Exception {
        byte[] bytes = "the content".getBytes(StandardCharsets.UTF_8);
        String md5 = HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));
        assertThat(store.write("etags/written", new ByteArrayInputStream(bytes), bytes.length).etag())
                .as("a write's etag is the MD5 of its bytes").isEqualTo(md5);
        assertThat(store.stat("etags/written").etag()).isEqualTo(md5);
        assertThat(store.list("etags/", null, null, 10).objects()).extracting(ObjectInfo::etag).containsExactly(md5);

        Path placed = store.root().resolve("etags/placed");
        Files.write(placed, bytes);
        String tag = store.stat("etags/placed").etag();
        assertThat(tag).as("a file Granary did not write: no MD5 of anything a client could check")
                .matches("[0-9a-f]{32}-0").isNotEqualTo(md5 + "-0");
        assertThat(store.list("etags/p", null, null, 10).objects()).extracting(ObjectInfo::etag).containsExactly(tag);
        try (var in = store.read("etags/placed", tag, 0, -1)) {
            assertThat(in.readAllBytes()).isEqualTo(bytes);
        }

        Path written = store.root().resolve("etags/written");
        Files.write(written, "changed behind Granary's back".getBytes(StandardCharsets.UTF_8));
        assertThat(store.stat("etags/written").etag()).as("an edit in place drops the recorded MD5")
                .matches("[0-9a-f]{32}-0");
        assertThatThrownBy(() -> store.read("etags/written", md5, 0, -1)).isInstanceOf(ObjectChangedException.class);
        Files.write(placed, "other bytes".getBytes(StandardCharsets.UTF_8));
        assertThat(store.stat("etags/placed").etag()).as("a version tag follows the file").isNotEqualTo(tag);
    }

    @Test
    void metadataIsLostWithAnEditBehindGranarysBack() throws IOException {
        store.write("meta/edited", new ByteArrayInputStream(new byte[] {4}), 1, Map.of("x-amz-meta-a", "b"));
        assertThat(store.stat("meta/edited").metadata()).isEqualTo(Map.of("x-amz-meta-a", "b"));
        Files.write(store.root().resolve("meta/edited"), new byte[] {5, 6});
        assertThat(store.stat("meta/edited").metadata()).isEmpty();
    }

    @Test
    void anUploadIdIsNeverAPath() throws IOException {
        String id = store.startUpload("ids/x");
        for (String bogus : List.of("../../outside", "../" + id, id + "/..", id + "/1", "./" + id, id.toUpperCase(),
                "..", ".", "/etc")) {
            assertThatThrownBy(() -> part("ids/x", bogus, 1, new byte[1])).as(bogus)
                    .isInstanceOf(UploadNotFoundException.class);
            assertThatThrownBy(() -> store.completeUpload("ids/x", bogus, List.of(new UploadedPart(1, "x"))))
                    .as(bogus).isInstanceOf(UploadNotFoundException.class);
            store.abortUpload("ids/x", bogus);
        }
        try (Stream<Path> files = Files.list(outside)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("secret.txt");
        }
        assertThat(store.root().resolve(Keys.UPLOADS_DIR).resolve(id)).exists();
        store.abortUpload("ids/x", id);
        assertThat(store.root().resolve(Keys.UPLOADS_DIR).resolve(id)).doesNotExist();
    }

    @Test
    void aFailedCompletionLeavesNoTraceButTheUpload() throws IOException {
        String id = store.startUpload("failing/x");
        String etag1 = part("failing/x", id, 1, random(5 * MIB, 61));
        String etag2 = part("failing/x", id, 2, new byte[] {9});

        assertThatThrownBy(() -> store.completeUpload("failing/x", id,
                List.of(new UploadedPart(1, etag2), new UploadedPart(2, etag2))))
                .isInstanceOf(InvalidPartException.class);
        try (Stream<Path> files = Files.list(store.root().resolve("failing"))) {
            assertThat(files).as("no temporary file of the join is left").isEmpty();
        }
        assertThat(store.root().resolve(Keys.UPLOADS_DIR).resolve(id).resolve("2")).exists();

        assertThat(store.completeUpload("failing/x", id, List.of(new UploadedPart(1, etag1), new UploadedPart(2, etag2)))
                .size()).isEqualTo(5 * MIB + 1);
    }

    /** The claim by rename lets exactly one of two racing completions (or a completion and an abort) win. */
    @Test
    void racingCompletionsAndAbortsEndTheUploadOnce() throws Exception {
        for (int round = 0; round < 5; round++) {
            String key = "race/x" + round;
            String id = store.startUpload(key);
            List<UploadedPart> parts = List.of(new UploadedPart(1, part(key, id, 1, random(5 * MIB, round))),
                    new UploadedPart(2, part(key, id, 2, new byte[] {1})));
            CountDownLatch go = new CountDownLatch(1);
            List<CompletableFuture<Object>> racers = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                boolean abort = round % 2 == 1 && i == 2;
                racers.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    if (abort) {
                        store.abortUpload(key, id);
                        return "aborted";
                    }
                    try {
                        return store.completeUpload(key, id, parts);
                    } catch (UploadNotFoundException e) {
                        return e;
                    }
                }));
            }
            go.countDown();
            List<Object> results = new ArrayList<>();
            for (CompletableFuture<Object> racer : racers) {
                results.add(racer.get(30, TimeUnit.SECONDS));
            }
            long completed = results.stream().filter(r -> r instanceof ObjectInfo).count();
            assertThat(completed).as("round %d: %s", round, results).isLessThanOrEqualTo(1);
            if (completed == 1) {
                assertThat(store.stat(key).size()).isEqualTo(5 * MIB + 1);
            } else {
                assertThat(round % 2).as("only an abort can leave no object").isEqualTo(1);
                assertThatThrownBy(() -> store.stat(key)).isInstanceOf(ObjectNotFoundException.class);
            }
            assertThat(store.root().resolve(Keys.UPLOADS_DIR).resolve(id)).doesNotExist();
        }
    }

    @Test
    void aMissingRootIsRefused() {
        assertThatThrownBy(() -> new LocalUnderStore(dir.resolve("nope")))
                .isInstanceOf(UnderStoreException.class).hasMessageContaining("does not exist");
    }
}
