package io.granary.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The examples in k8s/ against the generated CRD schemas, and what the schemas refuse: a field the API server would
 * reject fails the build here, where no API server runs.
 */
class CrdSchemasTest {

    private static final CrdSchemas SCHEMAS = CrdSchemas.load();

    @Test
    void theCrdsAreGeneratedForEveryKind() {
        assertThat(SCHEMAS.kinds()).containsExactlyInAnyOrder("Dataset", "DataLoad", "CacheRuntime");
    }

    @Test
    void everyExampleOfAGranaryKindIsValid() throws IOException {
        List<JsonNode> granary = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("..", "k8s", "examples"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).toList()) {
                try (MappingIterator<JsonNode> documents = new YAMLMapper().readerFor(JsonNode.class)
                        .readValues(file.toFile())) {
                    documents.readAll().stream()
                            .filter(d -> d.path("apiVersion").asText().startsWith("granary.io/"))
                            .forEach(granary::add);
                }
            }
        }
        assertThat(granary).as("examples of Datasets and DataLoads").hasSizeGreaterThanOrEqualTo(3);
        assertThat(granary).allSatisfy(document -> assertThat(SCHEMAS.refusals(document))
                .as(document.at("/metadata/name").asText()).isEmpty());
    }

    @Test
    void aDatasetWithoutMountsOrWithCredentialsInItsUriIsRefused() {
        assertThat(SCHEMAS.refusals(dataset("  blockSize: 16MiB"))).singleElement().asString()
                .contains("mounts").contains("required");
        assertThat(SCHEMAS.refusals(dataset("""
                  mounts: []
                """))).singleElement().asString().contains("mounts");
        assertThat(SCHEMAS.refusals(dataset("""
                  mounts:
                    - uri: s3://AKIA:secret@bucket/prefix
                """))).singleElement().asString().contains("uri");
        assertThat(SCHEMAS.refusals(dataset("""
                  mounts:
                    - uri: gs://bucket/data
                """))).singleElement().asString().contains("uri");
        assertThat(SCHEMAS.refusals(dataset("""
                  mounts:
                    - uri: hdfs://etl@namenode:8020/data
                """))).singleElement().asString().contains("uri");
        assertThat(SCHEMAS.refusals(dataset("""
                  mounts:
                    - uri: hdfs://namenode:8020/warehouse/logs
                """))).isEmpty();
    }

    @Test
    void boundsTypesAndMisspelledFieldsAreRefused() {
        assertThat(SCHEMAS.refusals(dataset("""
                  mounts:
                    - uri: s3://bucket/
                  replicas: 17
                """))).singleElement().asString().contains("replicas");
        assertThat(SCHEMAS.refusals(dataset("""
                  mounts:
                    - uri: s3://bucket/
                  blockSize: 16 megabytes
                """))).singleElement().asString().contains("blockSize");
        assertThat(SCHEMAS.refusals(dataset("""
                  mounts:
                    - uri: s3://bucket/
                  cacheShare: 0
                """))).singleElement().asString().contains("cacheShare");
        assertThat(SCHEMAS.refusals(dataset("""
                  mounts:
                    - uri: s3://bucket/
                      credentialRef: keys
                """))).as("a misspelled field").singleElement().asString().contains("credentialRef");
        assertThat(SCHEMAS.refusals(dataset("""
                  mounts:
                    - uri: s3://bucket/
                  readOnly: "yes"
                """))).singleElement().asString().contains("readOnly");
    }

    @Test
    void aDataLoadNeedsItsDatasetAndACronSchedule() {
        assertThat(SCHEMAS.refusals(dataLoad("""
                  targets:
                    - path: /
                """))).singleElement().asString().contains("dataset");
        assertThat(SCHEMAS.refusals(dataLoad("""
                  dataset: imagenet
                  targets:
                    - path: /
                  schedule: every night
                """))).singleElement().asString().contains("schedule");
        assertThat(SCHEMAS.refusals(dataLoad("""
                  dataset: imagenet
                  targets:
                    - path: /
                      replicas: 0
                """))).singleElement().asString().contains("replicas");
        assertThat(SCHEMAS.refusals(dataLoad("""
                  dataset: imagenet
                  files: [a/b.tar]
                  schedule: "*/5 * * * *"
                """))).isEmpty();
    }

    @Test
    void aCacheRuntimeNeedsReplicasAndWholeLevels() {
        assertThat(SCHEMAS.refusals(cacheRuntime("""
                  levels: []
                """))).singleElement().asString().contains("replicas");
        assertThat(SCHEMAS.refusals(cacheRuntime("""
                  replicas: 2
                  levels:
                    - medium: RAM
                      path: /var/lib/granary/mem
                      quota: 2GiB
                """))).singleElement().asString().contains("medium");
        assertThat(SCHEMAS.refusals(cacheRuntime("""
                  replicas: 2
                  levels:
                    - medium: SSD
                      path: /var/lib/granary/cache/ssd
                """))).singleElement().asString().contains("quota");
        assertThat(SCHEMAS.refusals(cacheRuntime("""
                  replicas: -1
                """))).singleElement().asString().contains("replicas");
    }

    private static String cacheRuntime(String spec) {
        return resource("CacheRuntime", spec);
    }

    private static String dataset(String spec) {
        return resource("Dataset", spec);
    }

    private static String dataLoad(String spec) {
        return resource("DataLoad", spec);
    }

    private static String resource(String kind, String spec) {
        return "apiVersion: granary.io/v1alpha1\nkind: " + kind + "\nmetadata:\n  name: example\nspec:\n" + spec;
    }
}
