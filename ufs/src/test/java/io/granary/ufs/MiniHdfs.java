package io.granary.ufs;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.UUID;

/**
 * A real HDFS in the test JVM: Hadoop's own MiniDFSCluster, a NameNode and one DataNode on loopback ports, with
 * permissions and extended attributes on as in a production cluster. Started once for the whole run, on first
 * use, and stopped when the JVM exits.
 */
final class MiniHdfs {

    private static MiniDFSCluster cluster;

    private MiniHdfs() {
    }

    static synchronized MiniDFSCluster cluster() {
        if (cluster == null) {
            Configuration conf = new Configuration();
            File base = new File(System.getProperty("java.io.tmpdir"), "minihdfs-" + UUID.randomUUID());
            conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, base.getAbsolutePath());
            conf.setBoolean("dfs.permissions.enabled", true);
            conf.setBoolean("dfs.namenode.xattrs.enabled", true);
            conf.setInt("dfs.replication", 1);
            // A file closes once its last block is committed, as soon as the datanode has it, not after the
            // datanode's report of it: otherwise each close waits 400 ms or more on one datanode.
            conf.setInt("dfs.namenode.file.close.num-committed-allowed", 1);
            try {
                cluster = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
                cluster.waitActive();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            MiniDFSCluster started = cluster;
            Runtime.getRuntime().addShutdownHook(new Thread(started::shutdown));
        }
        return cluster;
    }

    /** {@code hdfs://localhost:port}: the namenode, for a mount uri. */
    static URI namenode() {
        return URI.create("hdfs://localhost:" + cluster().getNameNodePort());
    }

    /** The superuser's own client, to lay out fixtures and change files behind a store's back. */
    static DistributedFileSystem superuser() {
        try {
            return cluster().getFileSystem();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
