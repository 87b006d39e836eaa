package io.granary.kit.security;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One value of a secret, found as {@code CredentialsResolver} finds an under-store's: a file of the secret's
 * directory ({@code <secrets-dir>/<ref>/<key>}, as Kubernetes mounts a Secret), else the environment
 * ({@code GRANARY_SECRET_<REF>_<KEY>}, the ref and key upper-cased, camel case split by '_').
 */
public final class SecretFiles {

    private static final Pattern REF = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?");

    private final Path dir;
    private final Map<String, String> env;

    public SecretFiles(Path dir, Map<String, String> env) {
        this.dir = dir;
        this.env = Map.copyOf(env);
    }

    /** @throws IllegalArgumentException for a ref that is no secret name (it could walk out of the directory) */
    public Optional<String> read(String ref, String key) {
        if (!REF.matcher(ref).matches() || ref.contains("..")) {
            throw new IllegalArgumentException("'" + ref + "' is not a valid secret name");
        }
        if (dir != null) {
            Path file = dir.resolve(ref).resolve(key);
            if (Files.isRegularFile(file)) {
                try {
                    String value = Files.readString(file, StandardCharsets.UTF_8).replaceAll("[\r\n]+$", "");
                    return value.isEmpty() ? Optional.empty() : Optional.of(value);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read secret '" + ref + "' key " + key, e);
                }
            }
        }
        return Optional.ofNullable(env.get(variable(ref, key))).filter(value -> !value.isBlank());
    }

    /** Where a secret's value was looked for, to say so when it is missing (never the value). */
    public String where(String ref, String key) {
        return (dir == null ? "" : dir.resolve(ref).resolve(key) + " or ") + variable(ref, key);
    }

    private static String variable(String ref, String key) {
        return ("GRANARY_SECRET_" + ref + "_" + key.replaceAll("([a-z])([A-Z])", "$1_$2"))
                .toUpperCase(Locale.ROOT).replace('-', '_').replace('.', '_');
    }
}
