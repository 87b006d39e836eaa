package io.granary.kit.sigv4;

import java.util.List;
import java.util.SortedMap;

/**
 * The parts of the canonical request and string to sign, taken from what arrived.
 *
 * @param path        the canonical URI
 * @param query       decoded parameters, without a presigned URL's X-Amz-Signature
 * @param headers     exactly the signed headers (sorted lower-case names), with their values as received
 * @param payloadHash x-amz-content-sha256 as the client sent it
 * @param timestamp   yyyyMMdd'T'HHmmss'Z'
 * @param scope       date/region/s3/aws4_request
 */
record SigningInput(String method, String path, List<UriEncoding.Param> query, SortedMap<String, List<String>> headers,
                    String payloadHash, String timestamp, String scope) {
}
