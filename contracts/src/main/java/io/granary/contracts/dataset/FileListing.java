package io.granary.contracts.dataset;

import java.util.List;

/**
 * One page of a listing, S3 style: files, the common prefixes rolled up by the delimiter, and where to go on.
 *
 * @param nextCursor pass as {@code cursor} for the next page; null on the last page
 */
public record FileListing(List<FileInfo> files, List<String> prefixes, String nextCursor) {

    public FileListing {
        files = files == null ? List.of() : List.copyOf(files);
        prefixes = prefixes == null ? List.of() : List.copyOf(prefixes);
    }
}
