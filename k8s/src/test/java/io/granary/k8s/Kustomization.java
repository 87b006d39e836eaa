package io.granary.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.StreamSupport;

/**
 * A kustomization.yaml, which is kustomize's configuration rather than a Kubernetes object: what it applies, the
 * image tags users override and the objects it deletes. Of k8s/ (a Kustomization) or an example (a Component).
 *
 * @param kind      Kustomization, or Component: a part an overlay adds to another kustomization
 * @param resources the manifests it applies, resolved against its directory
 * @param imageTags image name to the tag kustomize sets
 * @param patches   its inline patches
 */
record Kustomization(String kind, List<Path> resources, Map<String, String> imageTags, List<Patch> patches) {

    static final String FILE_NAME = "kustomization.yaml";
    private static final YAMLMapper YAML = new YAMLMapper();

    /**
     * A strategic-merge patch written inline, and the object it names; {@code $patch: delete} deletes that object.
     *
     * @param directive the value of {@code $patch}, or an empty string
     */
    record Patch(String apiVersion, String kind, String namespace, String name, String directive) {

        static Patch parse(String yaml) {
            JsonNode patch;
            try {
                patch = YAML.readTree(yaml);
            } catch (IOException e) {
                throw new UncheckedIOException("a patch is not YAML: " + yaml, e);
            }
            JsonNode metadata = patch.path("metadata");
            return new Patch(patch.path("apiVersion").asText(), patch.path("kind").asText(),
                    metadata.path("namespace").asText(null), metadata.path("name").asText(), patch.path("$patch").asText());
        }

        boolean deletes(HasMetadata object) {
            return directive.equals("delete") && apiVersion.equals(object.getApiVersion()) && kind.equals(object.getKind())
                    && Objects.equals(namespace, object.getMetadata().getNamespace())
                    && name.equals(object.getMetadata().getName());
        }
    }

    static Kustomization read(Path dir) throws IOException {
        JsonNode root = YAML.readTree(dir.resolve(FILE_NAME).toFile());
        List<Path> resources = StreamSupport.stream(root.path("resources").spliterator(), false)
                .map(entry -> dir.resolve(entry.asText()).normalize())
                .toList();
        Map<String, String> imageTags = new LinkedHashMap<>();
        root.path("images").forEach(image -> imageTags.put(image.path("name").asText(), image.path("newTag").asText()));
        List<Patch> patches = StreamSupport.stream(root.path("patches").spliterator(), false)
                .map(entry -> Patch.parse(entry.path("patch").asText()))
                .toList();
        return new Kustomization(root.path("kind").asText(), resources, imageTags, patches);
    }
}
