package io.granary.hook.admission;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.granary.devstack.testing.RestAssuredAuth;
import io.granary.devstack.testing.StackResource;
import io.granary.hook.KubernetesApiResource;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

/**
 * Real AdmissionReviews over HTTPS against statistics served by a running metadata-service (fed by heartbeats on
 * a real broker) and node topology from a Kubernetes API server; every answer's JSONPatch is applied to the pod
 * as the API server would apply it.
 *
 * <pre>
 *            imagenet  coco     zone    region
 *   node-a   600 MiB   -        zone-1  region-1
 *   node-b   300 MiB   -        zone-1  region-1
 *   node-c   100 MiB   400 MiB  zone-2  region-1
 *   node-d   -         -        zone-3  region-2
 * </pre>
 */
@QuarkusTest
@QuarkusTestResource(value = StackResource.class, initArgs = @ResourceArg(name = "services", value = "metadata-service"))
@QuarkusTestResource(KubernetesApiResource.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdmissionTest {

    private static final long MIB = 1 << 20;

    @TestHTTPResource(value = "/mutate", tls = true)
    URL mutate;

    @TestHTTPResource(value = "/mutate/spare-cache-nodes", tls = true)
    URL spareCacheNodes;

    @TestHTTPResource(value = "/q/metrics", tls = true)
    URL metrics;

    @ConfigProperty(name = "granary.metadata-url")
    String metadataUrl;

    @ConfigProperty(name = "granary.allowed-roots")
    Path localRoot;

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String kafka;

    @Inject
    ObjectMapper json;

    private Heartbeats heartbeats;

    @BeforeAll
    void cacheSomeData() throws Exception {
        RestAssuredAuth.asCluster();  // the datasets are made as Granary's services would make them
        for (String dataset : List.of("imagenet", "coco", "fresh", "orphan", "ml-team-photos")) {
            Files.createDirectories(localRoot.resolve(dataset));
            given().contentType(ContentType.JSON)
                    .body(Map.of("name", dataset, "mounts", List.of(Map.of("uri", localRoot.resolve(dataset).toUri().toString()))))
                    .when().post(metadataUrl + "/api/v1/datasets").then().statusCode(201);
        }
        heartbeats = new Heartbeats(kafka, json, List.of(
                new Heartbeats.Worker("worker-a", "node-a", Map.of("imagenet", 600 * MIB)),
                new Heartbeats.Worker("worker-b", "node-b", Map.of("imagenet", 300 * MIB)),
                new Heartbeats.Worker("worker-c", "node-c", Map.of("imagenet", 100 * MIB, "coco", 400 * MIB)),
                // A node the API server does not list: its hostname label cannot be known.
                new Heartbeats.Worker("worker-z", "node-z", Map.of("orphan", 50 * MIB))));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            given().when().get(metadataUrl + "/api/v1/datasets/imagenet/nodes").then().statusCode(200)
                    .body("size()", equalTo(3));
            given().when().get(metadataUrl + "/api/v1/datasets/coco/nodes").then().statusCode(200)
                    .body("find { it.node == 'node-c' }.cachedBytes", equalTo((int) (400 * MIB)));
            given().when().get(metadataUrl + "/api/v1/datasets/orphan/nodes").then().statusCode(200)
                    .body("size()", equalTo(1));
        });
    }

    @AfterAll
    void stopHeartbeats() {
        if (heartbeats != null) {
            heartbeats.close();
        }
    }

    @Test
    void podReadingOneDatasetPrefersTheNodesHoldingItThenTheirZoneThenTheirRegion() {
        ObjectNode review = Reviews.label(Reviews.podCreate(), "granary.io/dataset", "imagenet");
        JsonNode answer = Reviews.post(mutate, review);

        assertThat(answer.path("apiVersion").asText()).isEqualTo("admission.k8s.io/v1");
        assertThat(answer.path("kind").asText()).isEqualTo("AdmissionReview");
        assertThat(answer.path("response").path("uid").asText()).isEqualTo("705ab4f5-6393-11e8-b7cc-42010a800002");
        assertThat(answer.path("response").path("allowed").asBoolean()).isTrue();
        assertThat(answer.path("response").path("patchType").asText()).isEqualTo("JSONPatch");

        ObjectNode pod = Reviews.patched(review, answer);
        // Shares of 1000 MiB: node 50 + ceil(50 x share), zone 10 + ceil(40 x share), region ceil(10 x share).
        assertThat(Terms.preferred(pod)).containsExactly(
                new Terms.Term(80, "metadata.name", "node-a"),
                new Terms.Term(65, "metadata.name", "node-b"),
                new Terms.Term(55, "metadata.name", "node-c"),
                new Terms.Term(46, "topology.kubernetes.io/zone", "zone-1"),
                new Terms.Term(14, "topology.kubernetes.io/zone", "zone-2"),
                new Terms.Term(10, "topology.kubernetes.io/region", "region-1"));
        assertThat(pod.path("spec").path("affinity").path("nodeAffinity")
                .has("requiredDuringSchedulingIgnoredDuringExecution")).isFalse();

        for (JsonNode container : Terms.allContainers(pod)) {
            assertThat(Terms.env(container, "AWS_ENDPOINT_URL")).isEqualTo("http://granary-gateway:8080");
            assertThat(Terms.env(container, "GRANARY_DATASETS")).isEqualTo("imagenet");
        }
        assertThat(Terms.env(pod.path("spec").path("containers").get(0), "EPOCHS")).isEqualTo("90");
        assertThat(pod.path("spec").path("volumes")).hasSize(1);
        assertThat(pod.path("metadata").path("annotations").path("granary.io/affinity").asText())
                .startsWith("imagenet: node-a=80 node-b=65 node-c=55 zone/zone-1=46");
        // The patch touches only what the hook owns.
        for (JsonNode op : Reviews.patch(answer)) {
            assertThat(op.path("op").asText()).isIn("add", "replace");
            assertThat(op.path("path").asText()).matches(
                    "/spec/affinity|/spec/(initContainers|containers)/\\d+/env(/\\d+)?"
                            + "|/metadata/annotations/granary.io~1affinity");
        }
        // Everything else the API server sent is untouched.
        ObjectNode original = Reviews.pod(review);
        assertThat(pod.path("spec").path("tolerations")).isEqualTo(original.path("spec").path("tolerations"));
        assertThat(pod.path("metadata").path("ownerReferences")).isEqualTo(original.path("metadata").path("ownerReferences"));

        JsonNode again = Reviews.post(mutate, Reviews.reinvocation(review, pod));
        assertThat(again.path("response").path("allowed").asBoolean()).isTrue();
        assertThat(Reviews.patch(again)).as("reinvoked on its own result, the webhook changes nothing").isNull();
    }

    @Test
    void severalDatasetsRequiredAndMountedNarrowTheUsersOwnConstraints() {
        ObjectNode review = Reviews.label(Reviews.podCreate(), "granary.io/dataset", "imagenet");
        Reviews.annotate(review, "granary.io/datasets", "imagenet, coco");
        Reviews.label(review, "granary.io/sched", "required");
        Reviews.annotate(review, "granary.io/mount", "/data");
        // The user's own requirement: amd64 nodes. Ours must narrow it (AND), never add an alternative (OR).
        Reviews.pod(review).with("spec").with("affinity").with("nodeAffinity")
                .set("requiredDuringSchedulingIgnoredDuringExecution", json.valueToTree(Map.of("nodeSelectorTerms",
                        List.of(Map.of("matchExpressions", List.of(Map.of("key", "kubernetes.io/arch",
                                "operator", "In", "values", List.of("amd64"))))))));

        ObjectNode pod = Reviews.patched(review, Reviews.post(mutate, review));

        // Shares of 1400 MiB: node-a 600, node-c 500, node-b 300; zone-1 900, zone-2 500; region-1 all.
        assertThat(Terms.preferred(pod)).containsExactly(
                new Terms.Term(72, "metadata.name", "node-a"),
                new Terms.Term(68, "metadata.name", "node-c"),
                new Terms.Term(61, "metadata.name", "node-b"),
                new Terms.Term(36, "topology.kubernetes.io/zone", "zone-1"),
                new Terms.Term(25, "topology.kubernetes.io/zone", "zone-2"),
                new Terms.Term(10, "topology.kubernetes.io/region", "region-1"));
        JsonNode required = pod.path("spec").path("affinity").path("nodeAffinity")
                .path("requiredDuringSchedulingIgnoredDuringExecution").path("nodeSelectorTerms");
        assertThat(required).hasSize(1);
        // By hostname label (a node field selector takes one value only); node-c's label is not its name.
        assertThat(Terms.requirements(required.get(0))).containsExactlyInAnyOrder(
                "kubernetes.io/arch In [amd64]",
                "granary.io/cache-node In [true]",
                "kubernetes.io/hostname In [node-a, node-b, node-c.example.internal]");

        // The FUSE root, read-only: the datasets are at /data/<name>, and a remount on the node reaches the pod.
        assertThat(Terms.volume(pod, "granary-datasets").path("hostPath").path("path").asText()).isEqualTo("/mnt/granary");
        assertThat(Terms.volume(pod, "granary-datasets").path("hostPath").path("type").asText()).isEqualTo("DirectoryOrCreate");
        for (JsonNode container : Terms.allContainers(pod)) {
            JsonNode mount = Terms.mount(container, "granary-datasets");
            assertThat(mount.path("mountPath").asText()).isEqualTo("/data");
            assertThat(mount.path("readOnly").asBoolean()).isTrue();
            assertThat(mount.path("mountPropagation").asText()).isEqualTo("HostToContainer");
            assertThat(Terms.env(container, "GRANARY_DATASETS")).isEqualTo("imagenet,coco");
        }

        assertThat(Reviews.patch(Reviews.post(mutate, Reviews.reinvocation(review, pod)))).isNull();

        // A later webhook added a sidecar: reinvoked, the hook gives it the env and the mount, and nothing else changes.
        ObjectNode withSidecar = pod.deepCopy();
        withSidecar.withArray("/spec/containers").addObject().put("name", "log-shipper").put("image", "fluent-bit:3.2");
        ObjectNode again = Reviews.patched(Reviews.reinvocation(review, withSidecar),
                Reviews.post(mutate, Reviews.reinvocation(review, withSidecar)));
        JsonNode sidecar = again.path("spec").path("containers").get(2);
        assertThat(Terms.env(sidecar, "AWS_ENDPOINT_URL")).isEqualTo("http://granary-gateway:8080");
        assertThat(Terms.mount(sidecar, "granary-datasets").path("mountPath").asText()).isEqualTo("/data");
        assertThat(again.path("spec").path("affinity")).isEqualTo(pod.path("spec").path("affinity"));
    }

    @Test
    void requiredWithNothingCachedStaysAPreferenceSoThePodAlwaysSchedules() {
        ObjectNode review = Reviews.label(Reviews.podCreate(), "granary.io/dataset", "fresh");
        Reviews.label(review, "granary.io/sched", "required");
        JsonNode answer = Reviews.post(mutate, review);
        ObjectNode pod = Reviews.patched(review, answer);

        assertThat(pod.path("spec").has("affinity")).isFalse();
        assertThat(Terms.env(pod.path("spec").path("containers").get(0), "GRANARY_DATASETS")).isEqualTo("fresh");
        assertThat(answer.path("response").path("warnings").toString()).contains("nothing of fresh is cached yet");
    }

    @Test
    void requiredOnANodeWhoseHostnameIsNotKnownStaysAPreferenceRatherThanAGuess() {
        ObjectNode review = Reviews.label(Reviews.label(Reviews.podCreate(), "granary.io/dataset", "orphan"),
                "granary.io/sched", "required");
        JsonNode answer = Reviews.post(mutate, review);
        ObjectNode pod = Reviews.patched(review, answer);

        assertThat(Terms.preferred(pod)).containsExactly(new Terms.Term(100, "metadata.name", "node-z"));
        assertThat(pod.path("spec").path("affinity").path("nodeAffinity")
                .has("requiredDuringSchedulingIgnoredDuringExecution")).isFalse();
        assertThat(answer.path("response").path("warnings").toString())
                .contains("the hostname of node-z is not known yet");
    }

    @Test
    void singleDatasetMountsAtThePathAskedAndAnUnknownOrInvalidDatasetIsAWarning() {
        ObjectNode review = Reviews.label(Reviews.podCreate(), "granary.io/dataset", "imagenet");
        Reviews.annotate(review, "granary.io/datasets", "no-such-set,Bad_Name");
        JsonNode answer = Reviews.post(mutate, review);
        ObjectNode pod = Reviews.patched(review, answer);
        assertThat(answer.path("response").path("warnings").toString())
                .contains("granary: no dataset 'no-such-set'").contains("'Bad_Name' must be a DNS-1123 label");
        assertThat(Terms.env(pod.path("spec").path("containers").get(0), "GRANARY_DATASETS")).isEqualTo("imagenet");
        assertThat(Terms.preferred(pod)).first().isEqualTo(new Terms.Term(80, "metadata.name", "node-a"));
        ObjectNode withSidecar = pod.deepCopy();
        withSidecar.withArray("/spec/containers").addObject().put("name", "log-shipper").put("image", "fluent-bit:3.2");
        ObjectNode again = Reviews.patched(Reviews.reinvocation(review, withSidecar),
                Reviews.post(mutate, Reviews.reinvocation(review, withSidecar)));
        assertThat(Terms.env(again.path("spec").path("containers").get(2), "GRANARY_DATASETS"))
                .as("a reinvocation gives what the first call gave, not the opt-in's unknown names").isEqualTo("imagenet");

        ObjectNode mounted = Reviews.annotate(Reviews.label(Reviews.podCreate(), "granary.io/dataset", "coco"),
                "granary.io/mount", "/data/");
        ObjectNode mountedPod = Reviews.patched(mounted, Reviews.post(mutate, mounted));
        assertThat(Terms.mount(mountedPod.path("spec").path("containers").get(0), "granary-datasets").path("mountPath").asText())
                .isEqualTo("/data");

        ObjectNode badMount = Reviews.annotate(Reviews.label(Reviews.podCreate(), "granary.io/dataset", "coco"),
                "granary.io/mount", "data/../etc");
        JsonNode badAnswer = Reviews.post(mutate, badMount);
        assertThat(badAnswer.path("response").path("warnings").toString()).contains("granary.io/mount");
        assertThat(Reviews.patched(badMount, badAnswer).path("spec").path("volumes")).hasSize(1);
    }

    @Test
    void aDatasetLabelNamesTheDatasetResourceOfThePodsNamespace() {
        // The pod is in ml-team, whose Dataset photos is the Granary dataset ml-team-photos (KubernetesApiResource).
        ObjectNode review = Reviews.label(Reviews.podCreate(), "granary.io/dataset", "photos");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode answer = Reviews.post(mutate, review);
            assertThat(answer.path("response").path("warnings").toString()).doesNotContain("no dataset");
            assertThat(Terms.env(Reviews.patched(review, answer).path("spec").path("containers").get(0),
                    "GRANARY_DATASETS")).isEqualTo("ml-team-photos");
        });
        ObjectNode cli = Reviews.label(Reviews.podCreate(), "granary.io/dataset", "coco");
        assertThat(Terms.env(Reviews.patched(cli, Reviews.post(mutate, cli)).path("spec").path("containers").get(0),
                "GRANARY_DATASETS")).as("a name no Dataset of the namespace has is Granary's own").isEqualTo("coco");
    }

    @Test
    void podsWithoutTheLabelUpdatesAndOtherKindsPassUnchanged() {
        JsonNode plain = Reviews.post(mutate, Reviews.podCreate());
        assertThat(plain.path("response").path("allowed").asBoolean()).isTrue();
        assertThat(Reviews.patch(plain)).isNull();

        ObjectNode update = Reviews.label(Reviews.podCreate(), "granary.io/dataset", "imagenet");
        ((ObjectNode) update.get("request")).put("operation", "UPDATE");
        assertThat(Reviews.patch(Reviews.post(mutate, update))).isNull();

        ObjectNode bound = Reviews.label(Reviews.podCreate(), "granary.io/dataset", "imagenet");
        Reviews.pod(bound).with("spec").put("nodeName", "node-d");
        ObjectNode boundPod = Reviews.patched(bound, Reviews.post(mutate, bound));
        assertThat(boundPod.path("spec").has("affinity")).as("a bound pod's affinity would make the kubelet reject it").isFalse();
        assertThat(Terms.env(boundPod.path("spec").path("containers").get(0), "GRANARY_DATASETS")).isEqualTo("imagenet");
    }

    @Test
    void podsReadingNoDatasetAreSteeredAwayFromCacheNodesWhereTheNamespaceAsks() {
        ObjectNode review = Reviews.podCreate();
        ObjectNode pod = Reviews.patched(review, Reviews.post(spareCacheNodes, review));
        JsonNode term = pod.path("spec").path("affinity").path("nodeAffinity")
                .path("preferredDuringSchedulingIgnoredDuringExecution");
        assertThat(term).hasSize(1);
        assertThat(term.get(0).path("weight").asInt()).isEqualTo(100);
        assertThat(Terms.requirements(term.get(0).path("preference"))).containsExactly("granary.io/cache-node NotIn [true]");
        assertThat(Reviews.patch(Reviews.post(spareCacheNodes, Reviews.reinvocation(review, pod)))).isNull();

        ObjectNode reader = Reviews.label(Reviews.podCreate(), "granary.io/dataset", "imagenet");
        assertThat(Reviews.patch(Reviews.post(spareCacheNodes, reader))).as("a pod reading a dataset is not sent away").isNull();
    }

    @Test
    void aMalformedReviewIsA400NamingTheField() {
        bad("not json at all", "body");
        bad("", "body");
        ObjectNode version = Reviews.podCreate();
        version.put("apiVersion", "admission.k8s.io/v1beta1");
        bad(version.toString(), "apiVersion");
        ObjectNode noUid = Reviews.podCreate();
        ((ObjectNode) noUid.get("request")).remove("uid");
        bad(noUid.toString(), "request.uid");
        ObjectNode noRequest = Reviews.podCreate();
        noRequest.remove("request");
        bad(noRequest.toString(), "request");
        ObjectNode noSpec = Reviews.label(Reviews.podCreate(), "granary.io/dataset", "imagenet");
        Reviews.pod(noSpec).remove("spec");
        bad(noSpec.toString(), "request.object");
        ObjectNode notAPod = Reviews.podCreate();
        ((ObjectNode) notAPod.get("request")).put("object", "a string");
        bad(notAPod.toString(), "request.object");

        // And the webhook carries on.
        assertThat(Reviews.post(mutate, Reviews.podCreate()).path("response").path("allowed").asBoolean()).isTrue();
    }

    @Test
    void admissionsAreCounted() {
        Reviews.post(mutate, Reviews.label(Reviews.podCreate(), "granary.io/dataset", "imagenet"));
        given().relaxedHTTPSValidation().when().get(metrics).then().statusCode(200)
                .body(containsString("granary_hook_admissions_total{outcome=\"mutated\"}"))
                .body(containsString("granary_hook_cache_lookup_seconds_count"));
    }

    private void bad(String body, String field) {
        given().relaxedHTTPSValidation().contentType(ContentType.JSON).body(body)
                .when().post(mutate)
                .then().statusCode(400).contentType("application/problem+json").body("field", equalTo(field));
    }

    /** Reading the parts of a patched pod the tests look at. */
    static final class Terms {

        record Term(int weight, String key, String value) {
        }

        static List<Term> preferred(JsonNode pod) {
            List<Term> terms = new ArrayList<>();
            for (JsonNode term : pod.path("spec").path("affinity").path("nodeAffinity")
                    .path("preferredDuringSchedulingIgnoredDuringExecution")) {
                JsonNode preference = term.path("preference");
                JsonNode requirement = preference.path("matchFields").size() > 0
                        ? preference.path("matchFields").get(0) : preference.path("matchExpressions").get(0);
                assertThat(requirement.path("operator").asText()).isEqualTo("In");
                assertThat(requirement.path("values")).hasSize(1);
                terms.add(new Term(term.path("weight").asInt(), requirement.path("key").asText(),
                        requirement.path("values").get(0).asText()));
            }
            return terms;
        }

        static List<String> requirements(JsonNode selectorTerm) {
            List<String> all = new ArrayList<>();
            selectorTerm.path("matchExpressions").forEach(r -> all.add(describe("", r)));
            selectorTerm.path("matchFields").forEach(r -> all.add(describe("field ", r)));
            return all;
        }

        private static String describe(String prefix, JsonNode requirement) {
            List<String> values = new ArrayList<>();
            requirement.path("values").forEach(v -> values.add(v.asText()));
            return prefix + requirement.path("key").asText() + " " + requirement.path("operator").asText() + " " + values;
        }

        static List<JsonNode> allContainers(JsonNode pod) {
            List<JsonNode> all = new ArrayList<>();
            pod.path("spec").path("initContainers").forEach(all::add);
            pod.path("spec").path("containers").forEach(all::add);
            assertThat(all).hasSize(3);
            return all;
        }

        static String env(JsonNode container, String name) {
            for (JsonNode env : container.path("env")) {
                if (name.equals(env.path("name").asText())) {
                    return env.path("value").asText();
                }
            }
            return null;
        }

        static JsonNode volume(JsonNode pod, String name) {
            for (JsonNode volume : pod.path("spec").path("volumes")) {
                if (name.equals(volume.path("name").asText())) {
                    return volume;
                }
            }
            throw new AssertionError("no volume " + name);
        }

        static JsonNode mount(JsonNode container, String volume) {
            for (JsonNode mount : container.path("volumeMounts")) {
                if (volume.equals(mount.path("name").asText())) {
                    return mount;
                }
            }
            throw new AssertionError("no mount of " + volume + " in " + container.path("name").asText());
        }
    }
}
