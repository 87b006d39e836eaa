package io.granary.gateway.s3;

import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * S3 ACLs as Granary has them: access is granted by identities and roles (granary-access), never by ACLs, so every
 * bucket and object has the one ACL S3 calls private: its owner has full control. GetBucketAcl and GetObjectAcl
 * say so; PutBucketAcl and PutObjectAcl accept that ACL (canned {@code private}, or the same grant spelled out) and
 * answer any other with NotImplemented rather than pretend to grant what would not be enforced.
 */
final class Acls {

    static final int MAX_POLICY = 64 * 1024;

    private Acls() {
    }

    /** The AccessControlPolicy of every bucket and object. */
    static String policy() {
        Xml xml = BucketOps.owner(Xml.document("AccessControlPolicy")).open("AccessControlList")
                .open("Grant")
                .openTyped("Grantee", "CanonicalUser")
                .element("ID", BucketOps.OWNER).element("DisplayName", BucketOps.OWNER)
                .close("Grantee")
                .element("Permission", "FULL_CONTROL")
                .close("Grant");
        return xml.close("AccessControlList").end("AccessControlPolicy");
    }

    /** A PutBucketAcl or PutObjectAcl: the canned ACL header, or the policy in the body. */
    static void checkPrivate(S3Request request, byte[] body) {
        String canned = request.header("x-amz-acl");
        if (canned != null) {
            if (!canned.equals("private") && !canned.equals("bucket-owner-full-control")) {
                throw refused("the canned ACL '" + canned + "'");
            }
            return;
        }
        if (request.http().headers().names().stream().anyMatch(name -> name.regionMatches(true, 0, "x-amz-grant-", 0, 12))) {
            throw refused("x-amz-grant-* headers");
        }
        if (body.length == 0) {
            throw S3Exception.malformedXml("an AccessControlPolicy or an x-amz-acl header is required");
        }
        Element root = XmlBodies.parse(body).getDocumentElement();
        if (!"AccessControlPolicy".equals(root.getLocalName())) {
            throw S3Exception.malformedXml("the root element must be AccessControlPolicy");
        }
        NodeList grants = root.getElementsByTagNameNS("*", "Grant");
        for (int i = 0; i < grants.getLength(); i++) {
            Element grant = (Element) grants.item(i);
            if (!BucketOps.OWNER.equals(XmlBodies.text(grant, "ID"))
                    || !"FULL_CONTROL".equals(XmlBodies.text(grant, "Permission"))) {
                throw refused("a grant to anyone but the owner, or of less than FULL_CONTROL,");
            }
        }
    }

    private static S3Exception refused(String what) {
        return S3Exception.notImplemented(what + " (Granary grants access by identities and roles, not ACLs: only "
                + "the private ACL is accepted)");
    }
}
