package io.granary.gateway.s3;

import io.vertx.core.Future;
import io.vertx.core.http.HttpServerRequest;
import org.w3c.dom.Element;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * DeleteObjects: the {@code <Delete>} document a client sends (at most 1,000 keys, parsed safely), and the
 * {@code <DeleteResult>} it gets back: every key deleted or failed on its own, the deleted ones left out in quiet
 * mode.
 */
final class MultiDelete {

    /** S3's limit on the keys of one request. */
    static final int MAX_KEYS = 1000;
    /** 1,000 keys of S3's longest (1,024 bytes), with their markup, fit in this. */
    private static final int MAX_BODY = 2 << 20;

    /** What a client asked to delete. */
    record Request(boolean quiet, List<String> keys) {
    }

    /** The outcome for one key: deleted when {@code error} is null. */
    record Outcome(String key, S3Exception error) {
    }

    private MultiDelete() {
    }

    static Future<Request> read(HttpServerRequest http) {
        return XmlBodies.read(http, MAX_BODY, "the Delete document")
                .map(body -> parse(body, http.getHeader("Content-MD5")));
    }

    static Request parse(byte[] body, String contentMd5) {
        if (contentMd5 != null && !contentMd5.equals(Base64.getEncoder().encodeToString(md5(body)))) {
            throw new S3Exception(400, "BadDigest", "The Content-MD5 you specified did not match what we received.");
        }
        Element root = XmlBodies.root(body, "Delete");
        String quiet = XmlBodies.text(root, "Quiet");
        List<String> keys = new ArrayList<>();
        for (Element object : XmlBodies.elements(root, "Object")) {
            String key = XmlBodies.text(object, "Key");
            if (key == null || key.isEmpty()) {
                throw S3Exception.malformedXml("every Object needs a Key");
            }
            keys.add(key);
        }
        if (keys.isEmpty() || keys.size() > MAX_KEYS) {
            throw S3Exception.malformedXml("a Delete names 1 to " + MAX_KEYS + " objects, not " + keys.size());
        }
        return new Request(quiet != null && Boolean.parseBoolean(quiet.strip()), keys);
    }

    static String result(Request request, List<Outcome> outcomes) {
        Xml xml = Xml.document("DeleteResult");
        for (Outcome outcome : outcomes) {
            if (outcome.error() == null) {
                if (!request.quiet()) {
                    xml.open("Deleted").element("Key", outcome.key()).close("Deleted");
                }
            } else {
                xml.open("Error").element("Key", outcome.key()).element("Code", outcome.error().code())
                        .element("Message", outcome.error().getMessage()).close("Error");
            }
        }
        return xml.end("DeleteResult");
    }

    private static byte[] md5(byte[] bytes) {
        try {
            return MessageDigest.getInstance("MD5").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has MD5", e);
        }
    }
}
