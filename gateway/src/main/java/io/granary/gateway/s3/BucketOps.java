package io.granary.gateway.s3;

import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.DatasetPaths;
import io.granary.contracts.dataset.FileInfo;
import io.granary.contracts.dataset.FileListing;
import io.granary.contracts.validation.ValidationException;
import io.granary.gateway.client.NearCache;
import io.granary.kit.client.MetadataClient;
import io.granary.kit.security.Caller;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.rest.client.inject.RestClient;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;

/**
 * The service and bucket operations: ListBuckets, GetBucketLocation, and ListObjects (V1 and V2), served from the
 * metadata-service's cache of the under-store listing; the files listed are kept in the near cache for the reads
 * that follow. Blocking: call off the event loop.
 */
@ApplicationScoped
public class BucketOps {

    private static final int MAX_KEYS = 1000;

    private final MetadataClient metadata;
    private final NearCache near;

    BucketOps(@RestClient MetadataClient metadata, NearCache near) {
        this.metadata = metadata;
        this.near = near;
    }

    /**
     * The datasets the caller may touch or owns, as buckets, in name order: all of them, or pages of {@code max-buckets}
     * (1 to 10000) after the {@code continuation-token} (the last name sent, base64'd), of those starting with
     * {@code prefix}.
     */
    String listBuckets(Caller caller, S3Request request) {
        String prefix = request.param("prefix");
        int max = maxBuckets(request.param("max-buckets"));
        String token = request.param("continuation-token");
        String after = token == null ? null : decodeToken(token);
        List<Dataset> buckets = metadata.datasets().stream()
                .filter(dataset -> Permissions.byRole(caller, dataset.name(), S3Operation.LIST_OBJECTS)
                        || Permissions.ownsBucket(caller, dataset))
                .filter(dataset -> prefix == null || dataset.name().startsWith(prefix))
                .filter(dataset -> after == null || dataset.name().compareTo(after) > 0)
                .sorted(Comparator.comparing(Dataset::name))
                .toList();
        Xml xml = owner(Xml.document("ListAllMyBucketsResult"), caller.name()).open("Buckets");
        for (Dataset dataset : buckets.subList(0, Math.min(max, buckets.size()))) {
            Instant created = dataset.status() == null || dataset.status().createdAt() == null ? Instant.EPOCH
                    : dataset.status().createdAt();
            xml.open("Bucket").element("Name", dataset.name()).element("CreationDate", Xml.timestamp(created))
                    .close("Bucket");
        }
        xml.close("Buckets").element("Prefix", prefix)
                .element("ContinuationToken", buckets.size() > max ? encodeToken(buckets.get(max - 1).name()) : null);
        return xml.end("ListAllMyBucketsResult");
    }

    private static int maxBuckets(String text) {
        if (text == null) {
            return Integer.MAX_VALUE;
        }
        try {
            int max = Integer.parseInt(text);
            if (max >= 1 && max <= 10_000) {
                return max;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw S3Exception.invalidArgument("max-buckets must be an integer from 1 to 10000, not '" + text + "'");
    }

    String location(String region) {
        // us-east-1 is an empty LocationConstraint in S3's own answer.
        return Xml.document("LocationConstraint").text("us-east-1".equals(region) ? "" : region)
                .end("LocationConstraint");
    }

    /** ListObjectsV2: continuation tokens are the metadata cursor (the last key or prefix sent), base64'd. */
    String listV2(S3Request request, Dataset dataset) {
        String bucket = dataset.name();
        Listing ask = Listing.of(request);
        String token = request.param("continuation-token");
        String startAfter = request.param("start-after");
        String cursor = token != null ? decodeToken(token) : startAfter;
        Page page = page(bucket, ask, cursor);
        Xml xml = Xml.document("ListBucketResult")
                .element("Name", bucket)
                .element("Prefix", ask.encode(ask.prefix == null ? "" : ask.prefix))
                .element("Delimiter", ask.delimiter == null ? null : ask.encode(ask.delimiter))
                .element("MaxKeys", ask.maxKeys)
                .element("KeyCount", page.listing.files().size() + page.listing.prefixes().size())
                .element("IsTruncated", page.truncated())
                .element("EncodingType", ask.encodingType)
                .element("ContinuationToken", token)
                .element("NextContinuationToken", page.truncated() ? encodeToken(page.listing.nextCursor()) : null)
                .element("StartAfter", startAfter == null ? null : ask.encode(startAfter));
        entries(xml, "Contents", ask, page.listing, "true".equals(request.param("fetch-owner")) ? dataset : null);
        return xml.end("ListBucketResult");
    }

    /** ListObjects (V1), which s3fs and older tools use: the marker is the same cursor, in the clear. */
    String listV1(S3Request request, Dataset dataset) {
        String bucket = dataset.name();
        Listing ask = Listing.of(request);
        String marker = request.param("marker");
        Page page = page(bucket, ask, marker);
        Xml xml = Xml.document("ListBucketResult")
                .element("Name", bucket)
                // V1's Prefix goes back as sent, even with encoding-type=url: S3 and the SDKs decode only the others.
                .element("Prefix", ask.prefix == null ? "" : ask.prefix)
                .element("Marker", ask.encode(marker == null ? "" : marker))
                .element("Delimiter", ask.delimiter == null ? null : ask.encode(ask.delimiter))
                .element("MaxKeys", ask.maxKeys)
                .element("IsTruncated", page.truncated())
                .element("EncodingType", ask.encodingType)
                // S3 gives NextMarker only with a delimiter; without one clients use the last key, which is the same.
                .element("NextMarker", page.truncated() && ask.delimiter != null
                        ? ask.encode(page.listing.nextCursor()) : null);
        entries(xml, "Contents", ask, page.listing, dataset);  // V1 always names an object's owner
        return xml.end("ListBucketResult");
    }

    /**
     * ListObjectVersions, as S3 answers it for a bucket that never had versioning: each object once, as its
     * latest version, whose id is "null" (what cleanup code of the suites and SDK examples lists before it
     * deletes a bucket).
     */
    String listVersions(S3Request request, Dataset dataset) {
        String bucket = dataset.name();
        Listing ask = Listing.of(request);
        String marker = request.param("key-marker");
        Page page = page(bucket, ask, marker);
        Xml xml = Xml.document("ListVersionsResult")
                .element("Name", bucket)
                .element("Prefix", ask.encode(ask.prefix == null ? "" : ask.prefix))
                .element("KeyMarker", ask.encode(marker == null ? "" : marker))
                .element("VersionIdMarker", request.param("version-id-marker") == null ? "" : "null")
                .element("NextKeyMarker", page.truncated() ? ask.encode(page.listing.nextCursor()) : null)
                .element("NextVersionIdMarker", page.truncated() ? "null" : null)
                .element("Delimiter", ask.delimiter == null ? null : ask.encode(ask.delimiter))
                .element("MaxKeys", ask.maxKeys)
                .element("IsTruncated", page.truncated())
                .element("EncodingType", ask.encodingType);
        entries(xml, "Version", ask, page.listing, dataset);
        return xml.end("ListVersionsResult");
    }

    private Page page(String bucket, Listing ask, String cursor) {
        if (ask.maxKeys == 0 || !ask.canMatch()) {
            return new Page(new FileListing(List.of(), List.of(), null));
        }
        return new Page(near.list(bucket, ask.prefix, ask.delimiter, cursor, ask.maxKeys));
    }

    static Xml owner(Xml xml, String owner) {
        return xml.open("Owner").element("ID", owner).element("DisplayName", owner).close("Owner");
    }

    /**
     * A listing's objects as {@code element}s ("Version" adds the one version each has), then its prefixes; each
     * object's owner when {@code owners} is the bucket's dataset.
     */
    private static void entries(Xml xml, String element, Listing ask, FileListing listing, Dataset owners) {
        boolean versions = element.equals("Version");
        for (FileInfo file : listing.files()) {
            xml.open(element).element("Key", ask.encode(file.path()));
            if (versions) {
                xml.element("VersionId", "null").element("IsLatest", true);
            }
            xml.element("LastModified", Xml.timestamp(file.mtime()))
                    .element("ETag", S3Responses.etag(file.etag()))
                    .element("Size", file.size())
                    .element("StorageClass", "STANDARD");
            if (owners != null) {
                owner(xml, Acls.ofObject(file, owners).owner());
            }
            xml.close(element);
        }
        for (String prefix : listing.prefixes()) {
            xml.open("CommonPrefixes").element("Prefix", ask.encode(prefix)).close("CommonPrefixes");
        }
    }

    private record Page(FileListing listing) {
        boolean truncated() {
            return listing.nextCursor() != null;
        }
    }

    /** The listing parameters both versions share, checked. */
    private record Listing(String prefix, String delimiter, int maxKeys, String encodingType) {

        static Listing of(S3Request request) {
            String maxKeys = request.param("max-keys");
            int max = MAX_KEYS;
            if (maxKeys != null) {
                try {
                    max = Math.min(MAX_KEYS, Integer.parseInt(maxKeys));
                } catch (NumberFormatException e) {
                    max = -1;
                }
                if (max < 0) {
                    throw S3Exception.invalidArgument("max-keys must be an integer from 0 to 2147483647, not '"
                            + maxKeys + "'");
                }
            }
            String encodingType = request.param("encoding-type");
            if (encodingType != null && !encodingType.equals("url")) {
                throw S3Exception.invalidArgument("encoding-type must be 'url', not '" + encodingType + "'");
            }
            String prefix = request.param("prefix");
            String delimiter = request.param("delimiter");
            return new Listing(prefix == null || prefix.isEmpty() ? null : prefix,
                    delimiter == null || delimiter.isEmpty() ? null : delimiter, max, encodingType);
        }

        /**
         * Whether any key can start with the prefix. Keys are normalised dataset paths: none starts with '/' or
         * holds '//', a '.' or '..' segment or a control character, so such a prefix lists nothing (rather than
         * what it would normalise to). A prefix ending in a partial '.' segment is taken as one too: "a/." misses
         * "a/.hidden".
         */
        boolean canMatch() {
            if (prefix == null) {
                return true;
            }
            try {
                return DatasetPaths.normalize("prefix", prefix).equals(prefix);
            } catch (ValidationException e) {
                return false;
            }
        }

        /** With encoding-type=url, names go out percent-encoded (as S3 does, '/' kept) for XML-unsafe keys. */
        String encode(String value) {
            if (encodingType == null || value == null) {
                return value;
            }
            return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20").replace("%2F", "/");
        }
    }

    private static String encodeToken(String cursor) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(cursor.getBytes(StandardCharsets.UTF_8));
    }

    private static String decodeToken(String token) {
        try {
            return new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw S3Exception.invalidArgument("The continuation token provided is incorrect");
        }
    }
}
