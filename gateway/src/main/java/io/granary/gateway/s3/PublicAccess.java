package io.granary.gateway.s3;

import io.granary.contracts.bucket.PublicAccessBlock;
import org.w3c.dom.Element;

/** The PublicAccessBlockConfiguration document of Put/GetPublicAccessBlock. */
final class PublicAccess {

    static final int MAX_CONFIGURATION = 16 * 1024;

    private PublicAccess() {
    }

    static PublicAccessBlock parse(byte[] body) {
        Element root = XmlBodies.root(body, "PublicAccessBlockConfiguration");
        return new PublicAccessBlock(flag(root, "BlockPublicAcls"), flag(root, "IgnorePublicAcls"),
                flag(root, "BlockPublicPolicy"), flag(root, "RestrictPublicBuckets"));
    }

    private static boolean flag(Element root, String name) {
        String text = XmlBodies.text(root, name);
        if (text == null || text.strip().equalsIgnoreCase("false")) {
            return false;
        }
        if (text.strip().equalsIgnoreCase("true")) {
            return true;
        }
        throw S3Exception.malformedXml(name + " is true or false, not '" + text + "'");
    }

    static String document(PublicAccessBlock block) {
        return Xml.document("PublicAccessBlockConfiguration")
                .element("BlockPublicAcls", block.blockPublicAcls())
                .element("IgnorePublicAcls", block.ignorePublicAcls())
                .element("BlockPublicPolicy", block.blockPublicPolicy())
                .element("RestrictPublicBuckets", block.restrictPublicBuckets())
                .end("PublicAccessBlockConfiguration");
    }
}
