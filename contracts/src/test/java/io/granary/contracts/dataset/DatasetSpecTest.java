package io.granary.contracts.dataset;

import io.granary.contracts.validation.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DatasetSpecTest {

    private static final Mount S3 = new Mount("s3://train/imagenet", null, Map.of(), "minio");

    @ParameterizedTest
    @ValueSource(strings = {"imagenet", "coco-2017", "abc", "a1b"})
    void acceptsDnsLabels(String name) {
        assertThat(spec(name, S3).validate().name()).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"ImageNet", "-coco", "coco-", "a_b", "ab", "a.b", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "  "})
    void refusesOtherNamesNamingTheField(String name) {
        assertThatThrownBy(() -> spec(name, S3).validate()).isInstanceOf(ValidationException.class)
                .satisfies(e -> assertThat(((ValidationException) e).field()).isEqualTo("name"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"api", "console"})
    void refusesTheNamesOfTheGatewaysOwnPaths(String name) {
        assertField(spec(name, S3), "name", "taken by the gateway's own paths");
    }

    @Test
    void aNameIsRequired() {
        assertField(spec(null, S3), "name", "is required");
    }

    @Test
    void mountsMustBeS3HdfsOrFileUris() {
        assertField(new DatasetSpec("data", List.of(), null, null, null, null, null), "mounts", "at least one");
        assertField(spec("data", mount("gs://bucket/x")), "mounts[0].uri",
                "s3://bucket/prefix, hdfs://namenode:port/path or file:///path");
        assertField(spec("data", mount("hdfs:///no-namenode")), "mounts[0].uri", "names no namenode");
        spec("data", mount("hdfs://namenode:8020/datasets/imagenet")).validate();
        spec("data", mount("hdfs://nameservice1/datasets")).validate();
        assertField(spec("data", mount("s3:///no-bucket")), "mounts[0].uri", "names no bucket");
        assertField(spec("data", mount("not a uri")), "mounts[0].uri", "not a valid uri");
        assertField(spec("data", S3, new Mount(null, "b", null, null)), "mounts[1].uri", "is required");
        spec("data", mount("file:///var/data/set")).validate();
    }

    @Test
    void credentialsInTheUriAreRefusedWithoutRepeatingThem() {
        assertThatThrownBy(() -> spec("data", mount("s3://AKIA:hunter2@bucket/p")).validate())
                .isInstanceOf(ValidationException.class).hasMessageContaining("mounts[0].uri")
                .hasMessageContaining("credentialsRef").hasMessageNotContaining("hunter2");
    }

    @Test
    void secretsInOptionsAreRefused() {
        Mount inline = new Mount("s3://b/p", null, Map.of("secretKey", "hunter2"), null);
        assertThatThrownBy(() -> spec("data", inline).validate()).isInstanceOf(ValidationException.class)
                .hasMessageContaining("mounts[0].options.secretKey").hasMessageNotContaining("hunter2");
    }

    @Test
    void mountNamesAreSingleDistinctDirectories() {
        assertField(spec("data", S3, mount("s3://other/p")), "mounts[1].name", "only one mount");
        assertField(spec("data", new Mount("s3://a/p", "x", null, null), new Mount("s3://b/p", "x", null, null)),
                "mounts[1].name", "'x' is used");
        assertField(spec("data", new Mount("s3://a/p", "x/y", null, null)), "mounts[0].name", "one directory");
        assertField(spec("data", new Mount("s3://a/p", "..", null, null)), "mounts[0].name", "'..'");
        spec("data", S3, new Mount("s3://b/p", "extra", null, null)).validate();
    }

    @Test
    void credentialsRefIsASecretName() {
        assertField(spec("data", new Mount("s3://a/p", null, null, "../etc")), "mounts[0].credentialsRef",
                "not a valid secret name");
    }

    @Test
    void blockSizeReplicasAndTtlAreChecked() {
        assertField(withOptions("16 furlongs", 1, null), "blockSize", "not a size");
        assertField(withOptions("1KiB", 1, null), "blockSize", "between 64KiB and 1GiB");
        assertField(withOptions("2GiB", 1, null), "blockSize", "between 64KiB and 1GiB");
        assertField(withOptions(null, 0, null), "replicas", "between 1 and 16");
        assertField(withOptions(null, null, "soon"), "metadataTtl", "not a positive duration");
        assertField(withOptions(null, null, "-5m"), "metadataTtl", "not a positive duration");

        DatasetSpec valid = withOptions("4MiB", 3, "10m").validate();
        assertThat(valid.blockSizeBytes()).isEqualTo(4L << 20);
        assertThat(valid.metadataTtlDuration()).isEqualTo(Duration.ofMinutes(10));
        assertThat(withOptions(null, null, "PT1H").metadataTtlDuration()).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void defaultsFollowTheDesign() {
        DatasetSpec spec = spec("data", S3).withDefaults();
        assertThat(spec.blockSize()).isEqualTo("16MiB");
        assertThat(spec.replicas()).isEqualTo(1);
        assertThat(spec.readOnly()).isFalse();
        assertThat(spec.nodeSelector()).isEmpty();
        assertThat(spec.metadataTtlDuration()).isNull();
    }

    @Test
    void aCacheShareIsAFractionOfEachWorkersCache() {
        for (double share : new double[] {0, -0.1, 1.5, Double.NaN}) {
            assertField(withShare(share), "cacheShare", "more than 0 and at most 1");
        }
        assertThat(withShare(0.25).validate().withDefaults().cacheShareOrNone()).isEqualTo(0.25);
        assertThat(withShare(1).validate().cacheShare()).isEqualTo(1.0);
        assertThat(spec("data", S3).withDefaults().cacheShareOrNone()).as("none").isZero();
    }

    @Test
    void labelsAreKubernetesLabelsAndSurviveDefaults() {
        Map<String, String> labels = Map.of("granary.io/owner", "team-a.imagenet", "tier", "");
        assertThat(withLabels(labels).validate().withDefaults().labels()).isEqualTo(labels);
        assertThat(spec("data", S3).labels()).as("none").isEmpty();
        assertField(withLabels(Map.of("bad key", "x")), "labels", "not a label key");
        assertField(withLabels(Map.of("-x", "x")), "labels", "not a label key");
        assertField(withLabels(Map.of("tier", "-gold")), "labels.tier", "not a label value");
        assertField(withLabels(Map.of("tier", "x".repeat(64))), "labels.tier", "at most 63");
    }

    private static DatasetSpec withLabels(Map<String, String> labels) {
        return new DatasetSpec("data", List.of(S3), null, null, null, null, null, null, null, labels);
    }

    private static DatasetSpec withShare(double share) {
        return new DatasetSpec("data", List.of(S3), null, null, null, null, null, null, share);
    }

    private static DatasetSpec withOptions(String blockSize, Integer replicas, String ttl) {
        return new DatasetSpec("data", List.of(S3), blockSize, replicas, null, ttl, null);
    }

    private static DatasetSpec spec(String name, Mount... mounts) {
        return new DatasetSpec(name, List.of(mounts), null, null, null, null, null);
    }

    private static Mount mount(String uri) {
        return new Mount(uri, null, null, null);
    }

    private static void assertField(DatasetSpec spec, String field, String message) {
        assertThatThrownBy(spec::validate).isInstanceOf(ValidationException.class)
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(((ValidationException) e).field()).isEqualTo(field));
    }
}
