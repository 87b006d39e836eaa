package io.granary.fuse.tree;

import io.granary.contracts.dataset.DatasetPaths;
import io.granary.contracts.validation.ValidationException;

/**
 * How a path under the mount point maps to a dataset and a path in it: {@code /a/b.jpg} is {@code a/b.jpg} of the
 * mounted dataset, or, with every dataset mounted, {@code /imagenet/a/b.jpg} is {@code a/b.jpg} of {@code imagenet}.
 *
 * @param dataset null when the path is the root of a mount of every dataset
 * @param path    a normalised dataset path ({@link DatasetPaths}); empty for a dataset's root
 */
public record MountPaths(String dataset, String path) {

    /**
     * @param single the one dataset mounted, or null when every dataset is
     * @throws ValidationException when the path leaves the mount ({@code ..}) or is not a valid dataset path
     */
    public static MountPaths of(String single, String mountPath) {
        String relative = mountPath.startsWith("/") ? mountPath.substring(1) : mountPath;
        if (single != null) {
            return new MountPaths(single, DatasetPaths.normalize("path", relative));
        }
        if (relative.isEmpty()) {
            return new MountPaths(null, "");
        }
        int slash = relative.indexOf('/');
        String dataset = slash < 0 ? relative : relative.substring(0, slash);
        String rest = slash < 0 ? "" : relative.substring(slash + 1);
        return new MountPaths(dataset, DatasetPaths.normalize("path", rest));
    }

    public boolean mountRoot() {
        return dataset == null;
    }
}
