package io.granary.devstack;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The child JVM of {@link HdfsServer}: Hadoop's MiniDFSCluster, one NameNode on the given port and one DataNode,
 * kept under a data directory across restarts (formatted on first start only), permissions and extended
 * attributes on. Writes {@value #READY} into the directory once the DataNode has registered.
 *
 * <pre>java -cp &lt;hadoop classpath&gt; io.granary.devstack.HdfsMain PORT DATA_DIR</pre>
 */
public final class HdfsMain {

    static final String READY = "ready";

    private HdfsMain() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        int port = Integer.parseInt(args[0]);
        Path data = Path.of(args[1]).toAbsolutePath();
        Path formatted = data.resolve("formatted");
        Files.deleteIfExists(data.resolve(READY));
        Configuration conf = new Configuration();
        conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, data.resolve("cluster").toString());
        conf.setInt("dfs.replication", 1);
        conf.setBoolean("dfs.permissions.enabled", true);
        conf.setBoolean("dfs.namenode.xattrs.enabled", true);
        conf.setInt("dfs.namenode.file.close.num-committed-allowed", 1);
        conf.setInt("dfs.namenode.safemode.extension", 0);
        MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).nameNodePort(port).numDataNodes(1)
                .format(!Files.exists(formatted)).build();
        cluster.waitActive();
        Files.writeString(formatted, "");
        Runtime.getRuntime().addShutdownHook(new Thread(cluster::shutdown));
        Files.writeString(data.resolve(READY), cluster.getURI().toString());
        System.out.println("hdfs ready at " + cluster.getURI() + " (data in " + data + File.separator + "cluster)");
        Thread.currentThread().join();
    }
}
