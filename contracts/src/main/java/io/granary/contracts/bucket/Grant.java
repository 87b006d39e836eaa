package io.granary.contracts.bucket;

import io.granary.contracts.validation.ValidationException;

import java.util.Set;

/**
 * One grant of an S3 access control list: a permission to one identity ({@code user}, by name) or to a group
 * ({@code group}: AllUsers, anyone including the anonymous; AuthenticatedUsers, anyone signed in).
 */
public record Grant(String user, String group, Permission permission) {

    public static final String ALL_USERS = "AllUsers";
    public static final String AUTHENTICATED_USERS = "AuthenticatedUsers";
    private static final Set<String> GROUPS = Set.of(ALL_USERS, AUTHENTICATED_USERS);

    /** S3's permissions; FULL_CONTROL is the four others. */
    public enum Permission {
        READ, WRITE, READ_ACP, WRITE_ACP, FULL_CONTROL;

        public boolean covers(Permission needed) {
            return this == FULL_CONTROL || this == needed;
        }
    }

    public static Grant toUser(String user, Permission permission) {
        return new Grant(user, null, permission);
    }

    public static Grant toGroup(String group, Permission permission) {
        return new Grant(null, group, permission);
    }

    /** A grant to a group: public, as S3's public access block counts it. */
    public boolean isPublic() {
        return group != null;
    }

    public Grant validate(String field) {
        if (permission == null) {
            throw new ValidationException(field + ".permission", "is required");
        }
        if ((user == null) == (group == null)) {
            throw new ValidationException(field, "names either a user or a group");
        }
        if (group != null && !GROUPS.contains(group)) {
            throw new ValidationException(field + ".group", "'" + group + "' is not AllUsers or AuthenticatedUsers");
        }
        if (user != null && user.isBlank()) {
            throw new ValidationException(field + ".user", "must not be empty");
        }
        return this;
    }
}
