package io.granary.kit.security;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AccessListTest {

    @TempDir
    Path secrets;

    @Test
    void identitiesAreFoundByKeyTokenServiceAccountAndName() throws IOException {
        secret("team-a", Map.of("accessKey", "AKTEAMA", "secretKey", "s3cret", "token", "tok-a\n"));
        identities("""
                {"identities": [
                  {"name": "team-a", "role": "reader", "datasets": ["imagenet"], "credentialsRef": "team-a"},
                  {"name": "trainer", "role": "writer", "serviceAccount": "system:serviceaccount:ml:trainer"}]}""");
        AccessList access = new AccessList(new SecretFiles(secrets, Map.of()), "granary-access");

        Caller teamA = new Caller("team-a", Role.READER, Set.of("imagenet"));
        assertThat(access.byAccessKey("AKTEAMA")).contains(new AccessList.Keyed(teamA, "s3cret"));
        assertThat(access.byToken("tok-a")).as("a secret's trailing newline is not part of it").contains(teamA);
        assertThat(access.byToken("tok-b")).isEmpty();
        assertThat(access.byServiceAccount("system:serviceaccount:ml:trainer").orElseThrow().role())
                .isEqualTo(Role.WRITER);
        assertThat(access.byName("trainer")).isPresent();
    }

    @Test
    void aBadFileChangesNothingAndAGoodOneChangesEverything() throws IOException {
        secret("ops", Map.of("token", "tok-ops"));
        identities("{\"identities\": [{\"name\": \"ops\", \"role\": \"admin\", \"credentialsRef\": \"ops\"}]}");
        AccessList access = new AccessList(new SecretFiles(secrets, Map.of()), "granary-access");
        assertThat(access.byToken("tok-ops").orElseThrow().role()).isEqualTo(Role.ADMIN);

        for (String bad : new String[] {"{not json", "{\"identities\": [{\"name\": \"ops\", \"role\": \"root\"}]}",
                "{\"identities\": [{\"name\": \"ops\", \"role\": \"admin\", \"password\": \"x\"}]}",
                "{\"identities\": [{\"name\": \"a\", \"role\": \"admin\"}, {\"name\": \"a\", \"role\": \"reader\"}]}",
                "{\"identities\": [{\"name\": \"ops\", \"role\": \"admin\", \"credentialsRef\": \"../etc\"}]}"}) {
            identities(bad);
            access.reload();
            assertThat(access.byToken("tok-ops").orElseThrow().role()).as(bad).isEqualTo(Role.ADMIN);
        }
        identities("{\"identities\": [{\"name\": \"ops\", \"role\": \"reader\", \"credentialsRef\": \"ops\"}]}");
        access.reload();
        assertThat(access.byToken("tok-ops").orElseThrow().role()).isEqualTo(Role.READER);
    }

    @Test
    void theClusterCredentialIsRequiredAndComparedWhole() throws IOException {
        assertThatThrownBy(() -> new ClusterCredential(new SecretFiles(secrets, Map.of()), "granary-cluster"))
                .hasMessageContaining("granary-cluster/token");
        ClusterCredential cluster = new ClusterCredential(new SecretFiles(null,
                Map.of("GRANARY_SECRET_GRANARY_CLUSTER_TOKEN", "c1uster")), "granary-cluster");
        assertThat(cluster.matches("c1uster")).isTrue();
        assertThat(cluster.matches("c1uste")).isFalse();
        assertThat(cluster.authorization()).isEqualTo("Bearer c1uster");
    }

    private void secret(String ref, Map<String, String> keys) throws IOException {
        Path dir = Files.createDirectories(secrets.resolve(ref));
        for (Map.Entry<String, String> key : keys.entrySet()) {
            Files.writeString(dir.resolve(key.getKey()), key.getValue());
        }
    }

    private void identities(String json) throws IOException {
        Files.writeString(Files.createDirectories(secrets.resolve("granary-access")).resolve("identities.json"), json);
    }
}
