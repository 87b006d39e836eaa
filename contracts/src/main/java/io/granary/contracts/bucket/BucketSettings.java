package io.granary.contracts.bucket;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.granary.contracts.validation.Validated;
import io.granary.contracts.validation.ValidationException;

import java.util.List;

/**
 * What S3 keeps about a bucket beyond its objects, for the dataset that is the bucket
 * ({@code PUT /api/v1/datasets/{name}/bucket}): its ACL (whose owner is the identity that created it), its CORS
 * rules and its public access block. Null parts are unset: a dataset made before it had an owner is reached by
 * roles alone.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BucketSettings(Acl acl, List<CorsRule> cors, PublicAccessBlock publicAccessBlock)
        implements Validated<BucketSettings> {

    /** S3's limit on CORS rules per bucket. */
    public static final int MAX_CORS_RULES = 100;

    public static BucketSettings ownedBy(String owner) {
        return new BucketSettings(Acl.privateTo(owner), null, null);
    }

    @Override
    public BucketSettings validate() {
        if (acl != null) {
            acl.validate("acl");
        }
        if (cors != null) {
            if (cors.isEmpty() || cors.size() > MAX_CORS_RULES) {
                throw new ValidationException("cors", "holds 1 to " + MAX_CORS_RULES + " rules, not " + cors.size());
            }
            for (int i = 0; i < cors.size(); i++) {
                cors.get(i).validate("cors[" + i + "]");
            }
        }
        return this;
    }

    public BucketSettings withAcl(Acl changed) {
        return new BucketSettings(changed, cors, publicAccessBlock);
    }

    public BucketSettings withCors(List<CorsRule> changed) {
        return new BucketSettings(acl, changed == null ? null : List.copyOf(changed), publicAccessBlock);
    }

    public BucketSettings withPublicAccessBlock(PublicAccessBlock changed) {
        return new BucketSettings(acl, cors, changed);
    }
}
