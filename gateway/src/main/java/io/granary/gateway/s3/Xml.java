package io.granary.gateway.s3;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.ZoneOffset;

/** A small writer for S3's response documents: elements in order, text escaped, nothing else. */
final class Xml {

    static final String NAMESPACE = "http://s3.amazonaws.com/doc/2006-03-01/";

    private final StringBuilder out = new StringBuilder(256).append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");

    static Xml document(String root) {
        Xml xml = new Xml();
        xml.out.append('<').append(root).append(" xmlns=\"").append(NAMESPACE).append("\">");
        return xml;
    }

    static Xml bare(String root) {
        Xml xml = new Xml();
        xml.out.append('<').append(root).append('>');
        return xml;
    }

    Xml open(String name) {
        out.append('<').append(name).append('>');
        return this;
    }

    /** An element of an XML Schema type, as S3 types an ACL's Grantee. */
    Xml openTyped(String name, String type) {
        out.append('<').append(name).append(" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:type=\"")
                .append(type).append("\">");
        return this;
    }

    Xml close(String name) {
        out.append("</").append(name).append('>');
        return this;
    }

    Xml text(String value) {
        escape(value);
        return this;
    }

    Xml element(String name, Object value) {
        if (value != null) {
            open(name);
            escape(value.toString());
            close(name);
        }
        return this;
    }

    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    /** S3 timestamps: ISO-8601 in UTC, always with milliseconds. */
    static String timestamp(Instant instant) {
        return TIMESTAMP.format(instant);
    }

    String end(String root) {
        close(root);
        return out.toString();
    }

    private void escape(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                default -> {
                    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
                        out.append("&#").append((int) c).append(';');  // XML 1.0 cannot carry these raw
                    } else {
                        out.append(c);
                    }
                }
            }
        }
    }
}
