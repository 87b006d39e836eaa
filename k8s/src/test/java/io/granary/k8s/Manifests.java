package io.granary.k8s;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Kubernetes manifests parsed document by document into fabric8's typed model, about as strictly as the API server
 * reads them. Unknown fields are the one thing the model lets through: see {@link UnknownFields}.
 */
final class Manifests {

    private static final YAMLMapper YAML = YAMLMapper.builder()
            // kubectl refuses a repeated key; Jackson would keep the last one.
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();
    private static final KubernetesSerialization SERIALIZATION = strictSerialization();

    /** One document of a manifest file. */
    record Manifest(Path file, HasMetadata resource) {
        @Override
        public String toString() {
            return resource.getKind() + " " + resource.getMetadata().getName() + " (" + file.getFileName() + ")";
        }
    }

    private final List<Manifest> manifests;

    private Manifests(List<Manifest> manifests) {
        this.manifests = List.copyOf(manifests);
    }

    static Manifests load(Collection<Path> files) throws IOException {
        List<Manifest> manifests = new ArrayList<>();
        for (Path file : files) {
            parse(Files.readString(file), file.toString()).forEach(resource -> manifests.add(new Manifest(file, resource)));
        }
        return new Manifests(manifests);
    }

    /** What an overlay of a kustomization and a component applies: the manifests of both, less what they delete. */
    static Manifests load(Kustomization kustomization, Kustomization component) throws IOException {
        List<Kustomization.Patch> patches = Stream.of(kustomization, component).flatMap(k -> k.patches().stream()).toList();
        List<Manifest> manifests = load(Stream.of(kustomization, component).flatMap(k -> k.resources().stream()).toList())
                .all().stream()
                .filter(manifest -> patches.stream().noneMatch(patch -> patch.deletes(manifest.resource())))
                .toList();
        return new Manifests(manifests);
    }

    /** Every document of a YAML text; a document that does not parse fails with where and why. */
    static List<HasMetadata> parse(String yaml) {
        return parse(yaml, "YAML");
    }

    private static List<HasMetadata> parse(String yaml, String source) {
        List<HasMetadata> resources = new ArrayList<>();
        try (MappingIterator<JsonNode> documents = YAML.readerFor(JsonNode.class).readValues(yaml)) {
            for (int index = 1; documents.hasNextValue(); index++) {
                JsonNode document = documents.nextValue();
                if (document != null && !document.isNull()) {
                    resources.add(typed(document, source + ", document " + index));
                }
            }
        } catch (IOException e) {
            throw new AssertionError(source + " is not valid YAML: " + e.getMessage(), e);
        }
        return resources;
    }

    private static HasMetadata typed(JsonNode document, String where) {
        Object resource;
        try {
            resource = SERIALIZATION.unmarshal(document.toString());
        } catch (RuntimeException e) {
            throw new AssertionError(where + " does not parse: " + deepestMessage(e), e);
        }
        if (resource instanceof HasMetadata object) {
            return object;
        }
        throw new AssertionError(where + " is a " + resource.getClass().getSimpleName() + ", not a Kubernetes object");
    }

    private static KubernetesSerialization strictSerialization() {
        ObjectMapper mapper = new ObjectMapper();
        // The API server refuses a number or a boolean where it wants a string (a label value true, a ConfigMap
        // value 0.95); Jackson would quietly convert it.
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        KubernetesSerialization serialization = new KubernetesSerialization(mapper, true);
        serialization.registerKubernetesResource(CertManager.Issuer.class);
        serialization.registerKubernetesResource(CertManager.Certificate.class);
        serialization.registerKubernetesResource(Keda.ScaledObject.class);
        serialization.registerKubernetesResource(PrometheusOperator.PodMonitor.class);
        return serialization;
    }

    private static String deepestMessage(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause.getMessage();
    }

    List<Manifest> all() {
        return manifests;
    }

    <T extends HasMetadata> List<T> all(Class<T> type) {
        return manifests.stream().map(Manifest::resource).filter(type::isInstance).map(type::cast).toList();
    }

    /** A namespaced object by namespace and name, or a cluster-scoped one with a null namespace. */
    <T extends HasMetadata> T get(Class<T> type, String namespace, String name) {
        return all(type).stream()
                .filter(o -> Objects.equals(o.getMetadata().getNamespace(), namespace))
                .filter(o -> name.equals(o.getMetadata().getName()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " "
                        + (namespace == null ? "" : namespace + "/") + name));
    }

    /** Objects of a kind fabric8 has no model for (an operator's). */
    List<GenericKubernetesResource> generic(String kind) {
        return all(GenericKubernetesResource.class).stream().filter(o -> kind.equals(o.getKind())).toList();
    }

    List<Workload> workloads() {
        return manifests.stream().map(m -> Workload.of(m.resource())).flatMap(Optional::stream).toList();
    }

    Workload workload(String name) {
        return workloads().stream().filter(w -> w.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no workload " + name));
    }

    List<Workload> selectedBy(Service service) {
        return workloads().stream().filter(w -> w.selectedBy(service)).toList();
    }
}
