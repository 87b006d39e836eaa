package io.granary.kit.understore;

import io.granary.kit.security.SecretFiles;
import io.granary.ufs.Credentials;
import io.granary.ufs.HdfsLogin;
import io.granary.ufs.UnderStoreException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class UnderStoreProducerTest {

    @TempDir
    Path secrets;

    @Test
    void aMountsCredentialsAreItsSecretsKeyPair() throws IOException {
        Path minio = Files.createDirectories(secrets.resolve("minio"));
        Files.writeString(minio.resolve("accessKey"), "AKIAEXAMPLE\n");
        Files.writeString(minio.resolve("secretKey"), "wJalrXUtnFEMI\n");

        assertThat(UnderStoreProducer.credentials(new SecretFiles(secrets, Map.of()), "minio"))
                .isEqualTo(new Credentials("AKIAEXAMPLE", "wJalrXUtnFEMI"));
    }

    @Test
    void aSecretThatCannotBeUsedIsAnUnderStoreFailureNamingItButNoValue() {
        SecretFiles files = new SecretFiles(null, Map.of("GRANARY_SECRET_HALF_ACCESS_KEY", "AKIAHALF"));

        assertThatThrownBy(() -> UnderStoreProducer.credentials(files, "half"))
                .isInstanceOf(UnderStoreException.class).hasMessageContaining("'half'")
                .hasMessageContaining("GRANARY_SECRET_HALF_SECRET_KEY").hasMessageNotContaining("AKIAHALF");
        assertThatThrownBy(() -> UnderStoreProducer.credentials(files, "../etc"))
                .isInstanceOf(UnderStoreException.class).hasMessageContaining("not a valid secret name");
    }

    @Test
    void anHdfsMountActsAsTheSecretsUserOrItsKeytabFile() throws IOException {
        Path etl = Files.createDirectories(secrets.resolve("hdfs-etl"));
        Files.writeString(etl.resolve("user"), "etl\n");
        Path kerberos = Files.createDirectories(secrets.resolve("hdfs-kerberos"));
        Files.write(kerberos.resolve("keytab"), new byte[] {5, 2, 0, 0, 0, 1});
        SecretFiles files = new SecretFiles(secrets, Map.of("GRANARY_SECRET_HDFS_ENV_USER", "analyst"));

        assertThat(UnderStoreProducer.hdfsLogin(files, "hdfs-etl")).isEqualTo(HdfsLogin.user("etl"));
        assertThat(UnderStoreProducer.hdfsLogin(files, "hdfs-kerberos")).isEqualTo(HdfsLogin.keytab(kerberos.resolve("keytab")));
        assertThat(UnderStoreProducer.hdfsLogin(files, "hdfs-env")).isEqualTo(HdfsLogin.user("analyst"));
        assertThatThrownBy(() -> UnderStoreProducer.hdfsLogin(files, "minio"))
                .isInstanceOf(UnderStoreException.class).hasMessageContaining("'minio' has no user");
    }
}
