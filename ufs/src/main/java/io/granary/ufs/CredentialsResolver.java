package io.granary.ufs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Turns a mount's {@code credentialsRef} (the name of a secret) into credentials. Looks first in a secrets
 * directory laid out as Kubernetes mounts a Secret ({@code <dir>/<ref>/accessKey} and {@code .../secretKey}),
 * then in environment variables {@code GRANARY_SECRET_<REF>_ACCESS_KEY} and {@code ..._SECRET_KEY} (the ref
 * upper-cased, '-' and '.' as '_'), which is what docker-compose and a laptop can offer.
 */
public final class CredentialsResolver {

    /** Kubernetes Secret names; also keeps a ref from walking out of the secrets directory. */
    private static final Pattern REF = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?");

    private final Path secretsDir;
    private final Map<String, String> env;

    /**
     * @param secretsDir where Secrets are mounted; null when there is none
     * @param env        the environment to fall back on (injectable for tests)
     */
    public CredentialsResolver(Path secretsDir, Map<String, String> env) {
        this.secretsDir = secretsDir;
        this.env = Map.copyOf(env);
    }

    /** Reads the process environment. */
    public static CredentialsResolver fromEnvironment(Path secretsDir) {
        return new CredentialsResolver(secretsDir, System.getenv());
    }

    /**
     * @return empty for a null or blank ref, which means anonymous access
     * @throws UnderStoreException naming the ref (never a value) when it is invalid or found nowhere
     */
    public Optional<Credentials> resolve(String ref) {
        if (ref == null || ref.isBlank()) {
            return Optional.empty();
        }
        if (!REF.matcher(ref).matches() || ref.contains("..")) {
            throw new UnderStoreException("credentialsRef '" + ref + "' is not a valid secret name");
        }
        Optional<Credentials> fromDir = fromSecretsDir(ref);
        if (fromDir.isPresent()) {
            return fromDir;
        }
        String variable = "GRANARY_SECRET_" + ref.toUpperCase(Locale.ROOT).replace('-', '_').replace('.', '_');
        String accessKey = env.get(variable + "_ACCESS_KEY");
        String secretKey = env.get(variable + "_SECRET_KEY");
        if (isBlank(accessKey) || isBlank(secretKey)) {
            throw new UnderStoreException("credentials '" + ref + "' not found: no "
                    + (secretsDir == null ? "secrets directory" : secretsDir.resolve(ref) + "/{accessKey,secretKey}")
                    + " and no " + variable + "_ACCESS_KEY / " + variable + "_SECRET_KEY in the environment");
        }
        return Optional.of(new Credentials(withoutNewline(accessKey), withoutNewline(secretKey)));
    }

    private Optional<Credentials> fromSecretsDir(String ref) {
        if (secretsDir == null || !Files.isDirectory(secretsDir.resolve(ref))) {
            return Optional.empty();
        }
        Path dir = secretsDir.resolve(ref);
        return Optional.of(new Credentials(readKey(dir, "accessKey", ref), readKey(dir, "secretKey", ref)));
    }

    private static String readKey(Path dir, String name, String ref) {
        Path file = dir.resolve(name);
        try {
            String value = withoutNewline(Files.readString(file, StandardCharsets.UTF_8));
            if (value.isEmpty()) {
                throw new UnderStoreException("credentials '" + ref + "': " + file + " is empty");
            }
            return value;
        } catch (IOException e) {
            throw new UnderStoreException("credentials '" + ref + "': cannot read " + file, e);
        }
    }

    /** Secrets written with echo or a text editor end in a newline that is not part of the key. */
    private static String withoutNewline(String value) {
        return value.replaceAll("[\r\n]+$", "");
    }

    private static boolean isBlank(String value) {
        return value == null || value.isBlank();
    }
}
