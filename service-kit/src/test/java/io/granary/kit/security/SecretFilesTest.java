package io.granary.kit.security;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Secrets as real files in a temporary secrets directory, and an environment given as a map. */
class SecretFilesTest {

    @TempDir
    Path secrets;

    @Test
    void readsAKubernetesSecretDirectory() throws IOException {
        secret("minio", Map.of("accessKey", "AKIAEXAMPLE\n", "secretKey", "wJalrXUtnFEMI\r\n"));
        SecretFiles files = new SecretFiles(secrets, Map.of());

        assertThat(files.read("minio", "accessKey")).as("a trailing newline is not part of a key")
                .contains("AKIAEXAMPLE");
        assertThat(files.require("minio", "secretKey")).isEqualTo("wJalrXUtnFEMI");
        assertThat(files.read("minio", "token")).as("a key the directory lacks").isEmpty();
    }

    @Test
    void theEnvironmentNamesEachKeyOfASecret() {
        Map<String, String> env = Map.of(
                "GRANARY_SECRET_TRAIN_DATA_ACCESS_KEY", "AKIAENV",
                "GRANARY_SECRET_GRANARY_ACCESS_IDENTITIES_JSON", "{\"identities\": []}",
                "GRANARY_SECRET_MY_STORE_V2_TOKEN", "tok\n",
                "GRANARY_SECRET_TEAMB_TOKEN", "tok-b",
                "GRANARY_SECRET_BLANK_TOKEN", " ");

        for (SecretFiles files : new SecretFiles[] {new SecretFiles(secrets, env), new SecretFiles(null, env)}) {
            assertThat(files.read("train-data", "accessKey")).as("camel case split").contains("AKIAENV");
            assertThat(files.read("granary-access", "identities.json")).contains("{\"identities\": []}");
            assertThat(files.read("my.store-v2", "token")).as("'.', '-' and a newline").contains("tok");
            assertThat(files.read("teamB", "token")).as("a ref is only upper-cased").contains("tok-b");
            assertThat(files.read("blank", "token")).as("a blank variable is unset").isEmpty();
            assertThat(files.read("train-data", "secretKey")).isEmpty();
        }
    }

    @Test
    void theSecretDirectoryWinsOverTheEnvironment() throws IOException {
        secret("minio", Map.of("accessKey", "FROMDIR", "secretKey", "dir-secret"));
        Map<String, String> env = Map.of("GRANARY_SECRET_MINIO_ACCESS_KEY", "FROMENV",
                "GRANARY_SECRET_MINIO_SECRET_KEY", "env-secret");

        assertThat(new SecretFiles(secrets, env).read("minio", "accessKey")).contains("FROMDIR");
    }

    @Test
    void aSecretIsReadWholeFromItsDirectoryNeverPartlyFromTheEnvironment() throws IOException {
        secret("half", Map.of("accessKey", "AKIAHALF"));
        SecretFiles files = new SecretFiles(secrets, Map.of("GRANARY_SECRET_HALF_SECRET_KEY", "stale-secret"));

        assertThat(files.read("half", "secretKey")).isEmpty();
        assertThatThrownBy(() -> files.require("half", "secretKey")).isInstanceOf(SecretException.class)
                .hasMessageContaining("'half'").hasMessageContaining(secrets.resolve("half/secretKey").toString())
                .hasMessageNotContaining("GRANARY_SECRET_HALF").hasMessageNotContaining("AKIAHALF")
                .hasMessageNotContaining("stale-secret");
    }

    @Test
    void anEmptyFileIsAnErrorNamingTheFile() throws IOException {
        Map<String, String> env = Map.of("GRANARY_SECRET_CLUSTER_TOKEN", "from-env");
        for (String empty : new String[] {"", "\n", " \r\n"}) {
            secret("cluster", Map.of("token", empty));

            assertThatThrownBy(() -> new SecretFiles(secrets, env).read("cluster", "token"))
                    .as("'%s'", empty).isInstanceOf(SecretException.class)
                    .hasMessageContaining(secrets.resolve("cluster/token") + " is empty");
        }
    }

    @Test
    void aFileThatCannotBeReadIsAnErrorNamingIt() throws IOException {
        Files.createDirectories(secrets.resolve("odd/token"));

        assertThatThrownBy(() -> new SecretFiles(secrets, Map.of()).read("odd", "token"))
                .isInstanceOf(SecretException.class).hasMessageContaining("cannot read " + secrets.resolve("odd/token"));
    }

    @Test
    void aMissingKeyNamesWhereItWasLookedForButNoValue() throws IOException {
        secret("elsewhere", Map.of("token", "tok-elsewhere"));
        Map<String, String> env = Map.of("GRANARY_SECRET_HALF_ACCESS_KEY", "AKIAHALF");

        assertThatThrownBy(() -> new SecretFiles(secrets, env).require("nowhere", "accessKey"))
                .isInstanceOf(SecretException.class).hasMessageContaining("'nowhere'")
                .hasMessageContaining(secrets.resolve("nowhere/accessKey") + " or GRANARY_SECRET_NOWHERE_ACCESS_KEY");
        assertThatThrownBy(() -> new SecretFiles(null, env).require("half", "secretKey"))
                .isInstanceOf(SecretException.class)
                .hasMessage("secret 'half' has no secretKey: not in GRANARY_SECRET_HALF_SECRET_KEY");
        assertThat(new SecretFiles(secrets, env).where("elsewhere", "accessKey"))
                .isEqualTo(secrets.resolve("elsewhere/accessKey").toString());
    }

    @Test
    void aRefCannotWalkOutOfTheSecretsDirectory() throws IOException {
        Files.writeString(secrets.resolve("token"), "outside");
        SecretFiles files = new SecretFiles(secrets.resolve("inner"), Map.of());
        Files.createDirectories(secrets.resolve("inner"));

        for (String ref : new String[] {"..", "../inner", "a/b", "/etc", "a..b", "-x", "", " "}) {
            assertThatThrownBy(() -> files.read(ref, "token")).as(ref).isInstanceOf(SecretException.class)
                    .hasMessageContaining("not a valid secret name");
            assertThatThrownBy(() -> files.where(ref, "token")).as(ref).isInstanceOf(SecretException.class);
        }
        assertThatThrownBy(() -> files.read(null, "token")).isInstanceOf(SecretException.class);
    }

    private void secret(String ref, Map<String, String> keys) throws IOException {
        Path dir = Files.createDirectories(secrets.resolve(ref));
        for (Map.Entry<String, String> key : keys.entrySet()) {
            Files.writeString(dir.resolve(key.getKey()), key.getValue());
        }
    }
}
