package io.granary.k8s;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;

/**
 * k8s/kustomization.yaml, which is kustomize's configuration rather than a Kubernetes object: what it applies and the
 * image tags users override.
 *
 * @param resources the manifests it applies, resolved against its directory
 * @param imageTags image name to the tag kustomize sets
 */
record Kustomization(List<Path> resources, Map<String, String> imageTags) {

    static final String FILE_NAME = "kustomization.yaml";

    static Kustomization read(Path dir) throws IOException {
        JsonNode root = new YAMLMapper().readTree(dir.resolve(FILE_NAME).toFile());
        List<Path> resources = StreamSupport.stream(root.path("resources").spliterator(), false)
                .map(entry -> dir.resolve(entry.asText()).normalize())
                .toList();
        Map<String, String> imageTags = new LinkedHashMap<>();
        root.path("images").forEach(image -> imageTags.put(image.path("name").asText(), image.path("newTag").asText()));
        return new Kustomization(resources, imageTags);
    }
}
