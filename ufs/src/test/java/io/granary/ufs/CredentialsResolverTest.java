package io.granary.ufs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CredentialsResolverTest {

    @TempDir
    Path secrets;

    @Test
    void readsAKubernetesSecretDirectory() throws IOException {
        Files.createDirectories(secrets.resolve("minio"));
        Files.writeString(secrets.resolve("minio/accessKey"), "AKIAEXAMPLE\n");
        Files.writeString(secrets.resolve("minio/secretKey"), "wJalrXUtnFEMI\r\n");

        Credentials credentials = new CredentialsResolver(secrets, Map.of()).resolve("minio").orElseThrow();

        assertThat(credentials).isEqualTo(new Credentials("AKIAEXAMPLE", "wJalrXUtnFEMI"));
    }

    @Test
    void theSecretDirectoryWinsOverTheEnvironment() throws IOException {
        Files.createDirectories(secrets.resolve("minio"));
        Files.writeString(secrets.resolve("minio/accessKey"), "FROMDIR");
        Files.writeString(secrets.resolve("minio/secretKey"), "dir-secret");
        Map<String, String> env = Map.of("GRANARY_SECRET_MINIO_ACCESS_KEY", "FROMENV",
                "GRANARY_SECRET_MINIO_SECRET_KEY", "env-secret");

        assertThat(new CredentialsResolver(secrets, env).resolve("minio").orElseThrow().accessKey())
                .isEqualTo("FROMDIR");
    }

    @Test
    void fallsBackToEnvironmentVariables() {
        Map<String, String> env = Map.of("GRANARY_SECRET_TRAIN_DATA_ACCESS_KEY", "AKIAENV",
                "GRANARY_SECRET_TRAIN_DATA_SECRET_KEY", "env-secret");

        assertThat(new CredentialsResolver(secrets, env).resolve("train-data"))
                .contains(new Credentials("AKIAENV", "env-secret"));
        assertThat(new CredentialsResolver(null, env).resolve("train-data")).isPresent();
    }

    @Test
    void aMissingRefNamesTheRefButNoValue() {
        Map<String, String> env = Map.of("GRANARY_SECRET_HALF_ACCESS_KEY", "AKIAHALF");
        CredentialsResolver resolver = new CredentialsResolver(secrets, env);

        assertThatThrownBy(() -> resolver.resolve("nowhere")).isInstanceOf(UnderStoreException.class)
                .hasMessageContaining("'nowhere'").hasMessageContaining("GRANARY_SECRET_NOWHERE_ACCESS_KEY");
        assertThatThrownBy(() -> resolver.resolve("half")).isInstanceOf(UnderStoreException.class)
                .hasMessageContaining("'half'").hasMessageNotContaining("AKIAHALF");
    }

    @Test
    void aRefCannotWalkOutOfTheSecretsDirectory() {
        CredentialsResolver resolver = new CredentialsResolver(secrets, Map.of());

        assertThatThrownBy(() -> resolver.resolve("../etc")).isInstanceOf(UnderStoreException.class)
                .hasMessageContaining("not a valid secret name");
        assertThatThrownBy(() -> resolver.resolve("a/b")).isInstanceOf(UnderStoreException.class);
    }

    @Test
    void noRefMeansAnonymous() {
        CredentialsResolver resolver = new CredentialsResolver(secrets, Map.of());

        assertThat(resolver.resolve(null)).isEmpty();
        assertThat(resolver.resolve("")).isEmpty();
    }

    @Test
    void toStringHidesTheSecret() {
        Credentials credentials = new Credentials("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG");

        assertThat(credentials.toString()).isEqualTo("Credentials[accessKey=AKIA…, secretKey=***]")
                .doesNotContain("wJalrXUtnFEMI");
    }
}
