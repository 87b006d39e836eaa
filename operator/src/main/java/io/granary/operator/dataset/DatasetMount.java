package io.granary.operator.dataset;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

import java.util.Map;

/**
 * One under-store location of a Dataset.
 *
 * @param uri            {@code s3://bucket/prefix}, {@code hdfs://namenode:port/path} or {@code file:///path}, never
 *                       with credentials in it
 * @param name           the directory of the dataset it appears under; empty for the root
 * @param options        endpoint, region, pathStyle (S3); nameservice, namenodes, principal, dfs.* (HDFS)... never
 *                       a secret
 * @param credentialsRef the Secret in Granary's namespace that holds the store's keys ({@code accessKey},
 *                       {@code secretKey}) or an HDFS identity ({@code user}, or {@code keytab}), as Granary's
 *                       services mount them
 */
@JsonInclude(JsonInclude.Include.NON_NULL)  // an unset field is left out, as kubectl shows it
public record DatasetMount(
        @Required @Pattern("^(s3://[^/@:]+(/[^@]*)?|hdfs://[^/@:]+(:[0-9]+)?(/[^@]*)?|file:///[^@]*)$") String uri,
        @Pattern("^[^/]*$") String name,
        Map<String, String> options,
        @Pattern("^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$") String credentialsRef) {

    public DatasetMount {
        options = options == null ? Map.of() : Map.copyOf(options);
    }
}
