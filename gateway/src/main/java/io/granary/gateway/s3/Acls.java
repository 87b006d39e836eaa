package io.granary.gateway.s3;

import io.granary.contracts.bucket.Acl;
import io.granary.contracts.bucket.BucketSettings;
import io.granary.contracts.bucket.Grant;
import io.granary.contracts.dataset.Dataset;
import io.granary.contracts.dataset.FileInfo;
import org.w3c.dom.Element;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * S3 access control lists as documents and headers: a bucket's is kept in its dataset's bucket settings, an
 * object's with the object (as user metadata, {@link #METADATA_KEY}, so it travels with the object in any store).
 * Grantees are identities by name (an ACL's CanonicalUser ID), and the AllUsers and AuthenticatedUsers groups.
 */
final class Acls {

    static final int MAX_POLICY = 64 * 1024;
    /** Where an object's ACL is kept; never taken from a client's headers, never returned as metadata. */
    static final String METADATA_KEY = "x-amz-meta-granary-acl";
    /** The owner of what was made before buckets had owners: the under-store's. */
    static final String NO_OWNER = "granary";

    private static final String GROUPS = "http://acs.amazonaws.com/groups/global/";
    /** The grant headers, in the order their grants are listed. */
    private static final List<Map.Entry<String, Grant.Permission>> GRANT_HEADERS = List.of(
            Map.entry("x-amz-grant-read", Grant.Permission.READ),
            Map.entry("x-amz-grant-write", Grant.Permission.WRITE),
            Map.entry("x-amz-grant-read-acp", Grant.Permission.READ_ACP),
            Map.entry("x-amz-grant-write-acp", Grant.Permission.WRITE_ACP),
            Map.entry("x-amz-grant-full-control", Grant.Permission.FULL_CONTROL));
    /**
     * One grantee of a grant header: {@code id="name"}, {@code uri="..."} or {@code emailAddress="..."} (the quotes
     * AWS asks for, or none, as RGW takes it).
     */
    private static final Pattern GRANTEE = Pattern.compile(
            "\\s*(id|uri|emailAddress)\\s*=\\s*(?:\"([^\"]*)\"|([^\",\\s]+))\\s*(,|$)", Pattern.CASE_INSENSITIVE);

    private Acls() {
    }

    /** The bucket's ACL: as set, or private to its owner. */
    static Acl ofBucket(Dataset dataset) {
        BucketSettings settings = dataset.spec().bucket();
        return settings != null && settings.acl() != null ? settings.acl() : Acl.privateTo(NO_OWNER);
    }

    static String bucketOwner(Dataset dataset) {
        return ofBucket(dataset).owner();
    }

    /** The object's ACL: as kept with it, or private to the bucket's owner (a file Granary did not write). */
    static Acl ofObject(FileInfo file, Dataset dataset) {
        String kept = file.metadata().get(METADATA_KEY);
        return kept == null ? Acl.privateTo(bucketOwner(dataset)) : decode(kept, bucketOwner(dataset));
    }

    /** The AccessControlPolicy document of an ACL. */
    static String policy(Acl acl) {
        Xml xml = Xml.document("AccessControlPolicy").open("Owner").element("ID", acl.owner())
                .element("DisplayName", acl.owner()).close("Owner").open("AccessControlList");
        for (Grant grant : acl.grants()) {
            xml.open("Grant");
            if (grant.user() != null) {
                xml.openTyped("Grantee", "CanonicalUser").element("ID", grant.user())
                        .element("DisplayName", grant.user());
            } else {
                xml.openTyped("Grantee", "Group").element("URI", GROUPS + grant.group());
            }
            xml.close("Grantee").element("Permission", grant.permission().name()).close("Grant");
        }
        return xml.close("AccessControlList").end("AccessControlPolicy");
    }

    /**
     * The ACL a write or a CreateBucket asks for with its headers ({@code x-amz-acl} or {@code x-amz-grant-*}),
     * empty when it asks for none.
     *
     * @param owner       who will own the bucket or object
     * @param bucketOwner the bucket's owner (the canned bucket-owner-* ACLs name it)
     * @param known       whether an identity of that name exists
     */
    static Optional<Acl> fromHeaders(S3Request request, String owner, String bucketOwner, Predicate<String> known) {
        String canned = request.header("x-amz-acl");
        List<Grant> grants = new ArrayList<>();
        for (Map.Entry<String, Grant.Permission> header : GRANT_HEADERS) {
            String value = request.header(header.getKey());
            if (value != null) {
                grantees(value, header.getValue(), known, grants);
            }
        }
        if (canned != null && !grants.isEmpty()) {
            throw new S3Exception(400, "InvalidRequest", "Specifying both Canned ACLs and Header Grants is not allowed");
        }
        if (canned != null) {
            return Optional.of(canned(canned, owner, bucketOwner));
        }
        return grants.isEmpty() ? Optional.empty() : Optional.of(new Acl(owner, grants));
    }

    /** A PutBucketAcl or PutObjectAcl: its headers, else the AccessControlPolicy in its body. */
    static Acl requested(S3Request request, byte[] body, String owner, String bucketOwner, Predicate<String> known) {
        Optional<Acl> fromHeaders = fromHeaders(request, owner, bucketOwner, known);
        if (fromHeaders.isPresent()) {
            return fromHeaders.get();
        }
        if (body.length == 0) {
            throw S3Exception.malformedXml("an AccessControlPolicy, an x-amz-acl or an x-amz-grant-* header is required");
        }
        Element root = XmlBodies.root(body, "AccessControlPolicy");
        List<Grant> grants = new ArrayList<>();
        for (Element grant : XmlBodies.elements(root, "Grant")) {
            Grant.Permission permission = permission(XmlBodies.text(grant, "Permission"));
            List<Element> grantees = XmlBodies.elements(grant, "Grantee");
            if (grantees.size() != 1) {
                throw S3Exception.malformedXml("each Grant names one Grantee");
            }
            Element grantee = grantees.get(0);
            String id = XmlBodies.text(grantee, "ID");
            String uri = XmlBodies.text(grantee, "URI");
            String email = XmlBodies.text(grantee, "EmailAddress");
            grants.add(grantee(id != null ? "id" : uri != null ? "uri" : email != null ? "emailAddress" : "",
                    id != null ? id : uri != null ? uri : email, permission, known));
        }
        return new Acl(owner, grants);
    }

    private static Grant.Permission permission(String text) {
        try {
            return Grant.Permission.valueOf(text == null ? "" : text.strip());
        } catch (IllegalArgumentException e) {
            throw S3Exception.malformedXml("'" + text + "' is not READ, WRITE, READ_ACP, WRITE_ACP or FULL_CONTROL");
        }
    }

    private static void grantees(String header, Grant.Permission permission, Predicate<String> known,
                                 List<Grant> grants) {
        Matcher matcher = GRANTEE.matcher(header);
        int at = 0;
        while (at < header.length()) {
            if (!matcher.find(at) || matcher.start() != at) {
                throw S3Exception.invalidArgument("'" + header + "' is not a list of id=\"...\", uri=\"...\" or "
                        + "emailAddress=\"...\" grantees");
            }
            grants.add(grantee(matcher.group(1), matcher.group(2) != null ? matcher.group(2) : matcher.group(3),
                    permission, known));
            at = matcher.end();
        }
    }

    private static Grant grantee(String type, String value, Grant.Permission permission, Predicate<String> known) {
        switch (type.toLowerCase(Locale.ROOT)) {
            case "id" -> {
                if (!known.test(value)) {
                    throw S3Exception.invalidArgument("Invalid id: no identity is named '" + value + "'");
                }
                return Grant.toUser(value, permission);
            }
            case "uri" -> {
                String group = value.startsWith(GROUPS) ? value.substring(GROUPS.length()) : value;
                if (!group.equals(Grant.ALL_USERS) && !group.equals(Grant.AUTHENTICATED_USERS)) {
                    throw S3Exception.invalidArgument("Invalid group uri: '" + value + "' (Granary knows AllUsers and "
                            + "AuthenticatedUsers)");
                }
                return Grant.toGroup(group, permission);
            }
            case "emailaddress" -> throw new S3Exception(400, "UnresolvableGrantByEmailAddress", "The e-mail address "
                    + "you provided does not match any account on record: Granary's identities have no e-mail "
                    + "address; grant by id");
            default -> throw S3Exception.malformedXml("a Grantee names an ID, a URI or an EmailAddress");
        }
    }

    /** S3's canned ACLs, but those for log delivery and EC2 bundles; group grants first, as RGW lists them. */
    static Acl canned(String canned, String owner, String bucketOwner) {
        List<Grant> grants = new ArrayList<>();
        Grant ownerGrant = Grant.toUser(owner, Grant.Permission.FULL_CONTROL);
        switch (canned) {
            case "private" -> grants.add(ownerGrant);
            case "public-read" -> {
                grants.add(Grant.toGroup(Grant.ALL_USERS, Grant.Permission.READ));
                grants.add(ownerGrant);
            }
            case "public-read-write" -> {
                grants.add(Grant.toGroup(Grant.ALL_USERS, Grant.Permission.READ));
                grants.add(Grant.toGroup(Grant.ALL_USERS, Grant.Permission.WRITE));
                grants.add(ownerGrant);
            }
            case "authenticated-read" -> {
                grants.add(Grant.toGroup(Grant.AUTHENTICATED_USERS, Grant.Permission.READ));
                grants.add(ownerGrant);
            }
            case "bucket-owner-read" -> {
                grants.add(ownerGrant);
                if (!bucketOwner.equals(owner)) {
                    grants.add(Grant.toUser(bucketOwner, Grant.Permission.READ));
                }
            }
            case "bucket-owner-full-control" -> {
                grants.add(ownerGrant);
                if (!bucketOwner.equals(owner)) {
                    grants.add(Grant.toUser(bucketOwner, Grant.Permission.FULL_CONTROL));
                }
            }
            case "log-delivery-write", "aws-exec-read" ->
                    throw S3Exception.notImplemented("the canned ACL '" + canned + "'");
            default -> throw S3Exception.invalidArgument("'" + canned + "' is not a canned ACL");
        }
        return new Acl(owner, grants);
    }

    /** The ACL as one metadata value: the owner, then {@code PERMISSION:u:name} or {@code PERMISSION:g:group}. */
    static String encode(Acl acl) {
        StringBuilder text = new StringBuilder(encodeName(acl.owner()));
        for (Grant grant : acl.grants()) {
            text.append(' ').append(grant.permission().name()).append(':')
                    .append(grant.user() != null ? "u:" + encodeName(grant.user()) : "g:" + grant.group());
        }
        return text.toString();
    }

    /** What {@link #encode} wrote; a value it cannot read is the bucket owner's private ACL (nothing granted). */
    static Acl decode(String text, String bucketOwner) {
        String[] parts = text.strip().split(" ");
        try {
            List<Grant> grants = new ArrayList<>();
            for (int i = 1; i < parts.length; i++) {
                String[] grant = parts[i].split(":", 3);
                Grant.Permission permission = Grant.Permission.valueOf(grant[0]);
                grants.add(grant[1].equals("u") ? Grant.toUser(decodeName(grant[2]), permission)
                        : Grant.toGroup(grant[2], permission).validate("acl"));
            }
            return new Acl(decodeName(parts[0]), grants);
        } catch (RuntimeException e) {
            return Acl.privateTo(bucketOwner);
        }
    }

    /**
     * The metadata a write keeps: the client's (without any ACL of its own making) and the ACL, unless that is
     * the default one (private to the bucket's owner), which is kept as nothing.
     */
    static Map<String, String> withAcl(Map<String, String> metadata, Acl acl, String bucketOwner) {
        Map<String, String> kept = new HashMap<>(metadata);
        kept.remove(METADATA_KEY);
        if (!acl.equals(Acl.privateTo(bucketOwner))) {
            kept.put(METADATA_KEY, encode(acl));
        }
        return kept;
    }

    private static String encodeName(String name) {
        return URLEncoder.encode(name, StandardCharsets.UTF_8);
    }

    private static String decodeName(String name) {
        return URLDecoder.decode(name, StandardCharsets.UTF_8);
    }
}
