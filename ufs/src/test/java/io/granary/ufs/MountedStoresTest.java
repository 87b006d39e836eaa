package io.granary.ufs;

import io.granary.contracts.dataset.Mount;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MountedStoresTest {

    @TempDir
    Path dir;

    private final Map<String, Integer> requests = new ConcurrentHashMap<>();
    private MountedStores stores;
    private Path root;
    private Mount rootMount;
    private Mount valMount;

    @BeforeEach
    void open() throws IOException {
        root = Files.createDirectories(dir.resolve("data/train"));
        Files.writeString(root.resolve("a.txt"), "aaa");
        Path val = Files.createDirectories(dir.resolve("data/val"));
        Files.writeString(val.resolve("b.txt"), "bb");
        rootMount = new Mount(root.toUri().toString(), null, Map.of(), null);
        valMount = new Mount(val.toUri().toString(), "val", Map.of(), null);
        UnderStores opener = new UnderStores(List.of(dir.resolve("data")), ref -> {
            throw new UnderStoreException("no secrets here");
        });
        stores = new MountedStores(opener, op -> requests.merge(op, 1, Integer::sum), Duration.ZERO);
    }

    @AfterEach
    void close() {
        stores.close();
    }

    @Test
    void aPathIsFoundInTheMountThatHoldsItAndEachMountIsOpenedOnce() {
        List<Mount> mounts = List.of(rootMount, valMount);

        MountedStores.Located a = stores.locate(mounts, "a.txt");
        MountedStores.Located b = stores.locate(mounts, "val/b.txt");

        assertThat(a.key()).isEqualTo("a.txt");
        assertThat(b.key()).isEqualTo("b.txt");
        assertThat(a.store().stat(a.key()).size()).isEqualTo(3);
        assertThat(b.store().stat(b.key()).size()).isEqualTo(2);
        assertThat(stores.locate(mounts, "a.txt").store()).as("opened once, then shared").isSameAs(a.store());
        assertThat(a.store()).isNotSameAs(b.store());
    }

    @Test
    void everyRequestIsCountedByOperation() throws IOException {
        MountedStores.Located a = stores.locate(List.of(rootMount), "new.bin");
        a.store().write(a.key(), new ByteArrayInputStream(new byte[10]), 10);
        a.store().stat(a.key());
        try (InputStream in = a.store().read(a.key(), 0, 10)) {
            assertThat(in.readAllBytes()).hasSize(10);
        }
        String upload = a.store().startUpload("parts.bin");
        a.store().abortUpload("parts.bin", upload);
        a.store().delete(a.key());

        assertThat(requests).containsEntry("write", 1).containsEntry("stat", 1).containsEntry("read", 1)
                .containsEntry("upload", 2).containsEntry("delete", 1);
    }

    @Test
    void aPathNoMountHoldsIsNotFound() {
        assertThatThrownBy(() -> stores.locate(List.of(valMount), "elsewhere/a.txt"))
                .isInstanceOf(ObjectNotFoundException.class).hasMessageContaining("elsewhere/a.txt");
    }

    @Test
    void aForgottenMountIsOpenedAfresh() {
        UnderStore before = stores.store(rootMount);

        stores.forget(List.of(rootMount));
        UnderStore after = stores.store(rootMount);

        assertThat(after).isNotSameAs(before);
        assertThat(after.stat("a.txt").size()).isEqualTo(3);
    }

    @Test
    void preparingMountsListsEachAndReadsAByteOfItsFirstObject() throws IOException {
        Files.createDirectories(dir.resolve("data/empty"));
        Mount empty = new Mount(dir.resolve("data/empty").toUri().toString(), "empty", Map.of(), null);

        stores.prepare(List.of(rootMount, valMount, empty));

        assertThat(requests).as("one probe a mount; no caller's list or read").containsOnly(Map.entry("probe", 3));
        assertThatThrownBy(() -> stores.prepare(List.of(new Mount(dir.resolve("data/missing").toUri().toString(),
                null, Map.of(), null)))).isInstanceOf(UnderStoreException.class);
    }

    @Test
    void aCheckProbesTheMountAndRefusesOneThatCannotBeRead() {
        stores.check(rootMount);

        assertThat(requests).containsEntry("probe", 1);
        assertThatThrownBy(() -> stores.check(new Mount(dir.resolve("data/missing").toUri().toString(), null,
                Map.of(), null))).isInstanceOf(UnderStoreException.class).hasMessageContaining("does not exist");
    }
}
