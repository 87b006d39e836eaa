package io.granary.ufs;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

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
        Files.writeString(store.root().resolve("tmp").resolve(LocalUnderStore.TEMP_PREFIX + "123"), "partial");

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
    void aMissingRootIsRefused() {
        assertThatThrownBy(() -> new LocalUnderStore(dir.resolve("nope")))
                .isInstanceOf(UnderStoreException.class).hasMessageContaining("does not exist");
    }
}
