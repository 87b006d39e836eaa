package io.granary.operator;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.granary.devstack.testing.InjectStack;
import io.granary.devstack.testing.RestAssuredAuth;
import io.granary.devstack.testing.StackResource;
import io.granary.operator.dataload.DataLoadResource;
import io.granary.operator.dataload.DataLoadResourceSpec;
import io.granary.operator.dataload.DataLoadResourceStatus;
import io.granary.operator.dataload.DataLoadTarget;
import io.granary.operator.dataset.DatasetMount;
import io.granary.operator.dataset.DatasetReconciler;
import io.granary.operator.dataset.DatasetResource;
import io.granary.operator.dataset.DatasetResourceSpec;
import io.granary.operator.dataset.DatasetResourceStatus;
import io.granary.operator.dataset.StoreCredentials;
import io.granary.operator.runtime.CacheLevel;
import io.granary.operator.runtime.CacheRuntimeResource;
import io.granary.operator.runtime.CacheRuntimeSpec;
import io.granary.operator.status.Condition;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The operator against fabric8's mock API server (CRUD, watches) and the real Granary services as child processes:
 * a metadata-service, a worker and a preload-service. What the resources ask is checked on Granary itself.
 */
@QuarkusTest
@QuarkusTestResource(value = KubernetesApiResource.class, restrictToAnnotatedClass = true)
@QuarkusTestResource(value = StackResource.class, restrictToAnnotatedClass = true,
        initArgs = {
                @ResourceArg(name = "services", value = "metadata-service,block-service,block-service,preload-service"),
                // The workers of a StatefulSet granary-block: their ids are their pods' names.
                @ResourceArg(name = "block-service:granary.block.worker-id", value = "granary-block-0"),
                @ResourceArg(name = "block-service-2:granary.block.worker-id", value = "granary-block-1")})
class OperatorTest {

    private static final String NAMESPACE = "team-a";
    private static final Duration SLOW = Duration.ofSeconds(60);
    private static final CrdSchemas SCHEMAS = CrdSchemas.load();

    @ConfigProperty(name = "granary.operator.kubernetes-url")
    String kubernetesUrl;

    @ConfigProperty(name = "granary.metadata-url")
    String metadataUrl;

    @ConfigProperty(name = "granary.allowed-roots")
    Path localRoot;

    @ConfigProperty(name = "test.preload-service-url")
    String preloadUrl;

    @InjectStack
    StackResource stack;

    @Inject
    Reconcilers reconcilers;

    private KubernetesClient kubernetes;

    @BeforeAll
    static void asCluster() {
        RestAssuredAuth.asCluster();
    }

    @BeforeEach
    void connect() {
        kubernetes = new KubernetesClientBuilder().withConfig(new io.fabric8.kubernetes.client.ConfigBuilder()
                .withMasterUrl(kubernetesUrl).build()).build();
    }

    @AfterEach
    void close() {
        kubernetes.close();
    }

    @Test
    void aDatasetIsMadeInGranaryWithItsVolumeAndClaim() throws IOException {
        Path photos = files("photos", 3, 100_000);
        apply(dataset("photos", photos, false));

        DatasetResource bound = awaitDataset("photos", d -> "Bound".equals(phase(d)));
        DatasetResourceStatus status = bound.getStatus();
        assertThat(status.granaryName()).isEqualTo("team-a-photos");
        assertThat(status.files()).isEqualTo(3);
        assertThat(status.sizeBytes()).isEqualTo(300_000);
        assertThat(status.cached()).isEqualTo("0%");
        assertThat(status.observedGeneration()).isEqualTo(bound.getMetadata().getGeneration());
        assertThat(ready(bound)).extracting(Condition::status, Condition::reason).containsExactly("True", "Bound");

        assertThat(granaryLabels("team-a-photos")).as("the Granary dataset, marked as the resource's")
                .isEqualTo(Map.of(DatasetReconciler.RESOURCE_UID_LABEL, bound.getMetadata().getUid(),
                        DatasetReconciler.RESOURCE_LABEL, "team-a.photos"));

        PersistentVolume volume = kubernetes.persistentVolumes().withName("granary-team-a-photos").get();
        PersistentVolumeClaim claim = kubernetes.persistentVolumeClaims().inNamespace(NAMESPACE).withName("photos")
                .get();
        assertThat(volume.getSpec().getLocal().getPath()).isEqualTo("/mnt/granary/team-a-photos");
        assertThat(volume.getSpec().getAccessModes()).containsExactly("ReadWriteMany");
        assertThat(volume.getSpec().getClaimRef().getNamespace() + "/" + volume.getSpec().getClaimRef().getName())
                .as("the volume is bound ahead to the claim").isEqualTo("team-a/photos");
        assertThat(claim.getSpec().getVolumeName()).as("and the claim to the volume").isEqualTo("granary-team-a-photos");
        assertThat(claim.getMetadata().getOwnerReferences()).singleElement()
                .satisfies(owner -> assertThat(owner.getUid()).isEqualTo(bound.getMetadata().getUid()));
        assertThat(kubernetes.v1().events().inNamespace(NAMESPACE).list().getItems())
                .filteredOn(event -> event.getInvolvedObject().getName().equals("photos"))
                .as("kubectl describe tells it").extracting(e -> e.getType() + " " + e.getReason())
                .contains("Normal Bound");
        // The CRD refuses a changed spec; the mock server does not, as an API server without CEL would not.
        kubernetes.resources(DatasetResource.class).inNamespace(NAMESPACE).withName("photos").edit(d -> {
            d.setSpec(new DatasetResourceSpec(d.getSpec().mounts(), d.getSpec().blockSize(), 2, null, null,
                    d.getSpec().readOnly(), null));
            return d;
        });
        assertThat(ready(awaitDataset("photos", d -> "SpecDiffers".equals(ready(d).reason()))).message())
                .startsWith("spec.replicas: the Granary dataset made has another value");
        assertThat(volume.getSpec().getNodeAffinity().getRequired().getNodeSelectorTerms().get(0)
                .getMatchExpressions()).as("only the cache nodes, which run the FUSE client")
                .anySatisfy(term -> assertThat(term.getKey()).isEqualTo("granary.io/cache-node"));
    }

    @Test
    void aDataLoadRunsToCompleteAndAScheduledOneRunsAgain() throws IOException {
        Path models = files("models", 4, 200_000);
        apply(dataset("models", models, true));
        awaitDataset("models", d -> "Bound".equals(phase(d)));

        apply(dataLoad("warm-models", "models", null));
        DataLoadResource complete = awaitLoad("warm-models", l -> "Complete".equals(loadPhase(l)));
        DataLoadResourceStatus status = complete.getStatus();
        assertThat(status.filesDone()).isEqualTo(4);
        assertThat(status.filesTotal()).isEqualTo(4);
        assertThat(status.bytesDone()).isEqualTo(800_000);
        assertThat(status.progress()).isEqualTo("4/4");
        assertThat(status.startTime()).isNotNull();
        assertThat(status.endTime()).isNotNull();
        assertThat(complete.getMetadata().getOwnerReferences()).as("owned by its Dataset").singleElement()
                .satisfies(owner -> assertThat(owner.getName()).isEqualTo("models"));
        assertThat(granaryLoad(status.loadId())).extracting("phase").isEqualTo("Complete");
        awaitDataset("models", d -> d.getStatus().cachedBytes() != null && d.getStatus().cachedBytes() == 800_000);

        apply(dataLoad("nightly", "models", "*/3 * * * * *"));
        DataLoadResource again = awaitLoad("nightly", l -> l.getStatus() != null && l.getStatus().runs() != null
                && l.getStatus().runs() >= 2);
        assertThat(again.getStatus().loadId()).as("one load, run on its schedule").isNotNull();
        kubernetes.resource(again).delete();
        await().atMost(SLOW).until(() -> "Cancelled".equals(granaryLoad(again.getStatus().loadId()).get("phase")));
    }

    @Test
    void deletingADatasetDeletesItsGranaryDatasetVolumesAndDataLoads() throws IOException {
        Path logs = files("logs", 2, 50_000);
        apply(dataset("logs", logs, false));
        awaitDataset("logs", d -> "Bound".equals(phase(d)));
        apply(dataLoad("warm-logs", "logs", null));
        awaitLoad("warm-logs", l -> "Complete".equals(loadPhase(l)));

        kubernetes.resources(DatasetResource.class).inNamespace(NAMESPACE).withName("logs").delete();

        await().atMost(SLOW).until(() -> kubernetes.resources(DatasetResource.class).inNamespace(NAMESPACE)
                .withName("logs").get() == null);
        assertThat(granaryStatus("team-a-logs")).as("the Granary dataset is gone").isEqualTo(404);
        assertThat(kubernetes.persistentVolumes().withName("granary-team-a-logs").get()).isNull();
        assertThat(kubernetes.persistentVolumeClaims().inNamespace(NAMESPACE).withName("logs").get()).isNull();
        await().atMost(SLOW).until(() -> kubernetes.resources(DataLoadResource.class).inNamespace(NAMESPACE)
                .withName("warm-logs").get() == null);
    }

    @Test
    void whatGranaryRefusesIsAConditionNamingTheField() {
        String longNamespace = "a-namespace-with-a-name-long-enough-to-overflow";
        DatasetResource tooLong = dataset("a-name-that-is-long-as-well", localRoot, false);
        tooLong.getMetadata().setNamespace(longNamespace);
        apply(tooLong);
        DatasetResource refused = await().atMost(SLOW).until(() -> kubernetes.resources(DatasetResource.class)
                .inNamespace(longNamespace).withName("a-name-that-is-long-as-well").get(), d -> ready(d) != null);
        assertThat(ready(refused)).extracting(Condition::status, Condition::reason)
                .containsExactly("False", "InvalidSpec");
        assertThat(ready(refused).message()).startsWith("metadata.name: ");
        assertThat(kubernetes.v1().events().inNamespace(longNamespace).list().getItems())
                .extracting(e -> e.getType() + " " + e.getReason() + " " + e.getInvolvedObject().getKind())
                .contains("Warning InvalidSpec Dataset");

        DatasetResource badTtl = dataset("bad-ttl", localRoot, false);
        badTtl.setSpec(new DatasetResourceSpec(badTtl.getSpec().mounts(), null, null, null, "PT1X", null, null));
        apply(badTtl);
        assertThat(ready(awaitDataset("bad-ttl", d -> ready(d) != null)))
                .as("what the schema's pattern lets through and Granary refuses")
                .extracting(Condition::reason, Condition::message).containsExactly("InvalidSpec", "spec.metadataTtl: "
                        + "'PT1X' is not a positive duration such as 30s, 10m, 1h or PT10M");

        apply(dataset("outside", Path.of("/etc"), false));
        DatasetResource outside = awaitDataset("outside", d -> "Failed".equals(phase(d)));
        assertThat(ready(outside)).as("Granary made it and could not list it: its reason")
                .extracting(Condition::status, Condition::reason).containsExactly("False", "StoreFailed");
        assertThat(ready(outside).message()).contains("/etc");

        apply(dataset("no-secret", new DatasetMount(localRoot.toUri().toString(), null, null, "nowhere"), false));
        assertThat(ready(awaitDataset("no-secret", d -> ready(d) != null)))
                .extracting(Condition::reason, Condition::message)
                .containsExactly("CredentialsNotFound", "spec.mounts[0].credentialsRef: no Secret 'nowhere' in "
                        + "namespace granary, where Granary's services read it");
        assertThat(granaryStatus("team-a-no-secret")).isEqualTo(404);

        apply(dataLoad("of-nothing", "nothing", null));
        assertThat(ready(awaitLoad("of-nothing", l -> ready(l) != null)).reason()).isEqualTo("DatasetNotFound");
    }

    @Test
    void storeCredentialsServeOnlyTheNamespacesTheirSecretLists() throws IOException {
        Path fenced = files("fenced", 1, 1_000);
        apply(dataset("fenced", new DatasetMount(fenced.toUri().toString(), null, null,
                KubernetesApiResource.STORE_SECRET), false));
        assertThat(ready(awaitDataset("fenced", d -> ready(d) != null)).reason())
                .as("another team's Secret").isEqualTo("CredentialsNotAllowed");
        assertThat(granaryStatus("team-a-fenced")).isEqualTo(404);

        kubernetes.secrets().inNamespace(KubernetesApiResource.GRANARY_NAMESPACE)
                .withName(KubernetesApiResource.STORE_SECRET).edit(secret -> {
                    secret.getMetadata().setAnnotations(Map.of(StoreCredentials.NAMESPACES_ANNOTATION, "ml, team-a"));
                    return secret;
                });
        assertThat(awaitDataset("fenced", d -> "Bound".equals(phase(d))).getStatus().files()).isEqualTo(1);
    }

    @Test
    void aClaimOfTheNameTheDatasetDidNotMakeIsNeitherTakenNorDeleted() throws IOException {
        Path notes = files("notes", 1, 1_000);
        kubernetes.persistentVolumeClaims().inNamespace(NAMESPACE).resource(new PersistentVolumeClaimBuilder()
                .withNewMetadata().withName("notes").endMetadata().withNewSpec().withAccessModes("ReadWriteOnce")
                .withNewResources().addToRequests("storage", new Quantity("1Gi")).endResources().endSpec().build())
                .create();
        apply(dataset("notes", notes, false));
        DatasetResource taken = awaitDataset("notes", d -> ready(d) != null);
        assertThat(ready(taken).reason()).isEqualTo("ClaimTaken");

        kubernetes.resource(taken).delete();
        await().atMost(SLOW).until(() -> kubernetes.resources(DatasetResource.class).inNamespace(NAMESPACE)
                .withName("notes").get() == null);
        assertThat(kubernetes.persistentVolumeClaims().inNamespace(NAMESPACE).withName("notes").get())
                .as("the team's own claim").isNotNull();
        assertThat(granaryStatus("team-a-notes")).as("its Granary dataset went with it").isEqualTo(404);
    }

    @Test
    void aDatasetMadeOutsideKubernetesIsAdoptedOnlyWhenLabelledTo() throws IOException {
        Path legacy = files("legacy", 1, 10_000);
        RestAssured.given().contentType("application/json").body("{\"name\":\"team-a-legacy\",\"mounts\":[{\"uri\":\""
                + legacy.toUri() + "\"}]}").post(metadataUrl + "/api/v1/datasets").then().statusCode(201);

        apply(dataset("legacy", legacy, false));
        assertThat(ready(awaitDataset("legacy", d -> ready(d) != null)).reason()).isEqualTo("NotAdopted");

        kubernetes.resources(DatasetResource.class).inNamespace(NAMESPACE).withName("legacy")
                .edit(d -> {
                    d.getMetadata().setLabels(Map.of(DatasetResource.ADOPT_LABEL, "true"));
                    return d;
                });
        DatasetResource adopted = awaitDataset("legacy", d -> "Bound".equals(phase(d)));
        assertThat(adopted.getStatus().adopted()).isTrue();
        assertThat(adopted.getStatus().files()).isEqualTo(1);
    }

    @Test
    void anUnreachableGranaryIsAConditionAndTheDatasetConvergesOnceItIsBack() throws IOException {
        Path late = files("late", 2, 1_000);
        stack.kill("metadata-service");
        try {
            apply(dataset("late", late, false));
            DatasetResource waiting = awaitDataset("late", d -> ready(d) != null);
            assertThat(ready(waiting).reason()).isEqualTo("GranaryUnreachable");
            assertThat(waiting.getStatus().phase()).isEqualTo("NotReady");
        } finally {
            stack.startAgain("metadata-service");
        }
        assertThat(awaitDataset("late", d -> "Bound".equals(phase(d))).getStatus().files()).isEqualTo(2);
    }

    @Test
    void anOperatorRestartedMidReconcileConvergesWithoutDuplicates() throws IOException {
        Path shards = files("shards", 2, 20_000);
        reconcilers.stop();
        DatasetResource made;
        try {
            // What a reconcile did before the operator died: the Granary dataset made, marked as the resource's,
            // and the load started, neither written to a status.
            made = kubernetes.resource(valid(dataset("shards", shards, false))).create();
            RestAssured.given().contentType("application/json").body("{\"name\":\"team-a-shards\",\"mounts\":[{"
                            + "\"uri\":\"" + shards.toUri() + "\"}],\"labels\":{\""
                            + DatasetReconciler.RESOURCE_UID_LABEL + "\":\"" + made.getMetadata().getUid() + "\"}}")
                    .post(metadataUrl + "/api/v1/datasets").then().statusCode(201);
        } finally {
            reconcilers.start();
        }
        DatasetResource bound = awaitDataset("shards", d -> "Bound".equals(phase(d)));
        assertThat(bound.getStatus().adopted()).as("its own, not adopted").isFalse();

        reconcilers.stop();
        DataLoadResource load;
        String started;
        try {
            load = kubernetes.resource(valid(dataLoad("warm-shards", "shards", null))).create();
            started = RestAssured.given().contentType("application/json")
                    .header("Idempotency-Key", load.getMetadata().getUid() + "-" + load.getMetadata().getGeneration())
                    .body("{\"dataset\":\"team-a-shards\",\"targets\":[{\"path\":\"/\"}]}")
                    .post(preloadUrl + "/api/v1/dataloads").then().statusCode(202).extract().path("id");
        } finally {
            reconcilers.start();
        }
        DataLoadResource complete = awaitLoad("warm-shards", l -> "Complete".equals(loadPhase(l)));
        assertThat(complete.getStatus().loadId()).as("the load started before the restart, not a second")
                .isEqualTo(started);
    }

    @Test
    void aCacheRuntimeScalesTheWorkersAndDrainsThoseThatGoFirst() {
        kubernetes.apps().statefulSets().inNamespace(KubernetesApiResource.GRANARY_NAMESPACE).resource(
                new StatefulSetBuilder().withNewMetadata().withName("granary-block").endMetadata()
                        .withNewSpec().withReplicas(2).withNewTemplate().withNewSpec().addNewContainer()
                        .withName("block-service").withImage("ghcr.io/granary/block-service:0.1.0")
                        .addNewVolumeMount().withName("mem").withMountPath("/var/lib/granary/mem").endVolumeMount()
                        .addNewVolumeMount().withName("ssd").withMountPath("/var/lib/granary/cache").endVolumeMount()
                        .addNewEnv().withName("GRANARY_BLOCK_LEVELS_0__PATHS").withValue("/var/lib/granary/mem")
                        .endEnv().endContainer().endSpec().endTemplate().endSpec().build()).create();
        CacheRuntimeResource runtime = new CacheRuntimeResource();
        runtime.setMetadata(new ObjectMetaBuilder().withName("workers")
                .withNamespace(KubernetesApiResource.GRANARY_NAMESPACE).build());
        runtime.setSpec(new CacheRuntimeSpec(null, null, 3, List.of(
                new CacheLevel("MEM", "/var/lib/granary/mem", "1GiB", null, null),
                new CacheLevel("SSD", "/var/lib/granary/cache/ssd", "50GiB", 0.9, 0.6))));
        kubernetes.resource(valid(runtime)).create();

        await().atMost(SLOW).until(() -> replicas("granary-block") == 3);
        assertThat(kubernetes.apps().statefulSets().inNamespace(KubernetesApiResource.GRANARY_NAMESPACE)
                .withName("granary-block").get().getSpec().getTemplate().getSpec().getContainers().get(0).getEnv())
                .extracting(e -> e.getName() + "=" + e.getValue())
                .contains("GRANARY_BLOCK_LEVELS_0__MEDIUM=MEM", "GRANARY_BLOCK_LEVELS_0__QUOTA=1GiB",
                        "GRANARY_BLOCK_LEVELS_1__PATHS=/var/lib/granary/cache/ssd", "GRANARY_BLOCK_LEVELS_1__HIGH=0.9");

        // Both workers live (another test restarts the metadata-service, which must hear them again).
        await().atMost(SLOW).until(() -> RestAssured.get(metadataUrl + "/api/v1/workers").then().extract()
                .jsonPath().getList("findAll { it.live }.id"), live -> live.containsAll(
                List.of("granary-block-0", "granary-block-1")));
        try {
            kubernetes.resources(CacheRuntimeResource.class).inNamespace(KubernetesApiResource.GRANARY_NAMESPACE)
                    .withName("workers").edit(r -> {
                        r.setSpec(new CacheRuntimeSpec(null, null, 1, r.getSpec().levels()));
                        return r;
                    });
            // granary-block-1 is a live worker and goes: drained first. granary-block-2 never ran.
            await().atMost(SLOW).until(() -> replicas("granary-block") == 1);
            assertThat(drainPhase("granary-block-1")).as("the leaving worker was drained before it went")
                    .isEqualTo("Drained");
            assertThat(drainPhase("granary-block-0")).as("the staying one was not").isNull();
            CacheRuntimeResource scaled = await().atMost(SLOW).until(() -> kubernetes
                    .resources(CacheRuntimeResource.class).inNamespace(KubernetesApiResource.GRANARY_NAMESPACE)
                    .withName("workers").get(), r -> r.getStatus() != null && "Ready".equals(r.getStatus().phase())
                    && Integer.valueOf(1).equals(r.getStatus().replicas()));
            assertThat(scaled.getStatus().draining()).isEmpty();
        } finally {
            RestAssured.delete(metadataUrl + "/api/v1/workers/granary-block-1/drain");  // it rejoins the others
        }
    }

    private int replicas(String statefulSet) {
        return kubernetes.apps().statefulSets().inNamespace(KubernetesApiResource.GRANARY_NAMESPACE)
                .withName(statefulSet).get().getSpec().getReplicas();
    }

    /** Asked of the worker itself: the metadata-service learns it from heartbeats, which another test delays. */
    private String drainPhase(String worker) {
        String address = RestAssured.get(metadataUrl + "/api/v1/workers").then().statusCode(200).extract()
                .jsonPath().getString("find { it.id == '" + worker + "' }.address");
        var answer = RestAssured.get(address + "/worker/drain");
        return answer.statusCode() == 404 ? null : answer.then().statusCode(200).extract().path("phase");
    }

    private Path files(String dir, int count, int size) throws IOException {
        Path root = Files.createDirectories(localRoot.resolve(dir));
        for (int i = 0; i < count; i++) {
            Files.write(root.resolve("file-" + i), new byte[size]);
        }
        return root;
    }

    private static DatasetResource dataset(String name, Path dir, boolean readOnly) {
        return dataset(name, new DatasetMount(dir.toUri().toString(), null, null, null), readOnly);
    }

    private static DatasetResource dataset(String name, DatasetMount mount, boolean readOnly) {
        DatasetResource dataset = new DatasetResource();
        dataset.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(NAMESPACE).build());
        dataset.setSpec(new DatasetResourceSpec(List.of(mount), "1MiB", null, null, null, readOnly, null));
        return dataset;
    }

    private static DataLoadResource dataLoad(String name, String dataset, String schedule) {
        DataLoadResource load = new DataLoadResource();
        load.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(NAMESPACE).build());
        load.setSpec(new DataLoadResourceSpec(dataset, List.of(new DataLoadTarget("/", null)), null, null, schedule,
                null));
        return load;
    }

    private static <T extends HasMetadata> T valid(T resource) {
        assertThat(SCHEMAS.refusals(resource)).as("what the API server would refuse").isEmpty();
        return resource;
    }

    /** Creates the resource, which the CRD's schema must take as the API server would. */
    private void apply(HasMetadata resource) {
        kubernetes.resource(valid(resource)).create();
    }

    private DatasetResource awaitDataset(String name, Predicate<DatasetResource> state) {
        return await().atMost(SLOW).until(() -> kubernetes.resources(DatasetResource.class).inNamespace(NAMESPACE)
                .withName(name).get(), d -> d != null && d.getStatus() != null && state.test(d));
    }

    private DataLoadResource awaitLoad(String name, Predicate<DataLoadResource> state) {
        return await().atMost(SLOW).until(() -> kubernetes.resources(DataLoadResource.class).inNamespace(NAMESPACE)
                .withName(name).get(), l -> l != null && l.getStatus() != null && state.test(l));
    }

    private static String phase(DatasetResource dataset) {
        return dataset.getStatus().phase();
    }

    private static String loadPhase(DataLoadResource load) {
        return load.getStatus().phase();
    }

    private static Condition ready(DatasetResource dataset) {
        return dataset.getStatus() == null ? null : ready(dataset.getStatus().conditions());
    }

    private static Condition ready(DataLoadResource load) {
        return load.getStatus() == null ? null : ready(load.getStatus().conditions());
    }

    private static Condition ready(List<Condition> conditions) {
        return conditions.stream().filter(c -> c.type().equals(Condition.READY)).findFirst().orElse(null);
    }

    private Map<String, String> granaryLabels(String name) {
        return RestAssured.get(metadataUrl + "/api/v1/datasets/" + name).then().statusCode(200).extract().jsonPath()
                .getMap("spec.labels");
    }

    private int granaryStatus(String name) {
        return RestAssured.get(metadataUrl + "/api/v1/datasets/" + name).statusCode();
    }

    private Map<String, Object> granaryLoad(String id) {
        return RestAssured.get(preloadUrl + "/api/v1/dataloads/" + id).then().statusCode(200).extract().jsonPath()
                .getMap("");
    }
}
