package io.granary.contracts.dataset;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;
import java.util.Map;

/**
 * One page of a listing, S3 style: files, the common prefixes rolled up by the delimiter, and where to go on.
 *
 * @param nextCursor  pass as {@code cursor} for the next page; null on the last page
 * @param cachedBytes path → bytes of the file some live worker holds, when asked for ({@code cached=true}); null
 *                    otherwise or when no worker answered, and a file left out of it is unknown
 */
public record FileListing(List<FileInfo> files, List<String> prefixes, String nextCursor,
                          @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, Long> cachedBytes) {

    public FileListing {
        files = files == null ? List.of() : List.copyOf(files);
        prefixes = prefixes == null ? List.of() : List.copyOf(prefixes);
        cachedBytes = cachedBytes == null ? null : Map.copyOf(cachedBytes);
    }

    public FileListing(List<FileInfo> files, List<String> prefixes, String nextCursor) {
        this(files, prefixes, nextCursor, null);
    }

    /** The same page, with what of each file is cached. */
    public FileListing withCachedBytes(Map<String, Long> cached) {
        return new FileListing(files, prefixes, nextCursor, cached);
    }
}
