package io.granary.fuse.tree;

import io.granary.contracts.dataset.FileInfo;

/** What a path of the mount is: a file of a dataset, or a directory (a dataset's root, a prefix in it, or the root). */
public sealed interface Node permits Node.File, Node.Directory {

    /** A file of a dataset, as the metadata cache has it. */
    record File(String dataset, FileInfo info) implements Node {
    }

    /**
     * A directory: {@code dataset} null for the mount's root when every dataset is mounted; {@code prefix} the path
     * in the dataset with a trailing slash, empty for its root.
     */
    record Directory(String dataset, String prefix) implements Node {
    }
}
