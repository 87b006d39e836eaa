package io.granary.contracts.bucket;

/**
 * S3's public access block of a bucket. Granary enforces the two that concern ACLs: {@code blockPublicAcls}
 * refuses a public ACL (one granting a group), {@code ignorePublicAcls} leaves public grants out when access is
 * decided. Granary has no bucket policies, so the two about policies are kept and answered, and change nothing.
 */
public record PublicAccessBlock(boolean blockPublicAcls, boolean ignorePublicAcls, boolean blockPublicPolicy,
                                boolean restrictPublicBuckets) {
}
