package io.granary.ufs;

import java.net.URI;

/**
 * Where an S3 mount lives.
 *
 * @param endpoint  the S3 API root, e.g. {@code http://127.0.0.1:9000} or {@code https://s3.amazonaws.com}
 * @param region    signing region
 * @param bucket    bucket name
 * @param prefix    the mount root inside the bucket: empty or ending in '/'
 * @param pathStyle true for {@code endpoint/bucket/key}, false for {@code bucket.endpoint/key}; null lets the
 *                  SDK choose (virtual-host style for AWS, path style for everything else)
 */
public record S3Location(URI endpoint, String region, String bucket, String prefix, Boolean pathStyle) {

    public S3Location {
        if (bucket == null || bucket.isEmpty()) {
            throw new IllegalArgumentException("an S3 location needs a bucket");
        }
        prefix = Keys.prefix(prefix);
        if (!prefix.isEmpty() && !prefix.endsWith("/")) {
            prefix = prefix + "/";
        }
    }

    /** {@code s3://bucket/prefix}: how messages name the mount. */
    public String uri() {
        return "s3://" + bucket + "/" + prefix;
    }
}
