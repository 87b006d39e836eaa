package io.granary.gateway.s3;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The DeleteObjects documents: what clients send (as the AWS SDK writes it) and what they get back. */
class MultiDeleteTest {

    private static byte[] xml(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String md5(byte[] body) throws Exception {
        return Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(body));
    }

    @Test
    void readsTheKeysAndQuietModeAsTheSdkSendsThem() throws Exception {
        byte[] body = xml("""
                <?xml version="1.0" encoding="UTF-8"?>
                <Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Object><Key>a/1.jpg</Key></Object>\
                <Object><Key>odd &amp; key.txt</Key><VersionId>null</VersionId></Object><Quiet>true</Quiet></Delete>""");

        MultiDelete.Request request = MultiDelete.parse(body, md5(body));

        assertThat(request.keys()).containsExactly("a/1.jpg", "odd & key.txt");
        assertThat(request.quiet()).isTrue();
        assertThat(MultiDelete.parse(xml("<Delete><Object><Key>k</Key></Object></Delete>"), null).quiet()).isFalse();
    }

    @Test
    void aBodyThatIsNotWhatWasDigestedIsABadDigest() {
        byte[] body = xml("<Delete><Object><Key>k</Key></Object></Delete>");

        assertThatThrownBy(() -> MultiDelete.parse(body, "1B2M2Y8AsgTpgAmY7PhCfg=="))
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.code()).isEqualTo("BadDigest"));
    }

    @Test
    void malformedDocumentsAreMalformedXml() {
        StringBuilder tooMany = new StringBuilder("<Delete>");
        for (int i = 0; i <= MultiDelete.MAX_KEYS; i++) {
            tooMany.append("<Object><Key>k").append(i).append("</Key></Object>");
        }
        for (String document : List.of("<Delete><Object><Key>k</Key>", "<Delete></Delete>",
                "<Delete><Object><VersionId>1</VersionId></Object></Delete>",
                "<CompleteMultipartUpload><Object><Key>k</Key></Object></CompleteMultipartUpload>",
                "<!DOCTYPE d [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><Delete><Object><Key>&x;</Key></Object></Delete>",
                tooMany.append("</Delete>").toString())) {
            assertThatThrownBy(() -> MultiDelete.parse(xml(document), null)).as(document)
                    .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.code()).isEqualTo("MalformedXML"));
        }
    }

    @Test
    void theResultListsWhatWasDeletedUnlessQuietAndEveryFailure() {
        List<MultiDelete.Outcome> outcomes = List.of(new MultiDelete.Outcome("a<b", null),
                new MultiDelete.Outcome("c", S3Exception.accessDenied("Access Denied")));

        String loud = MultiDelete.result(new MultiDelete.Request(false, List.of("a<b", "c")), outcomes);
        String quiet = MultiDelete.result(new MultiDelete.Request(true, List.of("a<b", "c")), outcomes);

        assertThat(loud).contains("<DeleteResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">")
                .contains("<Deleted><Key>a&lt;b</Key></Deleted>")
                .contains("<Error><Key>c</Key><Code>AccessDenied</Code><Message>Access Denied</Message></Error>");
        assertThat(quiet).doesNotContain("<Deleted>").contains("<Error><Key>c</Key>");
    }
}
