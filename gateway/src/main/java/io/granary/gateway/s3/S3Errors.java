package io.granary.gateway.s3;

import io.granary.ufs.AccessDeniedException;
import io.granary.ufs.InvalidPartException;
import io.granary.ufs.ObjectChangedException;
import io.granary.ufs.ObjectNotFoundException;
import io.granary.ufs.PathOutsideMountException;
import io.granary.ufs.UnderStoreException;
import io.granary.ufs.UnderStoreUnavailableException;
import io.granary.ufs.UploadNotFoundException;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import org.jboss.logging.Logger;

/** Whatever went wrong on the S3 path, as the S3 error a client can act on; only the unexpected is a 500, logged. */
final class S3Errors {

    private static final Logger LOG = Logger.getLogger(S3Errors.class);

    private S3Errors() {
    }

    /** Answers the request with the S3 error its failure is. */
    static void fail(S3Request request, Throwable failure, String requestId) {
        HttpServerRequest http = request.http();
        if (http.response().closed()) {  // the client went away: no one to answer, and nothing went wrong here
            LOG.debugf("S3 request %s ended by its client: %s", requestId, failure.getMessage());
            return;
        }
        if (http.method() != HttpMethod.PUT && http.method() != HttpMethod.POST && !http.isEnded()) {
            http.resume();  // no body to speak of: the connection goes on (uploads are answered with close)
        }
        S3Responses.error(request, http.response(), translate(failure), requestId);
    }

    static S3Exception translate(Throwable failure) {
        if (failure instanceof S3Exception s3) {
            return s3;
        } else if (failure instanceof ObjectNotFoundException missing) {
            return S3Exception.noSuchKey(missing.getMessage());
        } else if (failure instanceof UploadNotFoundException) {
            return new S3Exception(404, "NoSuchUpload", "The specified upload does not exist. The upload ID may be "
                    + "invalid, or the upload may have been aborted or completed.");
        } else if (failure instanceof InvalidPartException invalid) {
            return new S3Exception(400, invalid.reason().s3Code(), invalid.getMessage());
        } else if (failure instanceof PathOutsideMountException outside) {
            return S3Exception.invalidArgument(outside.getMessage());
        } else if (failure instanceof IllegalArgumentException invalid) {
            return S3Exception.invalidArgument(invalid.getMessage());
        } else if (failure instanceof ObjectChangedException changed) {
            return S3Exception.slowDown("the object changed in the under-store while being read; retry: "
                    + changed.getMessage());
        } else if (failure instanceof UnderStoreUnavailableException || failure instanceof ProcessingException) {
            return new S3Exception(503, "ServiceUnavailable", "a backing service is unavailable: " + failure.getMessage());
        } else if (failure instanceof AccessDeniedException denied) {
            return S3Exception.accessDenied("the under-store refused: " + denied.getMessage());
        } else if (failure instanceof UnderStoreException store) {
            return new S3Exception(503, "ServiceUnavailable", "the under-store failed: " + store.getMessage());
        } else if (failure instanceof WebApplicationException web && web.getResponse().getStatus() >= 500) {
            return new S3Exception(503, "ServiceUnavailable", "the metadata-service failed: " + web.getMessage());
        }
        LOG.errorf(failure, "S3 request failed");
        return S3Exception.internal("We encountered an internal error. Please try again.");
    }
}
