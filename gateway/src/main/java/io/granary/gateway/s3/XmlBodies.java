package io.granary.gateway.s3;

import io.vertx.core.Future;
import io.vertx.core.http.HttpServerRequest;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** The XML documents clients send (a multipart upload's part list, a multi-object delete), parsed safely: no DTDs, no entities. */
final class XmlBodies {

    private XmlBodies() {
    }

    /** The whole body, at most {@code maxBytes} ({@code what} names it in the MalformedXML when it is longer). */
    static Future<byte[]> read(HttpServerRequest http, int maxBytes, String what) {
        String length = http.getHeader("Content-Length");
        if (length != null && length.matches("\\d{1,12}") && Long.parseLong(length) > maxBytes) {
            return Future.failedFuture(S3Exception.malformedXml(what + " is larger than " + maxBytes + " bytes"));
        }
        http.resume();
        return http.body().map(body -> {
            if (body.length() > maxBytes) {
                throw S3Exception.malformedXml(what + " is larger than " + maxBytes + " bytes");
            }
            return body.getBytes();
        });
    }

    /** The document, or MalformedXML. */
    static Document parse(byte[] body) {
        try {
            return parser().parse(new ByteArrayInputStream(body));
        } catch (SAXException | IOException e) {
            throw S3Exception.malformedXml(e.getMessage());
        }
    }

    /** The document's root element, which must be {@code name} (MalformedXML otherwise, or for no document). */
    static Element root(byte[] body, String name) {
        Element root = parse(body).getDocumentElement();
        if (!name.equals(root.getLocalName())) {
            throw S3Exception.malformedXml("the root element must be " + name);
        }
        return root;
    }

    /** Every {@code name} element under {@code parent}, in any namespace, in document order. */
    static List<Element> elements(Element parent, String name) {
        NodeList nodes = parent.getElementsByTagNameNS("*", name);
        List<Element> elements = new ArrayList<>(nodes.getLength());
        for (int i = 0; i < nodes.getLength(); i++) {
            elements.add((Element) nodes.item(i));
        }
        return elements;
    }

    /** The text of the first {@code name} element under {@code parent}, in any namespace; null when there is none. */
    static String text(Element parent, String name) {
        NodeList nodes = parent.getElementsByTagNameNS("*", name);
        return nodes.getLength() == 0 ? null : nodes.item(0).getTextContent();
    }

    private static DocumentBuilder parser() {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setXIncludeAware(false);
            factory.setExpandEntityReferences(false);
            DocumentBuilder builder = factory.newDocumentBuilder();
            builder.setErrorHandler(null);  // errors are thrown, not printed
            return builder;
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK's XML parser lacks a standard feature", e);
        }
    }
}
