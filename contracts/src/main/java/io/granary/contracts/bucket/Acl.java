package io.granary.contracts.bucket;

import io.granary.contracts.validation.ValidationException;

import java.util.List;

/**
 * An S3 access control list: the owner (an identity's name) and its grants, which S3 keeps apart (an owner may
 * even grant itself nothing, and still reads and writes the list itself).
 */
public record Acl(String owner, List<Grant> grants) {

    public Acl {
        grants = grants == null ? List.of() : List.copyOf(grants);
    }

    /** The ACL S3 calls private: the owner has full control, no one else anything. */
    public static Acl privateTo(String owner) {
        return new Acl(owner, List.of(Grant.toUser(owner, Grant.Permission.FULL_CONTROL)));
    }

    public boolean isPublic() {
        return grants.stream().anyMatch(Grant::isPublic);
    }

    public Acl validate(String field) {
        if (owner == null || owner.isBlank()) {
            throw new ValidationException(field + ".owner", "is required");
        }
        for (int i = 0; i < grants.size(); i++) {
            grants.get(i).validate(field + ".grants[" + i + "]");
        }
        return this;
    }
}
