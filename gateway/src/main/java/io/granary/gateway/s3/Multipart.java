package io.granary.gateway.s3;

import io.granary.gateway.write.UploadedObject;
import io.granary.ufs.UploadedPart;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerRequest;
import org.w3c.dom.Element;

import java.util.ArrayList;
import java.util.List;

/** The XML of multipart uploads: the part list a client completes with, and the answers. */
final class Multipart {

    /** S3 caps the CompleteMultipartUpload document well below this; it is read whole. */
    private static final int MAX_BODY = 4 << 20;

    private Multipart() {
    }

    static String initiated(String bucket, String key, String uploadId) {
        return Xml.document("InitiateMultipartUploadResult").element("Bucket", bucket).element("Key", key)
                .element("UploadId", uploadId).end("InitiateMultipartUploadResult");
    }

    static String completed(S3Request request, UploadedObject object) {
        return Xml.document("CompleteMultipartUploadResult")
                .element("Location", request.http().scheme() + "://" + request.http().authority() + request.resource())
                .element("Bucket", request.bucket()).element("Key", request.key())
                .element("ETag", S3Responses.etag(object.etag())).end("CompleteMultipartUploadResult");
    }

    static Future<List<UploadedPart>> readParts(HttpServerRequest http) {
        return XmlBodies.read(http, MAX_BODY, "the part list").map(Multipart::parse);
    }

    static List<UploadedPart> parse(byte[] body) {
        Element root = XmlBodies.root(body, "CompleteMultipartUpload");
        List<UploadedPart> parts = new ArrayList<>();
        for (Element part : XmlBodies.elements(root, "Part")) {
            String number = XmlBodies.text(part, "PartNumber");
            String etag = XmlBodies.text(part, "ETag");
            if (number == null || etag == null || !number.strip().matches("\\d{1,5}")) {
                throw S3Exception.malformedXml("every Part needs a PartNumber (1-10000) and an ETag");
            }
            parts.add(new UploadedPart(Integer.parseInt(number.strip()), unquote(etag.strip())));
        }
        if (parts.isEmpty()) {
            throw S3Exception.malformedXml("no parts were given");
        }
        return parts;
    }

    private static String unquote(String etag) {
        return etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"") ? etag.substring(1, etag.length() - 1) : etag;
    }
}
