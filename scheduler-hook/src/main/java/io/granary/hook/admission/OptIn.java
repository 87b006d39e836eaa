package io.granary.hook.admission;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.ValidationException;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * What a pod asks of Granary through its labels and annotations. Bad values never block the pod: each becomes
 * a warning the API server shows to whoever created it, and is otherwise ignored.
 *
 * @param datasets  the datasets it reads, in the order given
 * @param required  schedule it only onto nodes caching them (when any does)
 * @param mountPath where the datasets' FUSE mounts go in its containers
 * @param warnings  what was ignored, and why
 */
public record OptIn(List<String> datasets, boolean required, Optional<String> mountPath, List<String> warnings) {

    /** The opt-in label (a label, so the webhook's objectSelector can pick the pods); its value is a dataset. */
    public static final String DATASET_LABEL = "granary.io/dataset";
    /** Several datasets, comma-separated (label values cannot hold commas). */
    public static final String DATASETS_ANNOTATION = "granary.io/datasets";
    /** {@code required}: only nodes caching the data; anything else: prefer them. */
    public static final String SCHED_LABEL = "granary.io/sched";
    public static final String MOUNT_ANNOTATION = "granary.io/mount";

    public static OptIn of(ObjectMeta meta) {
        Map<String, String> labels = meta.getLabels() == null ? Map.of() : meta.getLabels();
        Map<String, String> annotations = meta.getAnnotations() == null ? Map.of() : meta.getAnnotations();
        List<String> warnings = new ArrayList<>();
        Set<String> datasets = new LinkedHashSet<>();
        addDataset(datasets, warnings, "label " + DATASET_LABEL, labels.get(DATASET_LABEL));
        String listed = annotations.get(DATASETS_ANNOTATION);
        if (listed != null) {
            for (String name : listed.split(",")) {
                addDataset(datasets, warnings, "annotation " + DATASETS_ANNOTATION, name.strip());
            }
        }
        String sched = labels.get(SCHED_LABEL);
        if (sched != null && !sched.equals("required") && !sched.equals("preferred")) {
            warnings.add("granary: label " + SCHED_LABEL + "='" + sched + "' is neither 'required' nor 'preferred'; "
                    + "data locality is preferred");
        }
        return new OptIn(List.copyOf(datasets), "required".equals(sched),
                mountPath(annotations.get(MOUNT_ANNOTATION), warnings), List.copyOf(warnings));
    }

    /**
     * The same opt-in with each name as Granary knows it: a pod's name may be its namespace's Dataset resource's
     * ({@code imagenet} for {@code ml-imagenet}).
     */
    public OptIn named(UnaryOperator<String> granaryName) {
        return new OptIn(datasets.stream().map(granaryName).distinct().toList(), required, mountPath, warnings);
    }

    private static void addDataset(Set<String> datasets, List<String> warnings, String where, String name) {
        if (name == null || name.isEmpty()) {
            return;
        }
        try {
            datasets.add(Check.datasetName(where, name));
        } catch (ValidationException e) {
            warnings.add("granary: " + e.getMessage() + "; ignored");
        }
    }

    /** Absolute, already normal (no '.', '..' or '//'), and not the root: anything else is a typo to report. */
    private static Optional<String> mountPath(String path, List<String> warnings) {
        if (path == null) {
            return Optional.empty();
        }
        String trimmed = path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
        if (!trimmed.startsWith("/") || trimmed.equals("/") || !Path.of(trimmed).normalize().toString().equals(trimmed)) {
            warnings.add("granary: annotation " + MOUNT_ANNOTATION + "='" + path + "' is not an absolute, normalised "
                    + "directory other than '/'; no dataset is mounted");
            return Optional.empty();
        }
        return Optional.of(trimmed);
    }
}
