package io.granary.gateway.write;

import io.granary.kit.sigv4.AuthFailure;
import io.granary.kit.sigv4.AwsChunkedDecoder;
import io.granary.kit.sigv4.PayloadMode;
import io.granary.kit.sigv4.Principal;
import io.granary.gateway.s3.S3Exception;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.AsyncFile;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpServerRequest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.function.Consumer;

/**
 * Takes an upload's body to a file on the gateway's disk, decoding aws-chunked bodies (their chunk signatures
 * checked on the way) and checking Content-MD5 and a signed x-amz-content-sha256, so a torn or tampered body never
 * reaches the under-store. The file then feeds both the under-store and the cache, from a known size.
 */
final class BodySpool {

    /** S3's limit for one PUT (and for one part). */
    static final long MAX_SIZE = 5L << 30;

    private BodySpool() {
    }

    static Future<Spooled> spool(Vertx vertx, HttpServerRequest http, Principal principal, Path dir) {
        long declared = declaredLength(http, principal);
        if (declared > MAX_SIZE) {
            return Future.failedFuture(new S3Exception(400, "EntityTooLarge",
                    "Your proposed upload exceeds the maximum allowed object size of 5 GiB"));
        }
        Path temp;
        try {
            temp = Files.createTempFile(Files.createDirectories(dir), "body-", ".part");
        } catch (IOException e) {
            return Future.failedFuture(S3Exception.internal("cannot stage the upload: " + e.getMessage()));
        }
        Promise<Spooled> spooled = Promise.promise();
        vertx.fileSystem().open(temp.toString(), new OpenOptions().setWrite(true).setTruncateExisting(true))
                .onFailure(spooled::fail)
                .onSuccess(file -> new Receiver(http, principal, file, temp, declared, spooled).start());
        return spooled.future().onFailure(failure -> deleteQuietly(temp));
    }

    private static long declaredLength(HttpServerRequest http, Principal principal) {
        boolean chunked = switch (principal.payload()) {
            case STREAMING_SIGNED, STREAMING_SIGNED_TRAILER, STREAMING_UNSIGNED_TRAILER -> true;
            default -> false;
        };
        String header = chunked ? http.getHeader("x-amz-decoded-content-length") : http.getHeader("Content-Length");
        if (header == null) {
            throw new S3Exception(411, "MissingContentLength", "You must provide the Content-Length HTTP header.");
        }
        try {
            long length = Long.parseLong(header.strip());
            if (length >= 0) {
                return length;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw S3Exception.invalidArgument("the content length '" + header + "' is not a number of bytes");
    }

    static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a stray temp file in the spool is swept with it
        }
    }

    private static final class Receiver {

        private final HttpServerRequest http;
        private final Principal principal;
        private final AsyncFile file;
        private final Path temp;
        private final long declared;
        private final Promise<Spooled> spooled;
        private final AwsChunkedDecoder decoder;
        private final MessageDigest md5 = digest("MD5");
        private final MessageDigest sha256;
        private long received;

        Receiver(HttpServerRequest http, Principal principal, AsyncFile file, Path temp, long declared,
                 Promise<Spooled> spooled) {
            this.http = http;
            this.principal = principal;
            this.file = file;
            this.temp = temp;
            this.declared = declared;
            this.spooled = spooled;
            this.decoder = switch (principal.payload()) {
                case STREAMING_SIGNED, STREAMING_SIGNED_TRAILER, STREAMING_UNSIGNED_TRAILER -> new AwsChunkedDecoder(principal);
                default -> null;
            };
            this.sha256 = principal.payload() == PayloadMode.SIGNED ? digest("SHA-256") : null;
        }

        void start() {
            Consumer<Buffer> payload = this::payload;
            http.handler(chunk -> {
                if (spooled.future().isComplete()) {
                    return;  // refused already: the rest is dropped with the connection
                }
                try {
                    if (decoder != null) {
                        decoder.feed(chunk, payload);
                    } else {
                        payload(chunk);
                    }
                } catch (RuntimeException e) {
                    abort(e);
                }
            });
            http.exceptionHandler(this::abort);
            http.endHandler(end -> finish());
            http.resume();
        }

        private void payload(Buffer bytes) {
            received += bytes.length();
            if (received > declared) {
                throw new S3Exception(400, "IncompleteBody", "the body is longer than its declared length");
            }
            md5.update(bytes.getBytes());
            if (sha256 != null) {
                sha256.update(bytes.getBytes());
            }
            file.write(bytes);
            if (file.writeQueueFull()) {
                http.pause();
                file.drainHandler(drained -> http.resume());
            }
        }

        private void finish() {
            if (spooled.future().isComplete()) {
                return;
            }
            try {
                if (decoder != null) {
                    decoder.end();
                }
                check();
            } catch (RuntimeException e) {
                abort(e);
                return;
            }
            file.close().onComplete(closed -> {
                if (closed.failed()) {
                    spooled.tryFail(S3Exception.internal("cannot stage the upload: " + closed.cause().getMessage()));
                } else {
                    spooled.tryComplete(new Spooled(temp, received));
                }
            });
        }

        private void check() {
            if (received != declared) {
                throw new S3Exception(400, "IncompleteBody", "You did not provide the number of bytes specified by "
                        + "the Content-Length HTTP header (" + received + " of " + declared + ")");
            }
            String contentMd5 = http.getHeader("Content-MD5");
            if (contentMd5 != null && !Base64.getEncoder().encodeToString(md5.digest()).equals(contentMd5.strip())) {
                throw new S3Exception(400, "BadDigest", "The Content-MD5 you specified did not match what we received.");
            }
            if (sha256 != null && !HexFormat.of().formatHex(sha256.digest()).equalsIgnoreCase(principal.payloadSha256())) {
                throw new S3Exception(400, "XAmzContentSHA256Mismatch",
                        "The provided 'x-amz-content-sha256' header does not match what was computed.");
            }
        }

        private void abort(Throwable failure) {
            if (spooled.future().isComplete()) {
                return;
            }
            file.close();
            spooled.tryFail(failure instanceof AuthFailure auth
                    ? new S3Exception(auth.status(), auth.code(), auth.getMessage()) : failure);
        }

        private static MessageDigest digest(String algorithm) {
            try {
                return MessageDigest.getInstance(algorithm);
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every JVM has " + algorithm, e);
            }
        }
    }
}
