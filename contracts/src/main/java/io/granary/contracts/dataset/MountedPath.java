package io.granary.contracts.dataset;

import java.util.List;

/**
 * Where a dataset path lives: the mount that holds it and the key inside that mount. A named mount holds the paths
 * under its name ({@code val/x.jpg} is {@code x.jpg} of the mount named {@code val}) and shadows whatever the root
 * mount has under the same directory; every other path belongs to the root mount, if there is one.
 *
 * @param mount the mount holding the path
 * @param key   the path relative to the mount's root
 */
public record MountedPath(Mount mount, String key) {

    /**
     * @param path a normalised dataset path ({@link DatasetPaths#normalize})
     * @return null when no mount holds the path (a dataset with only named mounts, asked for a path outside them)
     */
    public static MountedPath resolve(List<Mount> mounts, String path) {
        int slash = path.indexOf('/');
        Mount root = null;
        for (Mount mount : mounts) {
            String name = mount.name() == null ? "" : mount.name();
            if (name.isEmpty()) {
                root = mount;
            } else if (slash == name.length() && path.startsWith(name)) {
                return new MountedPath(mount, path.substring(slash + 1));
            }
        }
        return root == null ? null : new MountedPath(root, path);
    }
}
