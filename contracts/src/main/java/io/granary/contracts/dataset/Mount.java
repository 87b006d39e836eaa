package io.granary.contracts.dataset;

import java.util.Map;

/**
 * One under-store location mounted into a dataset.
 *
 * @param uri            {@code s3://bucket/prefix}, {@code hdfs://namenode:port/path} or {@code file:///path}
 * @param name           optional sub-directory of the dataset this mount appears under; null or empty for the root
 * @param options        endpoint, region, pathStyle (S3); nameservice, namenodes, principal, dfs.* (HDFS)... never a
 *                       secret
 * @param credentialsRef name of the secret holding the credentials; never the secret itself
 */
public record Mount(String uri, String name, Map<String, String> options, String credentialsRef) {

    public Mount {
        options = options == null ? Map.of() : Map.copyOf(options);
    }

    public String option(String key) {
        return options.get(key);
    }
}
