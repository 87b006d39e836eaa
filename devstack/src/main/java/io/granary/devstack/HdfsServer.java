package io.granary.devstack;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A real HDFS (Hadoop's MiniDFSCluster: a NameNode and a DataNode) in a child JVM on loopback, for
 * {@code ./granary up --hdfs} and the e2e scenario's HDFS dataset. Its files live under the data directory and
 * outlive the process; the NameNode's superuser is the user running it.
 */
public final class HdfsServer implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final ChildProcess child;
    private final URI namenode;

    private HdfsServer(ChildProcess child, URI namenode) {
        this.child = child;
        this.namenode = namenode;
    }

    /** Starts HDFS with its NameNode on {@code port}; blocks until its DataNode has registered. */
    public static HdfsServer start(Path dataDir, int port) throws IOException {
        if (Ports.listening("127.0.0.1", port)) {
            throw new IOException("HDFS port " + port + " is already in use");
        }
        Path dir = Files.createDirectories(dataDir.toAbsolutePath());
        Path ready = dir.resolve(HdfsMain.READY);
        Files.deleteIfExists(ready);
        // Its web servers unpack into java.io.tmpdir: under its own directory, not left in /tmp after a kill.
        Path temp = Files.createDirectories(dir.resolve("tmp"));
        ChildProcess child = ChildProcess.start("hdfs",
                List.of("-Xms64m", "-Xmx384m", "-XX:+UseSerialGC", "-Djava.io.tmpdir=" + temp,
                        "-cp", ChildClasspath.hdfs(), HdfsMain.class.getName(), Integer.toString(port), dir.toString()),
                dir.resolve("hdfs.log"));
        child.awaitReady(() -> Files.exists(ready), START_TIMEOUT);
        return new HdfsServer(child, URI.create("hdfs://127.0.0.1:" + port));
    }

    /** {@code hdfs://127.0.0.1:port}: the NameNode, for a mount uri. */
    public URI namenode() {
        return namenode;
    }

    public long pid() {
        return child.pid();
    }

    /** Blocks until the server process exits. */
    public int awaitExit() throws InterruptedException {
        return child.waitFor();
    }

    @Override
    public void close() {
        child.close();
    }
}
