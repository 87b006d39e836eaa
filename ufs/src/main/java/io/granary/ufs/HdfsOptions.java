package io.granary.ufs;

import io.granary.contracts.dataset.Mount;
import org.apache.hadoop.conf.Configuration;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The Hadoop client settings of an {@code hdfs://} mount, built from its options and nothing else: no
 * {@code core-site.xml} or {@code hdfs-site.xml} is read from the service's classpath or environment, so two
 * mounts never share settings by accident.
 *
 * <ul>
 *   <li>{@code nameservice} and {@code namenodes} ({@code nn1=host:port,nn2=host:port}): an HA pair behind
 *       {@code hdfs://<nameservice>/path}, failed over by the client's ConfiguredFailoverProxyProvider;</li>
 *   <li>{@code principal}: the Kerberos principal whose keytab the mount's secret holds (Kerberos on);</li>
 *   <li>{@code dfs.*} and a few {@code ipc.client.*} / {@code hadoop.rpc.protection} keys given verbatim, from
 *       the allow-list {@link #PASSED}: client-side settings only, so a dataset cannot turn the client into
 *       something else (a local file system, another user, a proxy).</li>
 * </ul>
 */
final class HdfsOptions {

    /** Options given as Hadoop keys, passed through as they are. */
    static final List<Pattern> PASSED = List.of(
            Pattern.compile("dfs\\.client\\.[A-Za-z0-9._-]+"),
            Pattern.compile("dfs\\.nameservices"),
            Pattern.compile("dfs\\.ha\\.namenodes\\.[A-Za-z0-9_-]+"),
            Pattern.compile("dfs\\.namenode\\.(rpc|servicerpc)-address\\.[A-Za-z0-9_.-]+"),
            Pattern.compile("dfs\\.namenode\\.kerberos\\.principal(\\.pattern)?"),
            Pattern.compile("dfs\\.data\\.transfer\\.protection"),
            Pattern.compile("dfs\\.encrypt\\.data\\.transfer(\\.[a-z.]+)?"),
            Pattern.compile("dfs\\.domain\\.socket\\.path"),
            Pattern.compile("dfs\\.replication"),
            Pattern.compile("dfs\\.blocksize"),
            Pattern.compile("dfs\\.bytes-per-checksum"),
            Pattern.compile("ipc\\.client\\.connect\\.(max\\.retries(\\.on\\.timeouts)?|timeout|retry\\.interval)"),
            Pattern.compile("ipc\\.client\\.rpc-timeout\\.ms"),
            Pattern.compile("hadoop\\.rpc\\.protection"));

    /** The options Granary itself reads; the rest must match {@link #PASSED}. */
    static final List<String> OWN = List.of("nameservice", "namenodes", "principal");

    private static final Pattern NAMENODE = Pattern.compile("([A-Za-z0-9_-]+)=([A-Za-z0-9.-]+:[0-9]{1,5})");

    private HdfsOptions() {
    }

    /**
     * @param uri the mount's uri, {@code hdfs://host:port/path} or {@code hdfs://nameservice/path}
     * @throws UnderStoreException naming the option that is not allowed or malformed
     */
    static Configuration configuration(URI uri, Mount mount) {
        Configuration conf = new Configuration(false);
        // A down namenode answers "unavailable" in seconds, not after the client's default 10 x 45 tries; the
        // services retry themselves (a DataLoad's block, a reader's next try).
        conf.set("ipc.client.connect.max.retries", "3");
        conf.set("ipc.client.connect.max.retries.on.timeouts", "3");
        conf.set("ipc.client.connect.timeout", "5000");
        conf.set("dfs.client.retry.policy.enabled", "false");
        // Each store closes its own client; the process-wide cache would hand one client to two mounts.
        conf.setBoolean("fs.hdfs.impl.disable.cache", true);
        for (Map.Entry<String, String> option : mount.options().entrySet()) {
            String key = option.getKey();
            if (OWN.contains(key)) {
                continue;
            }
            if (PASSED.stream().noneMatch(pattern -> pattern.matcher(key).matches())) {
                throw new UnderStoreException("option " + key + " of mount " + mount.uri() + " is not one an hdfs "
                        + "mount takes: use nameservice, namenodes, principal, or a dfs.* client setting of the "
                        + "allow-list (ufs README)");
            }
            conf.set(key, option.getValue());
        }
        String nameservice = mount.option("nameservice");
        String namenodes = mount.option("namenodes");
        if (nameservice != null && !nameservice.isBlank()) {
            highAvailability(conf, nameservice.strip(), namenodes, uri, mount.uri());
        } else if (namenodes != null && !namenodes.isBlank()) {
            throw new UnderStoreException("option namenodes of mount " + mount.uri() + " needs option nameservice");
        } else if (uri.getPort() < 0 && conf.get("dfs.ha.namenodes." + uri.getHost()) == null) {
            throw new UnderStoreException("mount uri " + mount.uri() + " names no namenode port: use "
                    + "hdfs://namenode:8020/path, or hdfs://<nameservice>/path with options nameservice and namenodes");
        }
        String principal = mount.option("principal");
        if (principal != null && !principal.isBlank()) {
            conf.set("hadoop.security.authentication", "kerberos");
            conf.set("hadoop.security.authorization", "true");
        }
        return conf;
    }

    private static void highAvailability(Configuration conf, String nameservice, String namenodes, URI uri,
                                         String mountUri) {
        if (!nameservice.equals(uri.getHost())) {
            throw new UnderStoreException("option nameservice of mount " + mountUri + " is '" + nameservice
                    + "' but the uri names '" + uri.getHost() + "': use hdfs://" + nameservice + "/path");
        }
        if (uri.getPort() >= 0) {
            throw new UnderStoreException("mount uri " + mountUri + " names a nameservice: it takes no port");
        }
        if (namenodes == null || namenodes.isBlank()) {
            throw new UnderStoreException("option nameservice of mount " + mountUri + " needs option namenodes: "
                    + "nn1=host:port,nn2=host:port");
        }
        StringBuilder ids = new StringBuilder();
        for (String namenode : namenodes.split(",")) {
            var matcher = NAMENODE.matcher(namenode.strip());
            if (!matcher.matches()) {
                throw new UnderStoreException("option namenodes of mount " + mountUri + " must be "
                        + "nn1=host:port,nn2=host:port, not '" + namenodes + "'");
            }
            ids.append(ids.isEmpty() ? "" : ",").append(matcher.group(1));
            conf.set("dfs.namenode.rpc-address." + nameservice + "." + matcher.group(1), matcher.group(2));
        }
        conf.set("dfs.nameservices", nameservice);
        conf.set("dfs.ha.namenodes." + nameservice, ids.toString());
        conf.set("dfs.client.failover.proxy.provider." + nameservice,
                "org.apache.hadoop.hdfs.server.namenode.ha.ConfiguredFailoverProxyProvider");
    }
}
