package io.granary.devstack.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The callers every test system knows, written by {@link S3Resource} into its secrets directory as Granary reads
 * them: the cluster credential ({@code granary-cluster}) and the identities ({@code granary-access}), each with a
 * bearer token and S3 keys of its own. The admin's S3 keys are the S3 server's, as they always were.
 */
public final class Identities {

    /** What Granary's services show each other. */
    public static final String CLUSTER_TOKEN = "test-cluster-token-0123456789abcdef";
    public static final String CLUSTER_AUTHORIZATION = "Bearer " + CLUSTER_TOKEN;

    /** One identity: its name, role and datasets (empty: all), and its credentials. */
    public record Identity(String name, String role, List<String> datasets, String token, String accessKey,
                           String secretKey) {

        public String authorization() {
            return "Bearer " + token;
        }

        String credentialsRef() {
            return name.equals("admin") ? S3Resource.CREDENTIALS_REF : "test-" + name;
        }
    }

    public static final Identity ADMIN = new Identity("admin", "admin", List.of(), "test-admin-token",
            S3Resource.ACCESS_KEY, S3Resource.SECRET_KEY);
    public static final Identity WRITER = identity("writer", "writer");
    public static final Identity READER = identity("reader", "reader");
    /** An admin, but of the dataset {@code other} alone. */
    public static final Identity OTHER_ADMIN = new Identity("other-admin", "admin", List.of("other"),
            "test-other-admin-token", "OTHERADMINKEY", "other-admin-secret-0123456789");
    /** A reader of the dataset {@code team-a} alone. */
    public static final Identity TEAM_A_READER = new Identity("team-a-reader", "reader", List.of("team-a"),
            "test-team-a-reader-token", "TEAMAREADERKEY", "team-a-reader-secret-0123456789");
    /** A writer of the dataset {@code team-a} alone. */
    public static final Identity TEAM_A_WRITER = new Identity("team-a-writer", "writer", List.of("team-a"),
            "test-team-a-writer-token", "TEAMAWRITERKEY", "team-a-writer-secret-0123456789");

    public static final List<Identity> ALL = List.of(ADMIN, WRITER, READER, OTHER_ADMIN, TEAM_A_READER,
            TEAM_A_WRITER);

    private Identities() {
    }

    private static Identity identity(String name, String role) {
        return new Identity(name, role, List.of(), "test-" + name + "-token", name.toUpperCase() + "KEY",
                name + "-secret-0123456789");
    }

    /** Writes the cluster credential, each identity's secret and the identities file under {@code secrets}. */
    public static void write(Path secrets) throws IOException {
        Files.writeString(Files.createDirectories(secrets.resolve("granary-cluster")).resolve("token"), CLUSTER_TOKEN);
        for (Identity identity : ALL) {
            Path secret = Files.createDirectories(secrets.resolve(identity.credentialsRef()));
            Files.writeString(secret.resolve("token"), identity.token());
            Files.writeString(secret.resolve("accessKey"), identity.accessKey());
            Files.writeString(secret.resolve("secretKey"), identity.secretKey());
        }
        String identities = ALL.stream().map(identity -> String.format(
                "{\"name\":\"%s\",\"role\":\"%s\",\"datasets\":[%s],\"credentialsRef\":\"%s\"}", identity.name(),
                identity.role(), identity.datasets().stream().map(d -> '"' + d + '"').collect(Collectors.joining(",")),
                identity.credentialsRef())).collect(Collectors.joining(",\n  ", "{\"identities\": [\n  ", "\n]}\n"));
        Files.writeString(Files.createDirectories(secrets.resolve("granary-access")).resolve("identities.json"),
                identities);
    }
}
