package io.granary.ufs;

import io.granary.contracts.dataset.Mount;
import io.granary.devstack.Ports;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract against a real HDFS (Hadoop's MiniDFSCluster in this JVM, see {@link MiniHdfs}), the mount rooted at
 * a directory, opened as a dataset would be: through {@link UnderStores} from an {@code hdfs://} mount, its
 * options passed through the allow-list. Then what only HDFS has: files changed behind the store's back, a
 * user the namenode refuses, directories of thousands of files, and a namenode restart.
 */
class HdfsUnderStoreTest extends UnderStoreContractTest {

    /**
     * One replica, on the one datanode; and a client that asks again after 20 ms, not 400, whether the namenode has
     * heard of a closed file's last block (on this busy machine it often has not on the first ask).
     */
    static final Map<String, String> OPTIONS = Map.of("dfs.replication", "1",
            "dfs.client.block.write.locateFollowingBlock.initial.delay.ms", "20");

    private static UnderStore store;
    private static DistributedFileSystem hdfs;

    @BeforeAll
    static void open() throws IOException {
        hdfs = MiniHdfs.superuser();
        hdfs.mkdirs(new Path("/contract"));
        store = opener().open(mount("/contract", null));
    }

    @AfterAll
    static void close() {
        if (store != null) {
            store.close();
        }
    }

    @Override
    protected UnderStore store() {
        return store;
    }

    @Override
    protected void checkLargeWrite(ObjectInfo info) {
        assertThat(info.etag()).as("derived from the file id, time and length").endsWith("-0");
    }

    private static UnderStores opener() {
        return new UnderStores(List.of(), ref -> {
            throw new UnderStoreException("no S3 keys here");
        }, HdfsLogin::user);
    }

    private static Mount mount(String root, String user) {
        return new Mount(MiniHdfs.namenode() + root, null, OPTIONS, user);
    }

    @Test
    void aFileReplacedBetweenAListingAndAReadIsNeverServedUnderTheOldEtag() throws IOException {
        Path file = new Path("/contract/replaced/sample.bin");
        put(file, "version one".getBytes(StandardCharsets.UTF_8));
        ObjectInfo listed = store.list("replaced/", null, null, 10).objects().get(0);
        assertThat(store.stat("replaced/sample.bin").etag()).as("a listing and a stat agree").isEqualTo(listed.etag());

        // Same length, and within the same millisecond as far as the store can tell: only the file id differs.
        Path next = new Path("/contract/replaced/.next");
        put(next, "version two".getBytes(StandardCharsets.UTF_8));
        hdfs.setTimes(next, listed.mtime().toEpochMilli(), -1);
        hdfs.rename(next, file, Options.Rename.OVERWRITE);

        assertThatThrownBy(() -> store.read("replaced/sample.bin", listed.etag(), 0, -1))
                .isInstanceOf(ObjectChangedException.class);
        assertThat(store.stat("replaced/sample.bin").etag()).isNotEqualTo(listed.etag());
        try (InputStream in = store.read("replaced/sample.bin", store.stat("replaced/sample.bin").etag(), 8, -1)) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("two");
        }

        ObjectInfo before = store.stat("replaced/sample.bin");
        try (FSDataOutputStream out = hdfs.append(file)) {
            out.write('!');
        }
        assertThatThrownBy(() -> store.read("replaced/sample.bin", before.etag(), 0, -1))
                .as("an append in place").isInstanceOf(ObjectChangedException.class);
    }

    @Test
    void aPathTheUserMayNotReadFailsWithAnErrorNamingIt() throws IOException {
        Path secret = new Path("/contract/private/salaries.csv");
        put(secret, "name,salary".getBytes(StandardCharsets.UTF_8));
        hdfs.setPermission(secret, new FsPermission((short) 0600));
        hdfs.mkdirs(new Path("/contract/closed/inner"));
        put(new Path("/contract/closed/inner/x"), new byte[] {1});
        hdfs.setPermission(new Path("/contract/closed"), new FsPermission((short) 0700));

        try (UnderStore alice = opener().open(mount("/contract", "alice"))) {
            assertThat(alice.list("private/", null, null, 10).objects()).extracting(ObjectInfo::path)
                    .as("listed, as S3 lists what a user may not get").containsExactly("private/salaries.csv");
            assertThatThrownBy(() -> alice.stat("private/salaries.csv"))
                    .isInstanceOf(AccessDeniedException.class).hasMessageContaining("private/salaries.csv");
            assertThatThrownBy(() -> alice.read("private/salaries.csv", 0, -1))
                    .isInstanceOf(AccessDeniedException.class)
                    .hasMessageContaining("private/salaries.csv").hasMessageContaining("alice");
            assertThatThrownBy(() -> alice.list("closed/", null, null, 10))
                    .isInstanceOf(AccessDeniedException.class).hasMessageContaining("closed/");
            assertThatThrownBy(() -> alice.write("private/new", new ByteArrayInputStream(new byte[1]), 1))
                    .isInstanceOf(AccessDeniedException.class).hasMessageContaining("private/new");
        }
        assertThatThrownBy(() -> opener().open(mount("/contract/closed", "alice")).probe())
                .as("a dataset over a directory its user cannot list is refused when it is made")
                .isInstanceOf(AccessDeniedException.class).hasMessageContaining("/contract/closed");
    }

    @Test
    void aDirectoryOfTenThousandFilesListsInPagesInKeyOrder() throws IOException {
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            String name = String.format("big/%05d.jpg", i);
            hdfs.create(new Path("/contract/" + name)).close();
            expected.add(name);
        }
        List<String> listed = new ArrayList<>();
        int pages = 0;
        String cursor = null;
        do {
            ListPage page = store.list("big/", null, cursor, 1000);
            assertThat(page.objects()).hasSizeLessThanOrEqualTo(1000);
            page.objects().forEach(object -> listed.add(object.path()));
            cursor = page.nextCursor();
            pages++;
        } while (cursor != null);
        assertThat(listed).isEqualTo(expected);
        assertThat(pages).isBetween(10, 11);
        assertThat(store.list("big/0999", null, "big/09990.jpg", 5).objects()).extracting(ObjectInfo::path)
                .containsExactly("big/09991.jpg", "big/09992.jpg", "big/09993.jpg", "big/09994.jpg", "big/09995.jpg");
    }

    @Test
    void namesAreListedInS3OrderWhereHdfsOrdersThemOtherwise() throws IOException {
        // The namenode orders names by their bytes taken as signed: "été" before "a", and "a" before "a.txt".
        for (String name : List.of("été", "a.txt", "a/x", "a0", "b", "a-1")) {
            put(new Path("/contract/order/" + name), new byte[] {1});
        }
        List<String> flat = store.list("order/", null, null, 100).objects().stream().map(ObjectInfo::path).toList();
        assertThat(flat).containsExactly("order/a-1", "order/a.txt", "order/a/x", "order/a0", "order/b", "order/été");

        List<String> paged = new ArrayList<>();
        String cursor = null;
        do {
            ListPage page = store.list("order/", "/", cursor, 2);
            List<String> keys = new ArrayList<>(page.commonPrefixes());
            page.objects().forEach(object -> keys.add(object.path()));
            keys.sort(Keys::compare);
            paged.addAll(keys);
            cursor = page.nextCursor();
        } while (cursor != null);
        assertThat(paged).containsExactly("order/a-1", "order/a.txt", "order/a/", "order/a0", "order/b", "order/été");
    }

    @Test
    void aNamenodeRestartIsRiddenOutByTheSameStore() throws Exception {
        byte[] content = new byte[3 << 20];
        Arrays.fill(content, (byte) 7);
        ObjectInfo info = store.write("restart/blob", new ByteArrayInputStream(content), content.length);
        MiniDFSCluster cluster = MiniHdfs.cluster();
        try (InputStream open = store.read("restart/blob", info.etag(), 0, -1)) {
            cluster.shutdownNameNode(0);
            try {
                assertThatThrownBy(() -> store.stat("restart/blob")).as("a call while the namenode is down")
                        .isInstanceOf(UnderStoreUnavailableException.class);
                assertThat(open.readAllBytes()).as("a read under way goes on from the datanode").isEqualTo(content);
            } finally {
                cluster.restartNameNode(0, true);
            }
        }
        // The same store, with no reopening: what a DataLoad's next try of a block does.
        assertThat(store.stat("restart/blob")).isEqualTo(info);
        try (InputStream in = store.read("restart/blob", info.etag(), 1 << 20, 16)) {
            assertThat(in.readAllBytes()).containsOnly((byte) 7).hasSize(16);
        }
    }

    @Test
    void mountsAreCheckedWhenOpened() {
        UnderStores opener = opener();
        assertThatThrownBy(() -> opener.open(new Mount(MiniHdfs.namenode() + "/contract", null,
                Map.of("fs.defaultFS", "file:///"), null)))
                .hasMessageContaining("option fs.defaultFS").hasMessageContaining("allow-list");
        assertThatThrownBy(() -> opener.open(new Mount("hdfs://namenode-without-port/x", null, Map.of(), null)))
                .hasMessageContaining("names no namenode port");
        assertThatThrownBy(() -> opener.open(new Mount("hdfs://ns1/x", null, Map.of("nameservice", "ns1"), null)))
                .hasMessageContaining("needs option namenodes");
        assertThatThrownBy(() -> opener.open(new Mount("hdfs://ns1/x", null,
                Map.of("nameservice", "ns1", "namenodes", "nn1"), null)))
                .hasMessageContaining("nn1=host:port,nn2=host:port");
        assertThatThrownBy(() -> new MountedStores(opener, op -> { }, Duration.ZERO)
                .check(mount("/no/such/directory", null)))
                .hasMessageContaining("/no/such/directory");
    }

    @Test
    void anHaNameserviceReachesTheActiveNamenode() throws IOException {
        int port = MiniHdfs.cluster().getNameNodePort();
        // nn1 points at a port nobody listens on: the client fails over to nn2, the real namenode.
        Mount ha = new Mount("hdfs://granaryns/contract", null, Map.of("nameservice", "granaryns",
                "namenodes", "nn1=localhost:" + Ports.free() + ",nn2=localhost:" + port, "dfs.replication", "1"), null);
        try (UnderStore viaNameservice = opener().open(ha)) {
            viaNameservice.write("ha/x", new ByteArrayInputStream(new byte[] {4, 2}), 2);
            assertThat(store.stat("ha/x").size()).isEqualTo(2);
        }
    }

    private static void put(Path file, byte[] content) throws IOException {
        try (FSDataOutputStream out = hdfs.create(file, true)) {
            out.write(content);
        }
    }
}
