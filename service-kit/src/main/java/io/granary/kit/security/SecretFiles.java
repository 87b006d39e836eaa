package io.granary.kit.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Every secret Granary reads: the cluster credential, the identities and their keys, a mount's credentials. A
 * secret {@code ref} is the directory {@code <secrets-dir>/<ref>} when there is one, a file per key as Kubernetes
 * mounts a Secret; else environment variables {@code GRANARY_SECRET_<REF>_<KEY>} (the ref upper-cased, the key's
 * camel case split by '_', '-' and '.' as '_'), which is what docker-compose and a laptop can offer. A secret is
 * read whole from one place, so a directory holds all of it and a stale variable never pairs with a fresh file.
 */
public final class SecretFiles {

    /** Kubernetes Secret names; also keeps a ref from walking out of the secrets directory. */
    private static final Pattern REF = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?");

    private final Path dir;
    private final Map<String, String> env;

    /**
     * @param dir where secrets are mounted; null when there is none
     * @param env the environment to fall back on (injectable for tests)
     */
    public SecretFiles(Path dir, Map<String, String> env) {
        this.dir = dir;
        this.env = Map.copyOf(env);
    }

    /**
     * @return the key's value without trailing newlines; empty when the secret has no such key (an unset or blank
     *         variable is none)
     * @throws SecretException for a ref that is no secret name, and for a key file that is empty or unreadable: a
     *                         file is there to hold a value, so an empty one is a mistake to name, not a key to skip
     */
    public Optional<String> read(String ref, String key) {
        Path secret = directory(ref);
        if (secret == null) {
            return Optional.ofNullable(env.get(variable(ref, key))).map(SecretFiles::withoutNewline)
                    .filter(value -> !value.isBlank());
        }
        Path file = secret.resolve(key);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        String value;
        try {
            value = withoutNewline(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new SecretException("secret '" + ref + "': cannot read " + file, e);
        }
        if (value.isBlank()) {
            throw new SecretException("secret '" + ref + "': " + file + " is empty");
        }
        return Optional.of(value);
    }

    /**
     * The file holding a key, for a value that is not text (a Kerberos keytab): only a secret mounted as a
     * directory has files; empty when the secret has no such key or lives in the environment.
     */
    public Optional<Path> file(String ref, String key) {
        Path secret = directory(ref);
        if (secret == null || !Files.isRegularFile(secret.resolve(key))) {
            return Optional.empty();
        }
        return Optional.of(secret.resolve(key));
    }

    /** @throws SecretException as {@link #read} does, and naming where it looked when the key is not there */
    public String require(String ref, String key) {
        return read(ref, key).orElseThrow(() -> new SecretException(
                "secret '" + ref + "' has no " + key + ": not in " + where(ref, key)));
    }

    /** Where a key is looked for, to say so when it is missing (never its value). */
    public String where(String ref, String key) {
        Path secret = directory(ref);
        if (secret != null) {
            return secret.resolve(key).toString();
        }
        return (dir == null ? "" : dir.resolve(ref).resolve(key) + " or ") + variable(ref, key);
    }

    /** The secret's directory; null when it has none, so it is read from the environment. */
    private Path directory(String ref) {
        if (ref == null || !REF.matcher(ref).matches() || ref.contains("..")) {
            throw new SecretException("'" + ref + "' is not a valid secret name");
        }
        return dir != null && Files.isDirectory(dir.resolve(ref)) ? dir.resolve(ref) : null;
    }

    private static String variable(String ref, String key) {
        return ("GRANARY_SECRET_" + ref + "_" + key.replaceAll("([a-z])([A-Z])", "$1_$2"))
                .toUpperCase(Locale.ROOT).replace('-', '_').replace('.', '_');
    }

    /** Secrets written with echo or a text editor end in a newline that is not part of the value. */
    private static String withoutNewline(String value) {
        return value.replaceAll("[\r\n]+$", "");
    }
}
