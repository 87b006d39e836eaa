package io.granary.ufs;

import io.granary.contracts.dataset.Mount;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class UnderStoresTest {

    @TempDir
    Path dir;

    private UnderStores stores(Path... allowedRoots) {
        return new UnderStores(List.of(allowedRoots), ref -> {
            if (ref.equals("minio")) {
                return new Credentials("AKIAMINIO", "minio-secret");
            }
            throw new UnderStoreException("credentials '" + ref + "' not found");
        });
    }

    @Test
    void aLocalMountOutsideTheAllowedRootsIsRefused() throws IOException {
        Path allowed = Files.createDirectories(dir.resolve("data"));

        assertThatThrownBy(() -> stores(allowed).open(mount("file:///etc")))
                .isInstanceOf(UnderStoreException.class).hasMessageContaining("file:///etc")
                .hasMessageContaining("outside");
        assertThatThrownBy(() -> stores(allowed).open(mount(allowed.toUri() + "../")))
                .isInstanceOf(UnderStoreException.class).hasMessageContaining("outside");
        assertThatThrownBy(() -> stores().open(mount(allowed.toUri().toString())))
                .as("no allowed roots, no local mounts").isInstanceOf(UnderStoreException.class);
    }

    @Test
    void aSymlinkInsideAnAllowedRootCannotPointOutOfIt() throws IOException {
        Path allowed = Files.createDirectories(dir.resolve("data"));
        Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
        Path link = Files.createSymbolicLink(allowed.resolve("link"), elsewhere);

        assertThatThrownBy(() -> stores(allowed).open(mount(link.toUri().toString())))
                .isInstanceOf(UnderStoreException.class).hasMessageContaining("outside");
    }

    @Test
    void aNewMountsDirectoryIsMadeInsideAnAllowedRootAndTakenAwayOnlyWhenEmpty() throws IOException {
        Path allowed = Files.createDirectories(dir.resolve("data"));
        UnderStores stores = stores(allowed);
        Mount bucket = mount(allowed.toUri() + "buckets/new");

        stores.create(bucket);
        assertThat(allowed.resolve("buckets/new")).isDirectory();
        stores.create(bucket);  // again: already there
        assertThatThrownBy(() -> stores.create(mount(dir.toUri() + "outside/new"))).isInstanceOf(UnderStoreException.class)
                .hasMessageContaining("outside");
        assertThatThrownBy(() -> stores.create(mount(allowed.toUri() + "../escape"))).isInstanceOf(UnderStoreException.class);
        assertThat(dir.resolve("outside")).doesNotExist();
        assertThat(dir.resolve("escape")).doesNotExist();
        stores.create(mount("s3://bucket/prefix/new"));  // an S3 prefix needs nothing made

        try (UnderStore store = stores.open(bucket)) {
            store.write("kept", new java.io.ByteArrayInputStream(new byte[1]), 1);
            store.startUpload("never-completed");
        }
        stores.remove(bucket);
        assertThat(allowed.resolve("buckets/new/kept")).as("an object keeps its directory").exists();
        Files.delete(allowed.resolve("buckets/new/kept"));
        stores.remove(bucket);
        assertThat(allowed.resolve("buckets/new")).as("nothing but an unfinished upload: taken away").doesNotExist();
        assertThat(allowed.resolve("buckets")).isDirectory();
    }

    @Test
    void aLocalMountInsideAnAllowedRootOpens() throws IOException {
        Path allowed = Files.createDirectories(dir.resolve("data"));
        Path datasetDir = Files.createDirectories(allowed.resolve("imagenet"));
        Files.writeString(datasetDir.resolve("a.txt"), "a");

        try (UnderStore store = stores(allowed).open(mount(datasetDir.toUri().toString()))) {
            assertThat(store).isInstanceOf(LocalUnderStore.class);
            assertThat(store.stat("a.txt").size()).isEqualTo(1);
        }
    }

    @Test
    void aMissingLocalDirectoryIsRefused() throws IOException {
        Path allowed = Files.createDirectories(dir.resolve("data"));

        assertThatThrownBy(() -> stores(allowed).open(mount(allowed.toUri() + "missing")))
                .isInstanceOf(UnderStoreException.class).hasMessageContaining("does not exist");
    }

    @Test
    void anS3UriIsParsedIntoBucketAndPrefix() {
        Mount mount = new Mount("s3://train/imagenet/2012", null,
                Map.of("endpoint", "http://127.0.0.1:9000", "pathStyle", "true"), "minio");

        try (UnderStore store = stores().open(mount)) {
            S3Location location = ((S3UnderStore) store).location();
            assertThat(location).isEqualTo(new S3Location(URI.create("http://127.0.0.1:9000"), "us-east-1", "train",
                    "imagenet/2012/", true));
            assertThat(location.uri()).isEqualTo("s3://train/imagenet/2012/");
        }
    }

    @Test
    void s3Defaults() {
        S3Location location = UnderStores.s3Location(URI.create("s3://bucket"), mount("s3://bucket"));

        assertThat(location).isEqualTo(new S3Location(UnderStores.DEFAULT_ENDPOINT, "us-east-1", "bucket", "", null));
        assertThat(UnderStores.s3Location(URI.create("s3://b/p/"),
                new Mount("s3://b/p/", null, Map.of("region", "eu-west-1"), null)).region()).isEqualTo("eu-west-1");
    }

    @Test
    void badMountsAreRefusedWithTheirUri() {
        UnderStores stores = stores();

        assertThatThrownBy(() -> stores.open(mount("hdfs://nn/data"))).isInstanceOf(UnderStoreException.class)
                .hasMessageContaining("hdfs://nn/data");
        assertThatThrownBy(() -> stores.open(mount("s3:///no-bucket"))).isInstanceOf(UnderStoreException.class)
                .hasMessageContaining("names no bucket");
        assertThatThrownBy(() -> stores.open(mount("s3://Bad_Bucket/p"))).isInstanceOf(UnderStoreException.class)
                .hasMessageContaining("s3://Bad_Bucket/p/").hasMessageContaining("invalid bucket name");
        assertThatThrownBy(() -> stores.open(new Mount("s3://b/p", null, Map.of("pathStyle", "maybe"), null)))
                .isInstanceOf(UnderStoreException.class).hasMessageContaining("pathStyle");
        assertThatThrownBy(() -> stores.open(new Mount("s3://b/p", null, Map.of(), "unknown")))
                .isInstanceOf(UnderStoreException.class).hasMessageContaining("'unknown'");
    }

    @Test
    void aMountWithoutACredentialsRefIsReadAnonymously() {
        UnderStores stores = new UnderStores(List.of(), ref -> {
            throw new AssertionError("credentials asked for " + ref);
        });

        for (String ref : new String[] {null, "", " "}) {
            stores.open(new Mount("s3://bucket/prefix", null, Map.of(), ref)).close();
        }
    }

    @Test
    void credentialsInTheUriAreRefusedWithoutEchoingThem() {
        assertThatThrownBy(() -> stores().open(mount("s3://AKIA:topsecret@bucket/prefix")))
                .isInstanceOf(UnderStoreException.class).hasMessageContaining("credentialsRef")
                .hasMessageNotContaining("topsecret");
    }

    private static Mount mount(String uri) {
        return new Mount(uri, null, Map.of(), null);
    }
}
