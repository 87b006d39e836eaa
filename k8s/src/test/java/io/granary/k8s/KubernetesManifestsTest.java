package io.granary.k8s;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretProjection;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ServiceReference;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.granary.k8s.CertManager.Certificate;
import io.granary.k8s.CertManager.Issuer;
import io.granary.k8s.CertManager.IssuerRef;
import io.granary.k8s.Keda.Behavior;
import io.granary.k8s.Keda.ScaleTargetRef;
import io.granary.k8s.Keda.ScaledObject;
import io.granary.k8s.Keda.ScalingRules;
import io.granary.k8s.Keda.Trigger;
import io.granary.k8s.PrometheusOperator.PodMetricsEndpoint;
import io.granary.k8s.PrometheusOperator.PodMonitor;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Named.named;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * The manifests in k8s/, checked without a cluster: every document parses into its typed class with no unknown field,
 * and the pieces are wired to each other (webhook, Service, hook pods, TLS Secret, Certificate; RBAC; probes; cache
 * nodes; secrets; who may reach what; Kafka). A broken reference here is a pod that never starts or a webhook that is
 * never called.
 */
class KubernetesManifestsTest {

    /** This module's directory, where the manifests are: Maven runs the tests in it. */
    private static final Path K8S = Path.of("");
    /** The module's own sources and build output, which hold no manifest. */
    private static final List<Path> NOT_MANIFESTS = List.of(K8S.resolve("src"), K8S.resolve("target"));
    private static final Path EXAMPLES = K8S.resolve("examples");
    private static final Path AUTOSCALING = EXAMPLES.resolve("autoscaling");
    private static final String NAMESPACE = "granary";
    private static final String HOOK = "granary-scheduler-hook";
    private static final String OPERATOR = "granary-operator";
    private static final String DATASET_LABEL = "granary.io/dataset";
    /** The label each manifest gives its pods, naming the workload; NetworkPolicies select Granary's pods by it. */
    private static final String NAME_LABEL = "app.kubernetes.io/name";
    /** The cluster credential ({@code token}), which every service shows the others. */
    private static final String CLUSTER_SECRET = "granary-cluster";
    /** The identities ({@code identities.json}), which every service but the hook reads. */
    private static final String ACCESS_SECRET = "granary-access";
    private static final String TOKEN_REVIEW = "GRANARY_SECURITY_TOKEN_REVIEW_ENABLED";
    /** The built-in ClusterRole that may create tokenreviews. */
    private static final String AUTH_DELEGATOR = "system:auth-delegator";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SERVICE_URL =
            Pattern.compile("https?://([a-z0-9-]+)\\.([a-z0-9-]+)\\.svc(?:\\.cluster\\.local)?:(\\d+)");
    private static final Pattern VARIABLE_REFERENCE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");
    /** A Granary metric in a PromQL query, and the {@code max(} right before it if there is one. */
    private static final Pattern GRANARY_METRIC = Pattern.compile("(max\\s*\\(\\s*)?\\b(granary_[a-z_]+)");

    private static Kustomization kustomization;
    /** What {@code kubectl apply -k k8s/} applies. */
    private static Manifests base;
    /** Every YAML document under k8s/, the examples included. */
    private static Manifests everything;
    /** The component examples/autoscaling. */
    private static Kustomization autoscaling;
    /** What it adds. */
    private static Manifests autoscalingAdds;
    /** What an overlay of k8s/ and examples/autoscaling applies: the workers a StatefulSet, the DaemonSet gone. */
    private static Manifests autoscaled;

    @BeforeAll
    static void load() throws IOException {
        kustomization = Kustomization.read(K8S);
        base = Manifests.load(kustomization.resources());
        everything = Manifests.load(manifestFiles());
        autoscaling = Kustomization.read(AUTOSCALING);
        autoscalingAdds = Manifests.load(autoscaling.resources());
        autoscaled = Manifests.load(kustomization, autoscaling);
    }

    /** What is applied, for the checks that hold of every way to deploy Granary. */
    static Stream<Arguments> deployments() {
        return Stream.of(arguments(named("k8s/", base)), arguments(named("k8s/ with examples/autoscaling", autoscaled)));
    }

    // Parsing: what the API server would refuse or silently drop.

    @Test
    void everyManifestParsesIntoItsTypedClass() {
        assertThat(everything.all()).hasSizeGreaterThan(20);
        // fabric8 reads a kind it has no class for as a generic object: a misspelled kind or apiVersion, or an
        // operator's kind. Only the examples may hold one: Strimzi's, or Granary's own (the operator's tests check
        // those against the CRDs' schemas).
        assertThat(base.all()).filteredOn(m -> m.resource() instanceof GenericKubernetesResource)
                .as("documents of a kind fabric8 has no class for").isEmpty();
        assertThat(everything.all(GenericKubernetesResource.class)).allSatisfy(o -> assertThat(o.getApiVersion())
                .matches(version -> version.startsWith("kafka.strimzi.io/") || version.equals("granary.io/v1alpha1")));
        assertThat(base.all(CustomResourceDefinition.class)).extracting(crd -> crd.getSpec().getNames().getKind())
                .containsExactlyInAnyOrder("Dataset", "DataLoad", "CacheRuntime");
    }

    @Test
    void noManifestHasAnUnknownField() {
        List<String> unknown = everything.all().stream()
                .filter(m -> !(m.resource() instanceof GenericKubernetesResource))
                .flatMap(m -> UnknownFields.in(m.resource()).stream().map(path -> m + ": " + path))
                .toList();

        assertThat(unknown).isEmpty();
    }

    @Test
    void unknownFieldsAreFoundWhereverTheyAre() {
        HasMetadata statefulSet = Manifests.parse("""
                apiVersion: apps/v1
                kind: StatefulSet
                metadata:
                  name: granary-metadata
                spec:
                  replicaz: 3
                  template:
                    spec:
                      containers:
                        - name: metadata-service
                          imagePullPolizy: Always
                """).get(0);

        assertThat(UnknownFields.in(statefulSet))
                .containsExactlyInAnyOrder("spec.replicaz", "spec.template.spec.containers[0].imagePullPolizy");
    }

    @Test
    void aMisspelledCertManagerFieldDoesNotParse() {
        assertThatThrownBy(() -> Manifests.parse("""
                apiVersion: cert-manager.io/v1
                kind: Certificate
                metadata:
                  name: granary-scheduler-hook-tls
                spec:
                  secretName: granary-scheduler-hook-tls
                  dnsName: [granary-scheduler-hook.granary.svc]
                """)).hasMessageContaining("\"dnsName\"");
    }

    @Test
    void aMisspelledKedaFieldDoesNotParse() {
        assertThatThrownBy(() -> Manifests.parse("""
                apiVersion: keda.sh/v1alpha1
                kind: ScaledObject
                metadata:
                  name: granary-block
                spec:
                  scaleTargetRef:
                    kind: StatefulSet
                    name: granary-block
                  advanced:
                    horizontalPodAutoscalerConfig:
                      behavior:
                        scaleDown:
                          stabilisationWindowSeconds: 900
                """)).hasMessageContaining("\"stabilisationWindowSeconds\"");
    }

    @Test
    void aNumberWhereKedaWantsAStringDoesNotParse() {
        // A trigger's settings are strings, a threshold too: KEDA's CRD refuses it unquoted.
        assertThatThrownBy(() -> Manifests.parse("""
                apiVersion: keda.sh/v1alpha1
                kind: ScaledObject
                metadata:
                  name: granary-block
                spec:
                  scaleTargetRef:
                    name: granary-block
                  triggers:
                    - type: prometheus
                      metadata:
                        threshold: 0.8
                """)).hasMessageContaining("threshold");
    }

    @Test
    void aBooleanWhereKubernetesWantsAStringDoesNotParse() {
        // Unquoted, true is a boolean; the API server refuses it as a label value.
        assertThatThrownBy(() -> Manifests.parse("""
                apiVersion: apps/v1
                kind: DaemonSet
                metadata:
                  name: granary-block
                spec:
                  template:
                    spec:
                      nodeSelector:
                        granary.io/cache-node: true
                """)).hasMessageContaining("nodeSelector");
    }

    @Test
    void aRepeatedKeyDoesNotParse() {
        assertThatThrownBy(() -> Manifests.parse("""
                apiVersion: v1
                kind: ConfigMap
                metadata:
                  name: granary-kafka
                data:
                  KAFKA_BOOTSTRAP_SERVERS: a:9092
                  KAFKA_BOOTSTRAP_SERVERS: b:9092
                """)).hasMessageContaining("KAFKA_BOOTSTRAP_SERVERS");
    }

    // The kustomization.

    @Test
    void kustomizationAppliesEveryManifestButTheExamples() throws IOException {
        List<Path> baseFiles = manifestFiles().stream().filter(file -> !file.startsWith(EXAMPLES)).toList();

        assertThat(kustomization.resources()).allSatisfy(file -> assertThat(file).isRegularFile());
        assertThat(kustomization.resources()).containsExactlyInAnyOrderElementsOf(baseFiles);
    }

    @Test
    void kustomizationPinsTheTagOfEveryImage() {
        // kustomize's images: is where users point at their own registry or tag; an image it does not list cannot be.
        assertThat(base.workloads().stream().flatMap(Workload::everyContainer).map(Container::getImage))
                .isNotEmpty()
                .allSatisfy(image -> {
                    Map.Entry<String, String> reference = nameAndTag(image);
                    assertThat(reference.getValue()).as(image + " tag").isNotBlank().isNotEqualTo("latest");
                    assertThat(kustomization.imageTags()).as("kustomization images").contains(reference);
                });
    }

    // The scheduler-hook and its registration.

    @Test
    void webhooksCallTheHookPodsOnTheirHttpsPort() {
        assertThat(webhookConfiguration().getWebhooks())
                .extracting(MutatingWebhook::getName, webhook -> webhook.getClientConfig().getService().getPath())
                .containsExactlyInAnyOrder(tuple("datasets.granary.io", "/mutate"),
                        tuple("spare-cache-nodes.granary.io", "/mutate/spare-cache-nodes"));

        assertThat(webhookConfiguration().getWebhooks()).allSatisfy(webhook -> {
            assertThat(webhook.getClientConfig().getUrl()).isNull();
            ServiceReference reference = webhook.getClientConfig().getService();
            Service service = base.get(Service.class, reference.getNamespace(), reference.getName());
            ServicePort port = servicePort(service, reference.getPort());

            assertThat(base.selectedBy(service)).extracting(Workload::name).containsExactly(HOOK);
            assertThat(base.workload(HOOK).port(targetPort(port))).get().satisfies(target -> {
                assertThat(target.getContainerPort()).isEqualTo(8443);
                assertThat(target.getName()).isEqualTo("https");
            });
        });
    }

    @Test
    void webhooksFailOpenAndAnswerBeforeTheApiServerGivesUp() {
        Duration deadline = quarkusDuration(env(base.workload(HOOK).container("scheduler-hook"), "GRANARY_HOOK_DEADLINE"));

        assertThat(webhookConfiguration().getWebhooks()).allSatisfy(webhook -> {
            // Ignore: a hook that is down or slow never blocks pod creation.
            assertThat(webhook.getFailurePolicy()).isEqualTo("Ignore");
            assertThat(webhook.getSideEffects()).isEqualTo("None");
            assertThat(webhook.getReinvocationPolicy()).isEqualTo("IfNeeded");
            assertThat(webhook.getAdmissionReviewVersions()).containsExactly("v1");
            assertThat(webhook.getTimeoutSeconds()).isBetween(1, 10);
            // The hook admits the pod unchanged at its deadline, before the API server stops waiting for it.
            assertThat(deadline).isLessThan(Duration.ofSeconds(webhook.getTimeoutSeconds()));
            assertThat(webhook.getRules()).singleElement().satisfies(rule -> {
                assertThat(rule.getOperations()).containsExactly("CREATE");
                assertThat(rule.getApiGroups()).containsExactly("");
                assertThat(rule.getApiVersions()).containsExactly("v1");
                assertThat(rule.getResources()).containsExactly("pods");
            });
        });
    }

    @Test
    void webhooksChoosePodsByTheDatasetLabelOutsideGranaryAndTheSystem() {
        MutatingWebhook datasets = webhook("datasets.granary.io");
        MutatingWebhook spareCacheNodes = webhook("spare-cache-nodes.granary.io");

        assertThat(datasets.getObjectSelector().getMatchExpressions())
                .singleElement().satisfies(requirement -> assertRequirement(requirement, DATASET_LABEL, "Exists"));
        assertThat(spareCacheNodes.getObjectSelector().getMatchExpressions())
                .singleElement().satisfies(requirement -> assertRequirement(requirement, DATASET_LABEL, "DoesNotExist"));
        // Steering pods that use no dataset away from cache nodes is for the namespaces that opt in.
        assertThat(datasets.getNamespaceSelector().getMatchLabels()).isEmpty();
        assertThat(spareCacheNodes.getNamespaceSelector().getMatchLabels())
                .containsExactly(entry("granary.io/spare-cache-nodes", "true"));
        assertThat(List.of(datasets, spareCacheNodes)).allSatisfy(webhook ->
                assertThat(webhook.getNamespaceSelector().getMatchExpressions()).singleElement().satisfies(requirement -> {
                    assertRequirement(requirement, "kubernetes.io/metadata.name", "NotIn");
                    assertThat(requirement.getValues()).containsExactlyInAnyOrder(NAMESPACE, "kube-system");
                }));
    }

    @Test
    void hookServesTheCertificateWhoseCaTheApiServerIsGiven() {
        String injectFrom = webhookConfiguration().getMetadata().getAnnotations().get("cert-manager.io/inject-ca-from");
        assertThat(injectFrom).as("cert-manager.io/inject-ca-from").matches("[a-z0-9-]+/[a-z0-9-]+");
        String[] reference = injectFrom.split("/");
        Certificate certificate = base.get(Certificate.class, reference[0], reference[1]);

        Workload hook = base.workload(HOOK);
        Container container = hook.container("scheduler-hook");
        Volume tls = hook.volumeAt(container, "/etc/granary/tls");
        assertThat(tls.getSecret()).as("the volume at /etc/granary/tls is a Secret").isNotNull();
        assertThat(tls.getSecret().getSecretName()).isEqualTo(certificate.getSpec().secretName());
        assertThat(env(container, "GRANARY_HOOK_TLS_CERT")).isEqualTo("/etc/granary/tls/tls.crt");
        assertThat(env(container, "GRANARY_HOOK_TLS_KEY")).isEqualTo("/etc/granary/tls/tls.key");

        // The API server dials <service>.<namespace>.svc and checks that the certificate names it.
        assertThat(webhookConfiguration().getWebhooks()).allSatisfy(webhook -> {
            ServiceReference service = webhook.getClientConfig().getService();
            assertThat(certificate.getSpec().dnsNames()).contains(service.getName() + "." + service.getNamespace() + ".svc");
        });
        // Signed by a CA of our own (a CA issuer over a self-signed CA certificate), so the CA the API server
        // trusts outlives each renewal of the serving certificate.
        IssuerRef issuer = certificate.getSpec().issuerRef();
        assertThat(issuer.kind()).isEqualTo("Issuer");
        String caSecret = base.get(Issuer.class, reference[0], issuer.name()).getSpec().ca().secretName();
        assertThat(base.all(Certificate.class)).filteredOn(c -> caSecret.equals(c.getSpec().secretName()))
                .singleElement().satisfies(ca -> {
                    assertThat(ca.getSpec().isCA()).isTrue();
                    assertThat(base.get(Issuer.class, reference[0], ca.getSpec().issuerRef().name()).getSpec().selfSigned())
                            .isNotNull();
                });
    }

    @Test
    void hookMayOnlyReadNodesAndDatasets() {
        String account = base.workload(HOOK).pod().getServiceAccountName();

        // The others are TokenReview's, to the built-in system:auth-delegator, and the operator's.
        assertThat(base.all(ClusterRoleBinding.class))
                .filteredOn(binding -> !binding.getRoleRef().getName().equals(AUTH_DELEGATOR))
                .filteredOn(binding -> binding.getSubjects().stream().anyMatch(s -> s.getName().equals(account)))
                .singleElement().satisfies(binding -> {
                    assertThat(binding.getSubjects()).singleElement().satisfies(subject -> {
                        assertThat(subject.getKind()).isEqualTo("ServiceAccount");
                        assertThat(subject.getName()).isEqualTo(account);
                        assertThat(subject.getNamespace()).isEqualTo(NAMESPACE);
                    });
                    assertThat(binding.getRoleRef().getKind()).isEqualTo("ClusterRole");
                    ClusterRole role = base.get(ClusterRole.class, null, binding.getRoleRef().getName());
                    assertThat(role.getAggregationRule()).isNull();
                    assertThat(role.getRules()).hasSize(2).allSatisfy(rule -> {
                        assertThat(rule.getVerbs()).containsExactlyInAnyOrder("get", "list", "watch");
                        assertThat(rule.getResourceNames()).isEmpty();
                        assertThat(rule.getNonResourceURLs()).isEmpty();
                    });
                    // Nodes for their topology; Datasets for the Granary name a pod's dataset label means.
                    assertThat(role.getRules()).extracting(rule -> String.join(",", rule.getApiGroups()) + " "
                            + String.join(",", rule.getResources())).containsExactly(" nodes", "granary.io datasets");
                });
        assertThat(base.all(ClusterRole.class)).hasSize(2);
        assertThat(base.all(RoleBinding.class)).allSatisfy(binding -> assertThat(binding.getSubjects())
                .noneMatch(subject -> subject.getName().equals(account)));
    }

    @Test
    void operatorMayOnlyTouchItsResourcesTheirVolumesTheWorkersAndTheNamesOfSecrets() {
        String account = base.workload(OPERATOR).pod().getServiceAccountName();
        ClusterRoleBinding binding = base.all(ClusterRoleBinding.class).stream()
                .filter(b -> b.getSubjects().stream().anyMatch(s -> s.getName().equals(account))).findFirst()
                .orElseThrow(() -> new AssertionError("the operator is bound to no ClusterRole"));
        assertThat(binding.getSubjects()).singleElement().satisfies(subject -> {
            assertThat(subject.getKind()).isEqualTo("ServiceAccount");
            assertThat(subject.getNamespace()).isEqualTo(NAMESPACE);
        });
        ClusterRole role = base.get(ClusterRole.class, null, binding.getRoleRef().getName());
        assertThat(role.getRules()).extracting(rule -> String.join(",", rule.getApiGroups()) + " "
                        + String.join(",", rule.getResources()) + " " + String.join(",", rule.getVerbs()))
                .containsExactlyInAnyOrder(
                        "granary.io datasets,cacheruntimes get,list,watch,update,patch",
                        "granary.io dataloads get,list,watch,update,patch,delete",
                        "granary.io datasets/status,dataloads/status,cacheruntimes/status get,update,patch",
                        " persistentvolumes get,create,delete,patch",
                        " persistentvolumeclaims get,create,delete",
                        " events create");
        // In Granary's namespace only: get Secrets (a Dataset's credentialsRef exists), and scale the workers.
        RoleBinding local = base.all(RoleBinding.class).stream()
                .filter(b -> b.getSubjects().stream().anyMatch(s -> s.getName().equals(account))).findFirst()
                .orElseThrow();
        assertThat(local.getMetadata().getNamespace()).isEqualTo(NAMESPACE);
        assertThat(base.get(Role.class, NAMESPACE, local.getRoleRef().getName()).getRules())
                .extracting(rule -> String.join(",", rule.getApiGroups()) + " "
                        + String.join(",", rule.getResources()) + " " + String.join(",", rule.getVerbs()))
                .containsExactlyInAnyOrder(" secrets get", "apps statefulsets,statefulsets/scale get,update,patch");
        assertThat(base.all(Role.class)).hasSize(1);
    }

    // Every workload.

    @ParameterizedTest(name = "{0}")
    @MethodSource("deployments")
    void onlyTheHookAndTheTokenReviewersMountAServiceAccountToken(Manifests deployment) {
        // The hook reads nodes; the operator reconciles its resources; the reviewers post TokenReviews. Nothing else
        // has business with the API server.
        Set<String> withToken = Set.copyOf(Stream.concat(Stream.of(HOOK, OPERATOR),
                tokenReviewers(deployment).stream().map(Workload::name)).toList());
        assertThat(deployment.workloads()).extracting(w -> w.pod().getServiceAccountName()).doesNotHaveDuplicates();
        assertThat(deployment.workloads()).allSatisfy(workload -> {
            String account = workload.pod().getServiceAccountName();
            assertThat(account).as(workload + " service account").isNotBlank().isNotEqualTo("default");
            assertThat(mountsToken(deployment, workload)).as(workload + " mounts a token")
                    .isEqualTo(withToken.contains(workload.name()));
            // The account says the same as its pods, so a pod added later with it gets no token by surprise.
            assertThat(deployment.get(ServiceAccount.class, workload.namespace(), account).getAutomountServiceAccountToken())
                    .as("ServiceAccount " + account).isEqualTo(withToken.contains(workload.name()));
        });
        assertThat(deployment.all(ServiceAccount.class)).extracting(account -> account.getMetadata().getName())
                .containsExactlyInAnyOrderElementsOf(deployment.workloads().stream()
                        .map(workload -> workload.pod().getServiceAccountName()).toList());
    }

    @Test
    void tokenReviewersMayReviewTokensAndNothingElse() {
        List<Workload> reviewers = tokenReviewers(base);
        List<ClusterRoleBinding> delegators = base.all(ClusterRoleBinding.class).stream()
                .filter(binding -> binding.getRoleRef().getName().equals(AUTH_DELEGATOR)).toList();

        assertThat(reviewers).extracting(Workload::name)
                .containsExactlyInAnyOrder("granary-gateway", "granary-metadata", "granary-preload");
        assertThat(delegators).isNotEmpty().allSatisfy(binding -> {
            assertThat(binding.getRoleRef().getKind()).isEqualTo("ClusterRole");
            assertThat(binding.getRoleRef().getApiGroup()).isEqualTo("rbac.authorization.k8s.io");
        });
        // Each reviewer posts TokenReviews with its own ServiceAccount's token, and only the reviewers may.
        assertThat(delegators.stream().flatMap(binding -> binding.getSubjects().stream()))
                .extracting(Subject::getKind, Subject::getName, Subject::getNamespace)
                .containsExactlyInAnyOrderElementsOf(reviewers.stream()
                        .map(workload -> tuple("ServiceAccount", workload.pod().getServiceAccountName(), workload.namespace()))
                        .toList());
        assertThat(reviewers).allSatisfy(workload -> assertThat(mountsToken(base, workload)).as(workload + " mounts a token")
                .isTrue());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("deployments")
    void everyContainerHasRequestsLimitsAndProbes(Manifests deployment) {
        SoftAssertions softly = new SoftAssertions();
        for (Workload workload : deployment.workloads()) {
            workload.everyContainer().forEach(container -> {
                String who = workload + ", container " + container.getName();
                softly.assertThat(container.getResources().getRequests()).as(who + " requests").containsKeys("cpu", "memory");
                softly.assertThat(container.getResources().getLimits()).as(who + " limits").containsKeys("cpu", "memory");
            });
            for (Container container : workload.containers()) {
                String who = workload + ", container " + container.getName();
                if (isGranaryService(container)) {
                    assertHealthProbe(softly, who + " liveness", container, container.getLivenessProbe(), "/q/health/live");
                    assertHealthProbe(softly, who + " readiness", container, container.getReadinessProbe(), "/q/health/ready");
                } else {
                    softly.assertThat(container.getLivenessProbe()).as(who + " liveness").isNotNull();
                }
            }
        }
        softly.assertAll();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("deployments")
    void everyServiceSelectsOneWorkloadAndReachesItsPorts(Manifests deployment) {
        assertThat(deployment.all(Service.class)).allSatisfy(service -> {
            String name = "Service " + service.getMetadata().getName();
            List<Workload> selected = deployment.selectedBy(service);
            assertThat(selected).as(name + " selects").hasSize(1);
            assertThat(service.getSpec().getPorts()).allSatisfy(port ->
                    assertThat(selected.get(0).port(targetPort(port))).as(name + " port " + port.getName()).isPresent());
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("deployments")
    void everyServiceUrlNamesAServiceAndOneOfItsPorts(Manifests deployment) {
        Stream<String> envValues = deployment.workloads().stream().flatMap(Workload::everyContainer)
                .flatMap(container -> container.getEnv().stream()).map(EnvVar::getValue).filter(Objects::nonNull);
        Stream<String> configValues = deployment.all(ConfigMap.class).stream()
                .flatMap(map -> map.getData().values().stream());
        List<String> urls = new ArrayList<>();

        Stream.concat(envValues, configValues).forEach(text -> {
            Matcher url = SERVICE_URL.matcher(text);
            while (url.find()) {
                urls.add(url.group());
                Service service = deployment.get(Service.class, url.group(2), url.group(1));
                assertThat(service.getSpec().getPorts()).extracting(ServicePort::getPort).as(url.group())
                        .contains(Integer.parseInt(url.group(3)));
            }
        });
        assertThat(urls).contains("http://granary-metadata.granary.svc:8081", "http://granary-gateway.granary.svc:8080");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("deployments")
    void variablesReferOnlyToVariablesDeclaredBefore(Manifests deployment) {
        // Kubernetes expands $(NAME) only from variables listed earlier; anything else stays as literal text.
        assertThat(deployment.workloads()).allSatisfy(workload -> workload.everyContainer().forEach(container -> {
            List<String> declared = new ArrayList<>();
            for (EnvVar variable : container.getEnv()) {
                Matcher reference = VARIABLE_REFERENCE.matcher(Objects.requireNonNullElse(variable.getValue(), ""));
                while (reference.find()) {
                    assertThat(declared).as(workload + " " + container.getName() + " " + variable.getName())
                            .contains(reference.group(1));
                }
                declared.add(variable.getName());
            }
        }));
    }

    @Test
    void daemonSetsRunOnlyOnCacheNodes() {
        assertThat(base.all(DaemonSet.class)).extracting(d -> d.getMetadata().getName())
                .containsExactlyInAnyOrder("granary-block", "granary-fuse");
        assertThat(base.all(DaemonSet.class)).allSatisfy(daemonSet ->
                assertThat(daemonSet.getSpec().getTemplate().getSpec().getNodeSelector())
                        .containsEntry("granary.io/cache-node", "true"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("deployments")
    void secretsDirectoriesHoldOneDirectoryPerSecret(Manifests deployment) {
        // <secrets-dir>/<secret>/<key>, as a credentialsRef is read: each key at its Secret's name and its own name.
        List<String> withSecretsDir = new ArrayList<>();
        for (Workload workload : deployment.workloads()) {
            for (Container container : workload.containers()) {
                container.getEnv().stream().filter(variable -> variable.getName().endsWith("_SECRETS_DIR")).forEach(dir -> {
                    withSecretsDir.add(workload.name());
                    Volume secrets = workload.volumeAt(container, dir.getValue());
                    assertThat(secrets.getProjected()).as(workload + " secrets dir").isNotNull();
                    assertThat(secrets.getProjected().getSources()).extracting(VolumeProjection::getSecret).allSatisfy(secret -> {
                        assertThat(secret).as(workload + " secrets dir source").isNotNull();
                        assertThat(secret.getItems()).as(workload + " secret " + secret.getName()).isNotEmpty()
                                .allSatisfy(item -> assertThat(item.getPath()).isEqualTo(secret.getName() + "/" + item.getKey()));
                        // An S3 key pair is used whole: both keys or neither.
                        List<String> keys = secret.getItems().stream().map(KeyToPath::getKey).toList();
                        assertThat(keys.contains("accessKey")).as(workload + " secret " + secret.getName() + " key pair")
                                .isEqualTo(keys.contains("secretKey"));
                    });
                });
            }
        }
        assertThat(withSecretsDir).containsExactlyInAnyOrder("granary-metadata", "granary-block", "granary-preload",
                "granary-gateway", "granary-fuse", HOOK, OPERATOR);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("deployments")
    void everyServiceMountsTheClusterCredentialAndAllButTheHookTheIdentities(Manifests deployment) {
        // Every service calls others (the hook, the metadata-service) with the cluster credential.
        assertThat(deployment.workloads()).hasSize(7).allSatisfy(workload ->
                assertThat(secretsOf(workload)).as(workload + " " + CLUSTER_SECRET)
                        .filteredOn(s -> s.getName().equals(CLUSTER_SECRET)).singleElement().satisfies(secret -> {
                            // Required: without the token a service does not start, and a pod that waits for its
                            // Secrets says why.
                            assertThat(secret.getOptional()).isNotEqualTo(Boolean.TRUE);
                            assertThat(secret.getItems()).extracting(KeyToPath::getKey, KeyToPath::getPath)
                                    .containsExactly(tuple("token", CLUSTER_SECRET + "/token"));
                        }));
        // The hook and the operator check no caller (they serve no API): no identities.
        List<Workload> services = deployment.workloads().stream()
                .filter(workload -> !workload.name().equals(HOOK) && !workload.name().equals(OPERATOR)).toList();
        assertThat(services).hasSize(5).allSatisfy(workload ->
                assertThat(secretsOf(workload)).as(workload + " " + ACCESS_SECRET)
                        .filteredOn(s -> s.getName().equals(ACCESS_SECRET)).singleElement().satisfies(secret -> {
                            assertThat(secret.getOptional()).isNotEqualTo(Boolean.TRUE);
                            assertThat(secret.getItems()).extracting(KeyToPath::getKey, KeyToPath::getPath)
                                    .containsExactly(tuple("identities.json", ACCESS_SECRET + "/identities.json"));
                        }));
        // The hook checks no caller (the API server calls it over TLS): no identities, in no volume of its pods.
        for (String name : List.of(HOOK, OPERATOR)) {
            Stream<String> secrets = deployment.workload(name).pod().getVolumes().stream().flatMap(volume -> Stream.concat(
                    Stream.ofNullable(volume.getSecret()).map(secret -> secret.getSecretName()),
                    Stream.ofNullable(volume.getProjected()).flatMap(projected -> projected.getSources().stream())
                            .map(VolumeProjection::getSecret).filter(Objects::nonNull).map(SecretProjection::getName)));
            assertThat(secrets).as(name).doesNotContain(ACCESS_SECRET);
        }
    }

    @Test
    void exampleIdentitiesMakeTheGatewayCredentialsTheAdmins() {
        // Secrets are never shipped: the kustomization holds none, the example only names them.
        assertThat(base.all(Secret.class)).as("Secrets in the kustomization").isEmpty();
        List<JsonNode> identities = exampleIdentities();
        Set<String> fields = Set.of("name", "role", "datasets", "credentialsRef", "serviceAccount");

        assertThat(identities).isNotEmpty().allSatisfy(identity -> {
            List<String> names = new ArrayList<>();
            identity.fieldNames().forEachRemaining(names::add);
            // The services refuse a file with an unknown field, and keep the identities they had.
            assertThat(names).as(identity.toString()).isSubsetOf(fields).contains("name", "role");
            assertThat(identity.path("role").asText()).isIn("reader", "writer", "admin");
        });
        assertThat(identities).extracting(identity -> identity.path("name").asText()).doesNotHaveDuplicates();
        assertThat(identities).filteredOn(identity -> identity.path("role").asText().equals("admin"))
                .extracting(identity -> identity.path("credentialsRef").asText())
                .containsExactly("granary-gateway-credentials");
    }

    // Each service.

    @Test
    void metadataReplicasFindEachOtherThroughTheHeadlessService() {
        StatefulSet statefulSet = base.get(StatefulSet.class, NAMESPACE, "granary-metadata");
        Workload metadata = Workload.of(statefulSet).orElseThrow();
        Container container = metadata.container("metadata-service");
        Service headless = base.get(Service.class, NAMESPACE, statefulSet.getSpec().getServiceName());

        assertThat(statefulSet.getSpec().getReplicas()).isEqualTo(3);
        assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
        // A replica is ready only once it has joined: DNS_PING must find the others before they are.
        assertThat(headless.getSpec().getPublishNotReadyAddresses()).isTrue();
        assertThat(metadata.selectedBy(headless)).isTrue();
        assertThat(env(container, "GRANARY_METADATA_CLUSTER_DISCOVERY")).isEqualTo("dns");
        assertThat(env(container, "GRANARY_METADATA_CLUSTER_DNS_QUERY"))
                .startsWith(headless.getMetadata().getName() + "." + NAMESPACE + ".svc");
        assertThat(downwardField(container, "GRANARY_METADATA_CLUSTER_BIND_ADDRESS")).isEqualTo("status.podIP");
        // Each replica keeps its store on its own volume.
        String dataDir = env(container, "GRANARY_METADATA_DATA_DIR");
        assertThat(container.getVolumeMounts()).filteredOn(mount -> mount.getMountPath().equals(dataDir))
                .extracting(VolumeMount::getName)
                .containsExactlyElementsOf(statefulSet.getSpec().getVolumeClaimTemplates().stream()
                        .map(claim -> claim.getMetadata().getName()).toList());
    }

    @Test
    void workersAreNamedAfterTheirNodeAndReachedAtTheirPodIp() {
        Container container = base.workload("granary-block").container("block-service");
        int port = Workload.port(container, new IntOrString("http")).orElseThrow().getContainerPort();

        assertThat(downwardField(container, "GRANARY_NODE")).isEqualTo("spec.nodeName");
        // Placement hashes the worker id: one per node, stable, keeps a restarted worker the owner of its blocks.
        assertThat(downwardField(container, "GRANARY_BLOCK_WORKER_ID")).isEqualTo("spec.nodeName");
        assertThat(env(container, "GRANARY_BLOCK_ADVERTISED_ADDRESS")).isEqualTo("http://$(POD_IP):" + port);
        assertThat(downwardField(container, "POD_IP")).isEqualTo("status.podIP");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("deployments")
    void blockLevelsLiveOnTheirVolumesWithinTheirLimits(Manifests deployment) {
        Workload block = deployment.workload("granary-block");
        Container container = block.container("block-service");
        ConfigMap config = deployment.get(ConfigMap.class, NAMESPACE, "granary-block-config");
        Map<String, String> levels = config.getData();
        assertThat(container.getEnvFrom()).extracting(source -> source.getConfigMapRef().getName())
                .contains(config.getMetadata().getName());

        assertThat(levels).containsEntry("GRANARY_BLOCK_LEVELS_0__MEDIUM", "MEM");
        Volume mem = levelVolume(block, container, 0);
        assertThat(mem.getEmptyDir()).as("MEM level volume").isNotNull();
        assertThat(mem.getEmptyDir().getMedium()).isEqualTo("Memory");
        // tmpfs pages count against the container's memory: the level must fit its volume and the limit.
        BigDecimal memQuota = bytes(levels.get("GRANARY_BLOCK_LEVELS_0__QUOTA"));
        assertThat(memQuota).isLessThanOrEqualTo(Quantity.getAmountInBytes(mem.getEmptyDir().getSizeLimit()));
        assertThat(memQuota).isLessThan(Quantity.getAmountInBytes(container.getResources().getLimits().get("memory")));

        assertThat(levels).containsEntry("GRANARY_BLOCK_LEVELS_1__MEDIUM", "SSD").containsKey("GRANARY_BLOCK_LEVELS_1__QUOTA");
        assertThat(levelVolume(block, container, 1).getHostPath()).as("SSD level volume").isNotNull();
    }

    @Test
    void gatewayChecksTheAdminKeysFuseSignsWith() {
        // The identities say whose keys the gateway accepts; the setting that used to name them is gone.
        assertThat(base.workloads().stream().flatMap(Workload::everyContainer).flatMap(c -> c.getEnv().stream()))
                .extracting(EnvVar::getName).doesNotContain("GRANARY_GATEWAY_AUTH_CREDENTIALS_REFS");
        String admin = exampleIdentities().stream().filter(identity -> identity.path("role").asText().equals("admin"))
                .map(identity -> identity.path("credentialsRef").asText()).findFirst().orElseThrow();
        Workload gateway = base.workload("granary-gateway");
        Container container = gateway.container("gateway");
        Volume secrets = gateway.volumeAt(container, env(container, "GRANARY_SECRETS_DIR"));
        // Without the admin's keys nobody manages Granary: that Secret is required, the under-store ones optional.
        assertThat(secrets.getProjected().getSources()).extracting(VolumeProjection::getSecret).filteredOn(Objects::nonNull)
                .filteredOn(secret -> secret.getName().equals(admin)).singleElement()
                .extracting(SecretProjection::getOptional).isNotEqualTo(Boolean.TRUE);

        // Checkpoints written through the mount are signed with the same key pair.
        Workload fuse = base.workload("granary-fuse");
        Container client = fuse.container("fuse-client");
        assertThat(env(client, "GRANARY_FUSE_WRITES_CREDENTIALS_REF")).isEqualTo(admin);
        assertThat(fuse.volumeAt(client, env(client, "GRANARY_SECRETS_DIR")).getProjected().getSources())
                .extracting(VolumeProjection::getSecret).extracting(SecretProjection::getName)
                .containsExactlyInAnyOrder(CLUSTER_SECRET, ACCESS_SECRET, admin);
        assertThat(env(client, "GRANARY_FUSE_WRITES_GATEWAY_URL")).isEqualTo("http://granary-gateway.granary.svc:8080");
    }

    @Test
    void fuseMountsDatasetsOnTheHostForPodsToShare() {
        Workload fuse = base.workload("granary-fuse");
        Container client = fuse.container("fuse-client");

        assertThat(client.getSecurityContext().getPrivileged()).as("FUSE needs a privileged container").isTrue();
        assertThat(client.getSecurityContext().getRunAsUser()).as("mounting needs root").isZero();
        assertThat(base.get(Namespace.class, null, fuse.namespace()).getMetadata().getLabels())
                .as("Pod Security of namespace " + fuse.namespace())
                .containsEntry("pod-security.kubernetes.io/enforce", "privileged");
        // The mount made in the container must reach the host, and from there the pods (the hook's fuse root).
        assertThat(env(client, "GRANARY_FUSE_MOUNT_POINT")).isEqualTo("/mnt/granary");
        assertThat(client.getVolumeMounts()).filteredOn(mount -> mount.getMountPath().equals("/mnt/granary"))
                .extracting(VolumeMount::getMountPropagation).containsExactly("Bidirectional");
        assertThat(fuse.volumeAt(client, "/mnt/granary").getHostPath().getPath()).isEqualTo("/mnt/granary");
        assertThat(fuse.volumeAt(client, "/dev/fuse").getHostPath().getPath()).isEqualTo("/dev/fuse");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("deployments")
    void fuseReadsTheWorkersDiskLevelOfItsNodeAtThePathTheWorkerAdvertises(Manifests deployment) {
        Workload block = deployment.workload("granary-block");
        Container worker = block.container("block-service");
        Workload fuse = deployment.workload("granary-fuse");
        Container client = fuse.container("fuse-client");
        // Short-circuit reads need the same node name and the worker's level directory at the same path.
        assertThat(downwardField(client, "GRANARY_NODE")).isEqualTo(downwardField(worker, "GRANARY_NODE"));
        String ssd = env(worker, "GRANARY_BLOCK_LEVELS_1__PATHS");
        VolumeMount mount = client.getVolumeMounts().stream().filter(m -> ssd.startsWith(m.getMountPath() + "/"))
                .findFirst().orElseThrow(() -> new AssertionError("the worker's SSD level " + ssd + " is not in the client"));
        assertThat(mount.getReadOnly()).as("the client only reads block files").isTrue();
        assertThat(fuse.volumeAt(client, mount.getMountPath()).getHostPath().getPath())
                .isEqualTo(levelVolume(block, worker, 1).getHostPath().getPath());
    }

    // Who may reach what.

    @Test
    void everyPortIsClosedToAllButGranaryPodsSaveTheGatewayAndTheHook() {
        Set<String> granary = granaryPodNames();
        // Clients anywhere use the gateway; the API server, from no pod's address, calls the hook.
        Map<String, String> openToAll = Map.of("granary-gateway", "http", HOOK, "https");

        assertThat(base.workloads()).allSatisfy(workload -> {
            assertThat(policiesFor(workload)).as(workload + " is selected by a NetworkPolicy").isNotEmpty();
            for (Container container : workload.containers()) {
                for (ContainerPort port : container.getPorts()) {
                    String where = workload + " port " + port.getContainerPort();
                    List<NetworkPolicyIngressRule> rules = ingressTo(workload, port);
                    if (Objects.equals(port.getName(), openToAll.get(workload.name()))) {
                        assertThat(rules).as(where + " open to any source").anySatisfy(rule ->
                                assertThat(rule.getFrom()).isEmpty());
                    } else {
                        assertThat(rules).as(where).allSatisfy(rule -> assertThat(rule.getFrom())
                                .as(where + ": a rule with no 'from' admits any source").isNotEmpty()
                                .allSatisfy(peer -> assertThat(onlyGranaryPods(peer, granary))
                                        .as(where + " admits only Granary's pods of its namespace: " + peer).isTrue()));
                    }
                }
            }
        });
    }

    @Test
    void granaryPodsReachTheInternalPorts() {
        Map<String, Integer> internal = Map.of("granary-metadata", 8081, "granary-block", 8082, "granary-preload", 8084);

        // Any Granary pod may call any of them: who calls whom changes with the code, strangers are what is kept out.
        internal.forEach((name, number) -> {
            Workload service = base.workload(name);
            ContainerPort port = service.port(new IntOrString(number))
                    .orElseThrow(() -> new AssertionError(service + " has no port " + number));
            List<NetworkPolicyPeer> peers = ingressTo(service, port).stream().flatMap(rule -> rule.getFrom().stream()).toList();
            // The operator calls the metadata-service and the preload-service, never a worker.
            assertThat(base.workloads()).filteredOn(caller -> !(caller.name().equals(OPERATOR) && number == 8082))
                    .allSatisfy(caller -> assertThat(peers)
                    .as(caller + " reaches " + service + " on " + number)
                    .anySatisfy(peer -> assertThat(selects(peer.getPodSelector(), caller.podLabels())).isTrue()));
        });
        // The replicas' JGroups port is theirs alone.
        Workload metadata = base.workload("granary-metadata");
        ContainerPort jgroups = metadata.port(new IntOrString("jgroups")).orElseThrow();
        assertThat(ingressTo(metadata, jgroups)).isNotEmpty().flatExtracting(NetworkPolicyIngressRule::getFrom)
                .allSatisfy(peer -> assertThat(base.workloads())
                        .filteredOn(workload -> selects(peer.getPodSelector(), workload.podLabels()))
                        .extracting(Workload::name).containsExactly("granary-metadata"));
    }

    // Kafka.

    @ParameterizedTest(name = "{0}")
    @MethodSource("deployments")
    void kafkaClientsReadTheBootstrapServersFromOneConfigMap(Manifests deployment) {
        ConfigMap kafka = deployment.get(ConfigMap.class, NAMESPACE, "granary-kafka");
        assertThat(kafka.getData()).containsKey("KAFKA_BOOTSTRAP_SERVERS");
        // Every Granary service but the hook is a Kafka client.
        List<Container> clients = deployment.workloads().stream().filter(workload -> !workload.name().equals(HOOK))
                .flatMap(workload -> workload.containers().stream()).filter(KubernetesManifestsTest::isGranaryService)
                .toList();

        assertThat(clients).hasSize(6).allSatisfy(container ->
                assertThat(container.getEnvFrom()).as(container.getName())
                        .extracting(EnvFromSource::getConfigMapRef).isNotEmpty()
                        .anySatisfy(ref -> assertThat(ref.getName()).isEqualTo(kafka.getMetadata().getName())));
    }

    @Test
    void strimziExampleServesTheBootstrapServersGranaryIsGiven() {
        String bootstrap = base.get(ConfigMap.class, NAMESPACE, "granary-kafka").getData().get("KAFKA_BOOTSTRAP_SERVERS");
        GenericKubernetesResource kafka = everything.generic("Kafka").get(0);
        List<Map<String, Object>> listeners = kafka.get("spec", "kafka", "listeners");
        Map<String, Object> plain = listeners.stream()
                .filter(listener -> "internal".equals(listener.get("type")) && Boolean.FALSE.equals(listener.get("tls")))
                .findFirst().orElseThrow(() -> new AssertionError("no plain internal listener"));

        assertThat(everything.generic("Kafka")).hasSize(1);
        // Strimzi names the bootstrap Service <cluster>-kafka-bootstrap.
        assertThat(bootstrap).isEqualTo(kafka.getMetadata().getName() + "-kafka-bootstrap."
                + kafka.getMetadata().getNamespace() + ".svc:" + plain.get("port"));
        assertThat(kafka.getMetadata().getAnnotations())
                .containsEntry("strimzi.io/kraft", "enabled").containsEntry("strimzi.io/node-pools", "enabled");
        List<GenericKubernetesResource> pools = everything.generic("KafkaNodePool");
        assertThat(pools).isNotEmpty().allSatisfy(pool ->
                assertThat(pool.getMetadata().getLabels()).containsEntry("strimzi.io/cluster", kafka.getMetadata().getName()));
        assertThat(pools.stream().flatMap(pool -> pool.<List<String>>get("spec", "roles").stream()))
                .contains("controller", "broker");
    }

    @Test
    void strimziExampleAdmitsOnlyGranarysKafkaClients() {
        GenericKubernetesResource kafka = everything.generic("Kafka").get(0);
        List<Map<String, Object>> listeners = kafka.get("spec", "kafka", "listeners");
        List<Workload> clients = base.workloads().stream().filter(workload -> !workload.name().equals(HOOK)).toList();

        // Kafka is another namespace's: a peer names Granary's namespace and, in it, Granary's pods.
        assertThat(listeners).isNotEmpty().allSatisfy(listener -> {
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> peers = (List<Map<String, Object>>) listener.get("networkPolicyPeers");
            assertThat(peers).as("listener " + listener.get("name") + " networkPolicyPeers").isNotEmpty().allSatisfy(peer -> {
                assertThat(peer).containsOnlyKeys("namespaceSelector", "podSelector");
                assertThat(peer.get("namespaceSelector"))
                        .isEqualTo(Map.of("matchLabels", Map.of("kubernetes.io/metadata.name", NAMESPACE)));
                LabelSelector pods = JSON.convertValue(peer.get("podSelector"), LabelSelector.class);
                assertThat(onlyGranaryNames(pods, granaryPodNames())).as("podSelector " + pods).isTrue();
            });
            assertThat(clients).allSatisfy(client -> assertThat(peers).as(client + " reaches Kafka").anySatisfy(peer ->
                    assertThat(selects(JSON.convertValue(peer.get("podSelector"), LabelSelector.class), client.podLabels()))
                            .isTrue()));
        });
    }

    // The autoscaling example.

    @Test
    void autoscalingIsAComponentOfEveryFileInItsFolder() throws IOException {
        // kustomize refuses a kustomization that builds on a directory above its own (a cycle), so the example cannot
        // build on k8s/: it is a Component, which an overlay outside k8s/ adds to k8s/.
        List<Path> files = manifestFiles().stream().filter(file -> file.startsWith(AUTOSCALING)).toList();

        assertThat(autoscaling.kind()).isEqualTo("Component");
        assertThat(autoscaling.resources()).allSatisfy(file -> assertThat(file).isRegularFile());
        assertThat(autoscaling.resources()).containsExactlyInAnyOrderElementsOf(files);
    }

    @Test
    void autoscalingReplacesTheWorkersDaemonSetWithAStatefulSet() {
        // Its one patch deletes the base's DaemonSet of workers (a patch that matches nothing fails the build).
        assertThat(autoscaling.patches()).singleElement().satisfies(patch ->
                assertThat(base.all()).filteredOn(manifest -> patch.deletes(manifest.resource()))
                        .extracting(Manifests.Manifest::resource).singleElement().satisfies(deleted -> {
                            assertThat(deleted).isInstanceOf(DaemonSet.class);
                            assertThat(deleted.getMetadata().getName()).isEqualTo("granary-block");
                        }));
        assertThat(autoscaled.all(DaemonSet.class)).extracting(d -> d.getMetadata().getName())
                .containsExactly("granary-fuse");
        assertThat(autoscaled.workload("granary-block").owner()).isInstanceOf(StatefulSet.class);
    }

    @Test
    void autoscaledWorkersRunTheDaemonSetsPods() {
        Workload daemonSet = base.workload("granary-block");
        Workload statefulSet = autoscaled.workload("granary-block");
        Container original = daemonSet.container("block-service");
        Container worker = statefulSet.container("block-service");
        List<String> originalEnv = original.getEnv().stream().map(EnvVar::getName).toList();

        // Only how a worker is named, placed and leaves differs; the rest is the DaemonSet's, volumes and secrets too.
        assertThat(statefulSet.podLabels()).isEqualTo(daemonSet.podLabels());
        assertThat(statefulSet.pod().getServiceAccountName()).isEqualTo(daemonSet.pod().getServiceAccountName());
        assertThat(statefulSet.pod().getAutomountServiceAccountToken())
                .isEqualTo(daemonSet.pod().getAutomountServiceAccountToken());
        assertThat(statefulSet.pod().getNodeSelector()).isEqualTo(daemonSet.pod().getNodeSelector());
        assertThat(statefulSet.pod().getInitContainers()).isEqualTo(daemonSet.pod().getInitContainers());
        assertThat(statefulSet.pod().getVolumes()).isEqualTo(daemonSet.pod().getVolumes());
        assertThat(statefulSet.containers()).hasSameSizeAs(daemonSet.containers());
        assertThat(worker).usingRecursiveComparison().ignoringFields("env", "lifecycle").isEqualTo(original);
        assertThat(worker.getEnv()).containsAll(original.getEnv().stream()
                .filter(variable -> !variable.getName().equals("GRANARY_BLOCK_WORKER_ID")).toList());
        assertThat(worker.getEnv()).extracting(EnvVar::getName).filteredOn(name -> !originalEnv.contains(name))
                .containsExactlyInAnyOrder("GRANARY_BLOCK_DRAIN_ON_STOP", "GRANARY_BLOCK_DRAIN_DEADLINE");
    }

    @Test
    void autoscaledWorkersAreNamedAfterTheirPodsOnePerCacheNode() {
        StatefulSet statefulSet = autoscaled.get(StatefulSet.class, NAMESPACE, "granary-block");
        Workload block = Workload.of(statefulSet).orElseThrow();
        Container container = block.container("block-service");

        // Placement hashes the worker id: a StatefulSet's pod keeps its name, not its node.
        assertThat(downwardField(container, "GRANARY_BLOCK_WORKER_ID")).isEqualTo("metadata.name");
        assertThat(downwardField(container, "GRANARY_NODE")).isEqualTo("spec.nodeName");
        // One per cache node: the disk level is the node's directory.
        assertThat(block.pod().getNodeSelector()).containsEntry("granary.io/cache-node", "true");
        assertThat(block.pod().getAffinity().getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution())
                .singleElement().satisfies(term -> {
                    assertThat(term.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
                    assertThat(term.getNamespaces()).isEmpty();
                    assertThat(term.getNamespaceSelector()).isNull();
                    assertThat(selects(term.getLabelSelector(), block.podLabels())).as("selects the workers").isTrue();
                });
        // The HPA sets the count: one here would be set back by every apply.
        assertThat(statefulSet.getSpec().getReplicas()).isNull();
        Service headless = autoscaled.get(Service.class, NAMESPACE, statefulSet.getSpec().getServiceName());
        assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(block.selectedBy(headless)).isTrue();
    }

    @Test
    void autoscaledWorkersDrainBeforeTheyGo() {
        Workload block = autoscaled.workload("granary-block");
        Container container = block.container("block-service");
        int port = Workload.port(container, new IntOrString("http")).orElseThrow().getContainerPort();
        // The cluster credential, as every service's secrets directory holds it.
        String token = env(container, "GRANARY_SECRETS_DIR") + "/" + CLUSTER_SECRET + "/token";
        List<String> command = container.getLifecycle().getPreStop().getExec().getCommand();

        assertThat(command).hasSize(3).startsWith("sh", "-c");
        String script = command.get(2);
        // Starts the drain, then asks until it is over.
        assertThat(script).contains("http://127.0.0.1:" + port + "/worker/drain", "-X POST", "\"Drained\"")
                .containsPattern("\\b(while|until)\\b");
        // The token reaches curl on its stdin: in no argument another process could read, and in no output.
        assertThat(script).contains(token, "-H @-").doesNotContain("echo", "set -x");
        // A stop that skipped the hook, or whose call failed, drains as well.
        assertThat(env(container, "GRANARY_BLOCK_DRAIN_ON_STOP")).isEqualTo("true");
    }

    @Test
    void autoscaledWorkersHaveTheTimeToDrain() {
        Workload block = autoscaled.workload("granary-block");
        Duration deadline = quarkusDuration(env(block.container("block-service"), "GRANARY_BLOCK_DRAIN_DEADLINE"));
        Duration grace = Duration.ofSeconds(block.pod().getTerminationGracePeriodSeconds());

        // The kubelet kills the worker when the grace period ends: the drain (at most its deadline) and the
        // shutdown after it must fit.
        assertThat(grace).isGreaterThanOrEqualTo(deadline.plusMinutes(1));
    }

    @Test
    void scaledObjectScalesTheExamplesWorkers() {
        ScaledObject scaledObject = scaledObject();
        ScaleTargetRef target = scaledObject.getSpec().scaleTargetRef();

        assertThat(target.apiVersion()).isEqualTo("apps/v1");
        assertThat(target.kind()).isEqualTo("StatefulSet");
        assertThat(autoscalingAdds.all(StatefulSet.class))
                .extracting(s -> s.getMetadata().getNamespace() + "/" + s.getMetadata().getName())
                .contains(scaledObject.getMetadata().getNamespace() + "/" + target.name());
        // Two at least: a worker that drains hands its blocks to the others.
        assertThat(scaledObject.getSpec().minReplicaCount()).isGreaterThanOrEqualTo(2);
        assertThat(scaledObject.getSpec().maxReplicaCount()).isGreaterThan(scaledObject.getSpec().minReplicaCount());
    }

    @Test
    void scaledObjectQueriesOnlyTheMetadataServicesGauges() {
        Set<String> gauges = Set.of("granary_cache_used_ratio", "granary_cache_hit_ratio", "granary_dataset_cached_ratio",
                "granary_dataset_hit_ratio");
        List<Trigger> triggers = scaledObject().getSpec().triggers();

        assertThat(triggers).isNotEmpty().allSatisfy(trigger -> {
            assertThat(trigger.type()).isEqualTo("prometheus");
            String query = trigger.metadata().get("query");
            Matcher metric = GRANARY_METRIC.matcher(query);
            List<String> names = new ArrayList<>();
            while (metric.find()) {
                names.add(metric.group(2));
                // Every metadata replica exports the same values: one of them, not their sum.
                assertThat(metric.group(1)).as(query + ": max(" + metric.group(2) + ")").isNotNull();
            }
            assertThat(names).as(query).isNotEmpty().allSatisfy(name -> assertThat(gauges).contains(name));
            // A ratio, which the HPA scales as a utilization: replicas * value / threshold. AverageValue (the
            // default) would divide the ratio among the replicas.
            assertThat(trigger.metricType()).isEqualTo("Value");
            assertThat(Double.parseDouble(trigger.metadata().get("threshold"))).isStrictlyBetween(0.0, 1.0);
            // No data is an error, which holds the count; read as 0, it would drain workers away.
            assertThat(trigger.metadata()).containsEntry("ignoreNullValues", "false");
        });
        assertThat(triggers).extracting(trigger -> trigger.metadata().get("query"))
                .anySatisfy(query -> assertThat(query).contains("granary_cache_used_ratio"));
    }

    @Test
    void scaledObjectScalesDownSlowerThanUpOneDrainAtATime() {
        ScaledObject scaledObject = scaledObject();
        Behavior behavior = scaledObject.getSpec().advanced().horizontalPodAutoscalerConfig().behavior();
        ScalingRules up = behavior.scaleUp();
        ScalingRules down = behavior.scaleDown();
        long grace = autoscaled.workload(scaledObject.getSpec().scaleTargetRef().name()).pod()
                .getTerminationGracePeriodSeconds();

        // Each worker removed drains, its blocks moving to the others: only once the cache has stayed small a while,
        assertThat(down.stabilizationWindowSeconds()).isGreaterThanOrEqualTo(600)
                .isGreaterThan(up.stabilizationWindowSeconds());
        assertThat(podsPerHour(down)).isLessThan(podsPerHour(up));
        // and one at a time, the next when the last has gone.
        assertThat(down.policies()).singleElement().satisfies(policy -> {
            assertThat(policy.value()).isEqualTo(1);
            assertThat(policy.periodSeconds().longValue()).isGreaterThanOrEqualTo(grace);
        });
        // KEDA's CRD lets through what the HPA it makes then refuses.
        assertThat(List.of(up, down)).allSatisfy(rules -> {
            assertThat(rules.stabilizationWindowSeconds()).isBetween(0, 3600);
            assertThat(rules.policies()).allSatisfy(policy -> assertThat(policy.periodSeconds()).isBetween(1, 1800));
        });
    }

    @Test
    void prometheusScrapesTheMetadataServiceAndReachesNothingElse() {
        PodMonitor monitor = autoscalingAdds.get(PodMonitor.class, NAMESPACE, "granary-metadata");
        Workload metadata = autoscaled.workload("granary-metadata");
        LabelSelector monitored = new LabelSelector(null, monitor.getSpec().selector().matchLabels());

        assertThat(autoscaled.workloads()).filteredOn(workload -> selects(monitored, workload.podLabels()))
                .extracting(Workload::name).containsExactly(metadata.name());
        assertThat(monitor.getSpec().podMetricsEndpoints()).hasSize(1);
        PodMetricsEndpoint endpoint = monitor.getSpec().podMetricsEndpoints().get(0);
        assertThat(endpoint.path()).isEqualTo("/q/metrics");
        ContainerPort port = Workload.port(metadata.container("metadata-service"), new IntOrString(endpoint.port()))
                .orElseThrow(() -> new AssertionError("the metadata-service has no port " + endpoint.port()));

        // security.yaml refuses what is not Granary's: the example lets in the Prometheus the ScaledObject queries
        // (its pods, in its namespace) to that port of the metadata-service, and nothing more.
        Matcher prometheus = SERVICE_URL.matcher(scaledObject().getSpec().triggers().get(0).metadata().get("serverAddress"));
        assertThat(prometheus.matches()).as("serverAddress is a Service's").isTrue();
        assertThat(autoscalingAdds.all(NetworkPolicy.class)).singleElement().satisfies(policy -> {
            assertThat(autoscaled.workloads()).filteredOn(workload -> selects(policy.getSpec().getPodSelector(),
                    workload.podLabels())).extracting(Workload::name).containsExactly(metadata.name());
            assertThat(policy.getSpec().getIngress()).isNotEmpty().allSatisfy(rule -> {
                assertThat(rule.getPorts()).isNotEmpty().allSatisfy(open -> assertThat(opens(open, port)).isTrue());
                assertThat(rule.getFrom()).isNotEmpty().allSatisfy(peer -> {
                    assertThat(peer.getIpBlock()).isNull();
                    assertThat(peer.getNamespaceSelector().getMatchLabels())
                            .isEqualTo(Map.of("kubernetes.io/metadata.name", prometheus.group(2)));
                    assertThat(peer.getNamespaceSelector().getMatchExpressions()).isEmpty();
                    assertThat(peer.getPodSelector().getMatchLabels()).containsEntry(NAME_LABEL, "prometheus");
                });
            });
        });
    }

    // Helpers.

    private static List<Path> manifestFiles() throws IOException {
        try (Stream<Path> files = Files.walk(K8S)) {
            return files.filter(file -> NOT_MANIFESTS.stream().noneMatch(file::startsWith))
                    .filter(file -> file.getFileName().toString().endsWith(".yaml")
                            || file.getFileName().toString().endsWith(".yml"))  // the CRDs, as their generator names them
                    .filter(file -> !file.getFileName().toString().equals(Kustomization.FILE_NAME))
                    .sorted()
                    .toList();
        }
    }

    /** The one ScaledObject of examples/autoscaling. */
    private static ScaledObject scaledObject() {
        List<ScaledObject> scaledObjects = autoscalingAdds.all(ScaledObject.class);
        assertThat(scaledObjects).as("ScaledObjects of examples/autoscaling").hasSize(1);
        return scaledObjects.get(0);
    }

    /** The fastest the policies of a direction let pods come or go: the HPA takes the fastest. */
    private static double podsPerHour(ScalingRules rules) {
        assertThat(rules.policies()).as("policies").isNotEmpty()
                .allSatisfy(policy -> assertThat(policy.type()).as("policy type").isEqualTo("Pods"));
        return rules.policies().stream().mapToDouble(policy -> policy.value() * 3600.0 / policy.periodSeconds())
                .max().orElseThrow();
    }

    private static MutatingWebhookConfiguration webhookConfiguration() {
        return base.get(MutatingWebhookConfiguration.class, null, HOOK);
    }

    private static MutatingWebhook webhook(String name) {
        return webhookConfiguration().getWebhooks().stream().filter(webhook -> webhook.getName().equals(name))
                .findFirst().orElseThrow(() -> new AssertionError("no webhook " + name));
    }

    private static void assertRequirement(LabelSelectorRequirement requirement, String key, String operator) {
        assertThat(requirement.getKey()).isEqualTo(key);
        assertThat(requirement.getOperator()).isEqualTo(operator);
    }

    /** A webhook's service port; unset means 443. */
    private static ServicePort servicePort(Service service, Integer port) {
        int number = Objects.requireNonNullElse(port, 443);
        return service.getSpec().getPorts().stream().filter(p -> p.getPort() == number).findFirst()
                .orElseThrow(() -> new AssertionError("Service " + service.getMetadata().getName() + " has no port " + number));
    }

    /** Unset, a Service's targetPort is its port. */
    private static IntOrString targetPort(ServicePort port) {
        return Objects.requireNonNullElse(port.getTargetPort(), new IntOrString(port.getPort()));
    }

    /** Workloads that check callers' ServiceAccount tokens with the API server. */
    private static List<Workload> tokenReviewers(Manifests deployment) {
        return deployment.workloads().stream().filter(workload -> workload.containers().stream().anyMatch(container ->
                container.getEnv().stream().anyMatch(variable ->
                        variable.getName().equals(TOKEN_REVIEW) && "true".equals(variable.getValue())))).toList();
    }

    /** The pod's setting wins over its service account's; unset in both means mounted. */
    private static boolean mountsToken(Manifests deployment, Workload workload) {
        ServiceAccount account = deployment.get(ServiceAccount.class, workload.namespace(),
                workload.pod().getServiceAccountName());
        return Optional.ofNullable(workload.pod().getAutomountServiceAccountToken())
                .or(() -> Optional.ofNullable(account.getAutomountServiceAccountToken()))
                .orElse(true);
    }

    /** The identities of examples/granary-access.yaml. */
    private static List<JsonNode> exampleIdentities() {
        Secret access = everything.get(Secret.class, NAMESPACE, ACCESS_SECRET);
        String file = access.getStringData().get("identities.json");
        assertThat(file).as(ACCESS_SECRET + " identities.json").isNotBlank();
        JsonNode identities;
        try {
            identities = JSON.readTree(file).path("identities");
        } catch (JsonProcessingException e) {
            throw new AssertionError("identities.json is not JSON: " + e.getOriginalMessage(), e);
        }
        assertThat(identities.isArray()).as("identities.json \"identities\" is a list").isTrue();
        List<JsonNode> list = new ArrayList<>();
        identities.forEach(list::add);
        return list;
    }

    /** The {@value #NAME_LABEL} of every Granary pod. */
    private static Set<String> granaryPodNames() {
        return Set.copyOf(base.workloads().stream().map(workload -> workload.podLabels().get(NAME_LABEL)).toList());
    }

    /** The NetworkPolicies that isolate a workload's pods for ingress. */
    private static List<NetworkPolicy> policiesFor(Workload workload) {
        return base.all(NetworkPolicy.class).stream()
                .filter(policy -> Objects.equals(policy.getMetadata().getNamespace(), workload.namespace()))
                .filter(policy -> policy.getSpec().getPolicyTypes().isEmpty()
                        || policy.getSpec().getPolicyTypes().contains("Ingress"))
                .filter(policy -> selects(policy.getSpec().getPodSelector(), workload.podLabels()))
                .toList();
    }

    /** Every ingress rule, of every policy that selects the workload, that lets traffic in to this port. */
    private static List<NetworkPolicyIngressRule> ingressTo(Workload workload, ContainerPort port) {
        return policiesFor(workload).stream().flatMap(policy -> policy.getSpec().getIngress().stream())
                .filter(rule -> rule.getPorts().isEmpty() || rule.getPorts().stream().anyMatch(open -> opens(open, port)))
                .toList();
    }

    /** Whether a policy's port (a number, a range, a name, or all ports when unset) is this container port. */
    private static boolean opens(NetworkPolicyPort open, ContainerPort port) {
        // Unset, both protocols are TCP.
        String protocol = Objects.requireNonNullElse(port.getProtocol(), "TCP");
        if (!Objects.requireNonNullElse(open.getProtocol(), "TCP").equals(protocol)) {
            return false;
        }
        IntOrString number = open.getPort();
        if (number == null) {
            return true;
        }
        if (number.getStrVal() != null) {
            return number.getStrVal().equals(port.getName());
        }
        int first = number.getIntVal();
        int last = Objects.requireNonNullElse(open.getEndPort(), first);
        return port.getContainerPort() >= first && port.getContainerPort() <= last;
    }

    /**
     * A peer that admits only Granary's pods: of the policy's own namespace (no namespace selector, no IP block), and
     * only those whose {@value #NAME_LABEL} is a Granary workload's.
     */
    private static boolean onlyGranaryPods(NetworkPolicyPeer peer, Set<String> granary) {
        return peer.getIpBlock() == null && peer.getNamespaceSelector() == null
                && onlyGranaryNames(peer.getPodSelector(), granary);
    }

    /** A pod selector that requires a Granary workload's {@value #NAME_LABEL}. */
    private static boolean onlyGranaryNames(LabelSelector selector, Set<String> granary) {
        if (selector == null) {
            return false;
        }
        String name = Objects.requireNonNullElse(selector.getMatchLabels(), Map.<String, String>of()).get(NAME_LABEL);
        if (name != null) {
            return granary.contains(name);
        }
        return Objects.requireNonNullElse(selector.getMatchExpressions(), List.<LabelSelectorRequirement>of()).stream()
                .anyMatch(requirement -> requirement.getKey().equals(NAME_LABEL) && requirement.getOperator().equals("In")
                        && !requirement.getValues().isEmpty() && granary.containsAll(requirement.getValues()));
    }

    /** Whether a label selector selects these labels; an empty selector selects everything, a null one nothing. */
    private static boolean selects(LabelSelector selector, Map<String, String> labels) {
        if (selector == null) {
            return false;
        }
        Map<String, String> actual = Objects.requireNonNullElse(labels, Map.of());
        Map<String, String> wanted = Objects.requireNonNullElse(selector.getMatchLabels(), Map.of());
        return actual.entrySet().containsAll(wanted.entrySet())
                && Objects.requireNonNullElse(selector.getMatchExpressions(), List.<LabelSelectorRequirement>of()).stream()
                .allMatch(requirement -> {
                    String value = actual.get(requirement.getKey());
                    return switch (requirement.getOperator()) {
                        case "In" -> value != null && requirement.getValues().contains(value);
                        case "NotIn" -> value == null || !requirement.getValues().contains(value);
                        case "Exists" -> value != null;
                        case "DoesNotExist" -> value == null;
                        default -> throw new AssertionError("no label selector operator " + requirement.getOperator());
                    };
                });
    }

    private static boolean isGranaryService(Container container) {
        return container.getImage().startsWith("ghcr.io/granary/");
    }

    /** The Secrets projected into the secrets directory ({@code GRANARY_SECRETS_DIR}) of a workload's Granary service. */
    private static List<SecretProjection> secretsOf(Workload workload) {
        Container container = workload.containers().stream().filter(KubernetesManifestsTest::isGranaryService)
                .findFirst().orElseThrow(() -> new AssertionError(workload + " runs no Granary service"));
        return workload.volumeAt(container, env(container, "GRANARY_SECRETS_DIR"))
                .getProjected().getSources().stream().map(VolumeProjection::getSecret).filter(Objects::nonNull).toList();
    }

    private static void assertHealthProbe(SoftAssertions softly, String probeName, Container container, Probe probe,
                                          String path) {
        HTTPGetAction get = probe == null ? null : probe.getHttpGet();
        softly.assertThat(get).as(probeName + " is an HTTP GET").isNotNull();
        if (get == null) {
            return;
        }
        softly.assertThat(get.getPath()).as(probeName + " path").isEqualTo(path);
        Optional<ContainerPort> port = Workload.port(container, get.getPort());
        softly.assertThat(port).as(probeName + " port").isPresent();
        // The hook serves HTTPS only.
        boolean tls = port.map(p -> "https".equals(p.getName())).orElse(false);
        softly.assertThat(Objects.requireNonNullElse(get.getScheme(), "HTTP")).as(probeName + " scheme")
                .isEqualTo(tls ? "HTTPS" : "HTTP");
    }

    private static EnvVar envVar(Container container, String name) {
        return container.getEnv().stream().filter(variable -> variable.getName().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("container " + container.getName() + " has no " + name));
    }

    private static String env(Container container, String name) {
        return envVar(container, name).getValue();
    }

    /** The downward-API field a variable holds, itself or through a $(VARIABLE) that does. */
    private static String downwardField(Container container, String name) {
        EnvVar variable = envVar(container, name);
        if (variable.getValueFrom() != null && variable.getValueFrom().getFieldRef() != null) {
            return variable.getValueFrom().getFieldRef().getFieldPath();
        }
        Matcher reference = VARIABLE_REFERENCE.matcher(Objects.requireNonNullElse(variable.getValue(), ""));
        if (reference.matches()) {
            return downwardField(container, reference.group(1));
        }
        throw new AssertionError(name + "=" + variable.getValue() + " is no downward-API field");
    }

    /** The volume a block-service level's directory is on. */
    private static Volume levelVolume(Workload block, Container container, int level) {
        String path = env(container, "GRANARY_BLOCK_LEVELS_" + level + "__PATHS");
        VolumeMount mount = container.getVolumeMounts().stream()
                .filter(m -> path.equals(m.getMountPath()) || path.startsWith(m.getMountPath() + "/"))
                .findFirst().orElseThrow(() -> new AssertionError("level " + level + " directory " + path + " is on no volume"));
        return block.volumeAt(container, mount.getMountPath());
    }

    /** The block-service's sizes ({@code 2GiB}) in bytes, read as the Kubernetes quantities they spell ({@code 2Gi}). */
    private static BigDecimal bytes(String size) {
        return Quantity.getAmountInBytes(new Quantity(size.replaceFirst("B$", "")));
    }

    /** Quarkus's short duration form, such as {@code 2s}. */
    private static Duration quarkusDuration(String value) {
        return Duration.parse("PT" + value.toUpperCase(Locale.ROOT));
    }

    /** An image reference's name and tag: the tag follows the last ':' after the last '/'. */
    private static Map.Entry<String, String> nameAndTag(String image) {
        int colon = image.lastIndexOf(':');
        return colon > image.lastIndexOf('/')
                ? Map.entry(image.substring(0, colon), image.substring(colon + 1))
                : Map.entry(image, "");
    }
}
