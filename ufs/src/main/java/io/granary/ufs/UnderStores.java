package io.granary.ufs;

import io.granary.contracts.dataset.Mount;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Opens the under-store a mount points at: {@code s3://bucket/prefix} (options {@code endpoint}, {@code region},
 * {@code pathStyle}; credentials from the mount's {@code credentialsRef}), {@code hdfs://namenode:port/path}
 * ({@link HdfsOptions}; a user name or keytab from the credentialsRef) or {@code file:///path}, which must lie
 * inside one of the configured allowed roots so that a dataset definition cannot expose the host's files.
 */
public final class UnderStores {

    public static final String DEFAULT_REGION = "us-east-1";
    public static final URI DEFAULT_ENDPOINT = URI.create("https://s3.amazonaws.com");

    private final List<Path> allowedRoots;
    private final Function<String, Credentials> credentials;
    private final Function<String, HdfsLogin> hdfsLogins;

    /**
     * @param allowedRoots directories under which {@code file://} mounts are accepted (none: no local mounts)
     * @param credentials  the key pair an S3 mount's credentialsRef names, throwing {@link UnderStoreException}
     *                     when there is none; the caller reads secrets, as it knows where they are
     * @param hdfsLogins   the user name or keytab an HDFS mount's credentialsRef names, throwing likewise
     */
    public UnderStores(List<Path> allowedRoots, Function<String, Credentials> credentials,
                       Function<String, HdfsLogin> hdfsLogins) {
        this.allowedRoots = List.copyOf(allowedRoots);
        this.credentials = credentials;
        this.hdfsLogins = hdfsLogins;
    }

    /** Without HDFS logins: an {@code hdfs://} mount naming a credentialsRef is refused. */
    public UnderStores(List<Path> allowedRoots, Function<String, Credentials> credentials) {
        this(allowedRoots, credentials, ref -> {
            throw new UnderStoreException("no HDFS credentials can be read here (secret '" + ref + "')");
        });
    }

    /** @throws UnderStoreException naming the uri if the mount is malformed, refused, or its credentials are missing */
    public UnderStore open(Mount mount) {
        URI uri = parse(mount.uri());
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        return switch (scheme) {
            case "s3" -> new S3UnderStore(s3Location(uri, mount), credentials(mount.credentialsRef()));
            case "file" -> new LocalUnderStore(localRoot(uri, mount.uri()));
            case "hdfs" -> hdfs(uri, mount);
            default -> throw new UnderStoreException("mount uri " + mount.uri()
                    + " has an unsupported scheme: use s3://bucket/prefix, hdfs://namenode:port/path or file:///path");
        };
    }

    /**
     * Makes the place a new mount will point at, for a dataset that starts empty (a bucket an S3 client creates):
     * a local directory is created, inside an allowed root only, and an HDFS one; an S3 prefix needs nothing, as it
     * exists once it holds an object.
     *
     * @throws UnderStoreException if the directory is outside the allowed roots or cannot be made
     */
    public void create(Mount mount) {
        URI uri = parse(mount.uri());
        if ("hdfs".equalsIgnoreCase(uri.getScheme())) {
            try (HdfsUnderStore store = hdfs(uri, mount)) {
                store.createRoot();
            }
            return;
        }
        if (!"file".equalsIgnoreCase(uri.getScheme())) {
            return;
        }
        Path directory = localPath(uri, mount.uri());
        Path existing = directory;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            throw new UnderStoreException("mount uri " + mount.uri() + " has no existing ancestor");
        }
        allowed(realPath(existing, mount.uri()), mount.uri());  // before anything is made
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UnderStoreException("could not make the directory of mount " + mount.uri() + ": " + e.getMessage());
        }
    }

    /**
     * Takes away what {@link #create} made, once its dataset is gone: a local directory that holds nothing but
     * Granary's own hidden entries (uploads never completed, temporary files) is removed with them; a directory
     * that holds anything else, and an S3 prefix, are left as they are.
     */
    public void remove(Mount mount) {
        URI uri = parse(mount.uri());
        if (!"file".equalsIgnoreCase(uri.getScheme())) {
            return;
        }
        Path root = localRoot(uri, mount.uri());
        try (Stream<Path> entries = Files.list(root)) {
            if (entries.anyMatch(entry -> !Keys.ownHidden(entry.getFileName().toString()))) {
                return;
            }
        } catch (IOException e) {
            throw new UnderStoreException("could not read the directory of mount " + mount.uri() + ": " + e.getMessage());
        }
        try (Stream<Path> tree = Files.walk(root)) {
            for (Path path : tree.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UnderStoreException("could not remove the directory of mount " + mount.uri() + ": " + e.getMessage());
        }
    }

    private HdfsUnderStore hdfs(URI uri, Mount mount) {
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            throw new UnderStoreException("mount uri " + mount.uri() + " names no namenode: use "
                    + "hdfs://namenode:port/path or hdfs://nameservice/path");
        }
        String ref = mount.credentialsRef();
        HdfsLogin login = ref == null || ref.isBlank() ? null : hdfsLogins.apply(ref);
        return new HdfsUnderStore(uri, HdfsOptions.configuration(uri, mount), login, mount.option("principal"));
    }

    /** Null, for anonymous access, when the mount names no secret. */
    private Credentials credentials(String ref) {
        return ref == null || ref.isBlank() ? null : credentials.apply(ref);
    }

    static S3Location s3Location(URI uri, Mount mount) {
        String bucket = uri.getRawAuthority();
        if (bucket == null || bucket.isEmpty()) {
            throw new UnderStoreException("mount uri " + mount.uri() + " names no bucket: use s3://bucket/prefix");
        }
        String endpoint = mount.option("endpoint");
        String region = mount.option("region");
        return new S3Location(
                endpoint == null || endpoint.isBlank() ? DEFAULT_ENDPOINT : endpoint(endpoint, mount.uri()),
                region == null || region.isBlank() ? DEFAULT_REGION : region,
                bucket,
                uri.getPath(),
                pathStyle(mount.option("pathStyle"), mount.uri()));
    }

    private Path localRoot(URI uri, String text) {
        Path root = realPath(localPath(uri, text), text);
        if (!Files.isDirectory(root)) {
            throw new UnderStoreException("mount uri " + text + " is not a directory");
        }
        return allowed(root, text);
    }

    private static Path localPath(URI uri, String text) {
        try {
            return Path.of(uri).normalize();
        } catch (IllegalArgumentException e) {
            throw new UnderStoreException("mount uri " + text + " is not a local path: use file:///path");
        }
    }

    private static Path realPath(Path path, String text) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            throw new UnderStoreException("mount uri " + text + " points at a directory that does not exist");
        }
    }

    private Path allowed(Path real, String text) {
        for (Path allowed : realAllowedRoots()) {
            if (real.startsWith(allowed)) {
                return real;
            }
        }
        // The roots are the server's own paths: the reason is shown to any reader of the dataset, so it names the
        // setting, not them.
        throw new UnderStoreException("mount uri " + text + " is outside the directories allowed for local mounts "
                + "(granary.allowed-roots)");
    }

    /** Compared as real paths, so neither a symlinked root nor a symlink in the mount uri can slip past. */
    private List<Path> realAllowedRoots() {
        List<Path> real = new ArrayList<>();
        for (Path allowed : allowedRoots) {
            try {
                real.add(allowed.toRealPath());
            } catch (IOException e) {
                // A root that does not exist (yet) allows nothing.
            }
        }
        return real;
    }

    private static URI parse(String text) {
        if (text == null || text.isBlank()) {
            throw new UnderStoreException("a mount needs a uri");
        }
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw new UnderStoreException("mount uri " + text + " is not a valid uri: " + e.getReason());
        }
        if (uri.getRawUserInfo() != null) {
            // Never echo it: whatever sits before '@' is likely a key pair.
            throw new UnderStoreException("mount uri " + uri.getScheme() + "://***@" + uri.getHost() + uri.getRawPath()
                    + " carries credentials: put them in a secret and name it in credentialsRef");
        }
        return uri;
    }

    private static URI endpoint(String endpoint, String mountUri) {
        try {
            URI uri = new URI(endpoint);
            if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null
                    && uri.getRawUserInfo() == null) {
                return uri;
            }
        } catch (URISyntaxException e) {
            // Reported below with the same message as any other bad endpoint.
        }
        throw new UnderStoreException("option endpoint of mount " + mountUri + " must be an http(s) url without "
                + "credentials" + (endpoint.contains("@") ? "" : ", not '" + endpoint + "'"));
    }

    private static Boolean pathStyle(String value, String mountUri) {
        if (value == null || value.isBlank()) {
            return null;
        }
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> throw new UnderStoreException("option pathStyle of mount " + mountUri
                    + " must be true or false, not '" + value + "'");
        };
    }
}
