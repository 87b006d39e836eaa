package io.granary.block.rest;

import io.granary.block.fill.NoSuchBlockException;
import io.granary.contracts.validation.Problem;
import io.granary.contracts.validation.ValidationException;
import io.granary.kit.rest.DatasetNotFoundException;
import io.granary.ufs.ObjectChangedException;
import io.granary.ufs.ObjectNotFoundException;
import io.granary.ufs.PathOutsideMountException;
import io.granary.ufs.UnderStoreException;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;

/**
 * What each failure of a block request means to the caller. A 5xx from a worker tells a gateway to read the range
 * from the under-store itself; 412 tells it its metadata is stale.
 */
final class Problems {

    private Problems() {
    }

    static Problem of(Throwable failure) {
        if (failure instanceof ValidationException e) {
            return Problem.of(400, "Bad Request", e.getMessage(), e.field());
        } else if (failure instanceof DatasetNotFoundException) {
            return Problem.of(404, "Not Found", failure.getMessage(), "dataset");
        } else if (failure instanceof ObjectNotFoundException) {
            return Problem.of(404, "Not Found", failure.getMessage(), "path");
        } else if (failure instanceof NoSuchBlockException) {
            return Problem.of(404, "Not Found", failure.getMessage(), "index");
        } else if (failure instanceof PathOutsideMountException) {
            return Problem.of(400, "Bad Request", failure.getMessage(), "path");
        } else if (failure instanceof ObjectChangedException) {
            return Problem.of(412, "Precondition Failed", failure.getMessage(), "etag");
        } else if (failure instanceof UnderStoreException) {
            return Problem.of(502, "Bad Gateway", failure.getMessage(), null);
        } else if (failure instanceof WebApplicationException e) {
            return Problem.of(503, "Service Unavailable",
                    "the metadata-service answered " + e.getResponse().getStatus(), null);
        } else if (failure instanceof ProcessingException) {
            return Problem.of(503, "Service Unavailable",
                    "the metadata-service cannot be reached: " + failure.getMessage(), null);
        }
        return Problem.of(500, "Internal Server Error", String.valueOf(failure.getMessage()), null);
    }
}
