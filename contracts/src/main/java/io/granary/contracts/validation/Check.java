package io.granary.contracts.validation;

import java.util.Set;
import java.util.regex.Pattern;

/** The few checks the contracts share, each failing with the field it was given. */
public final class Check {

    /** Names whose path-style bucket the gateway's own paths would hide. */
    private static final Set<String> RESERVED_NAMES = Set.of("api", "console");
    /** RFC 1123 label as Kubernetes uses it; a dataset name is also an S3 bucket name, hence 3 characters at least. */
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

    /** Kubernetes Secret names (DNS-1123 subdomain). */
    private static final Pattern SECRET_NAME = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");

    private Check() {
    }

    public static String datasetName(String field, String name) {
        if (name == null || name.isBlank()) {
            throw new ValidationException(field, "is required");
        }
        if (name.length() < 3 || name.length() > 63 || !DNS_LABEL.matcher(name).matches()) {
            throw new ValidationException(field, "'" + name + "' must be a DNS-1123 label of 3 to 63 characters: "
                    + "lower-case letters, digits and '-', starting and ending with a letter or digit");
        }
        if (RESERVED_NAMES.contains(name)) {
            throw new ValidationException(field, "'" + name + "' is taken by the gateway's own paths (/api/, /console/)");
        }
        return name;
    }

    public static String secretName(String field, String name) {
        if (name.length() > 253 || !SECRET_NAME.matcher(name).matches() || name.contains("..")) {
            throw new ValidationException(field, "'" + name + "' is not a valid secret name (DNS-1123 subdomain)");
        }
        return name;
    }

    public static <T> T required(String field, T value) {
        if (value == null || value instanceof String text && text.isBlank()) {
            throw new ValidationException(field, "is required");
        }
        return value;
    }
}
