package io.granary.ufs;

import java.nio.file.Path;

/**
 * Who an {@code hdfs://} mount acts as, from the secret its credentialsRef names: a user name (simple
 * authentication, key {@code user}) or a Kerberos keytab file (key {@code keytab}; the principal is the mount's
 * option {@code principal}). Exactly one of the two.
 */
public record HdfsLogin(String user, Path keytab) {

    public HdfsLogin {
        if ((user == null || user.isBlank()) == (keytab == null)) {
            throw new IllegalArgumentException("an HDFS login is a user name or a keytab, one of the two");
        }
    }

    public static HdfsLogin user(String user) {
        return new HdfsLogin(user, null);
    }

    public static HdfsLogin keytab(Path keytab) {
        return new HdfsLogin(null, keytab);
    }
}
