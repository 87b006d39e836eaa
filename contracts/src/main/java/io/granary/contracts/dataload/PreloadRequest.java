package io.granary.contracts.dataload;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.granary.contracts.validation.Check;
import io.granary.contracts.validation.Validated;
import io.granary.contracts.validation.ValidationException;

import java.util.List;
import java.util.regex.Pattern;

/**
 * A preload request on {@code granary.preload.requests}: the {@code POST /api/v1/dataloads} body, flat, plus a
 * {@code requestId} chosen by the sender; the same requestId twice starts one load.
 */
public record PreloadRequest(String requestId, String dataset, List<Target> targets, List<String> files,
                             boolean metadataOnly, LoadPolicy policy, String schedule, int priority)
        implements Validated<PreloadRequest> {

    private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,127}");

    public static PreloadRequest of(String requestId, DataLoadSpec spec) {
        return new PreloadRequest(requestId, spec.dataset(), spec.targets(), spec.files(), spec.metadataOnly(),
                spec.policy(), spec.schedule(), spec.priority());
    }

    @JsonIgnore
    public DataLoadSpec spec() {
        return new DataLoadSpec(dataset, targets, files, metadataOnly, policy, schedule, priority);
    }

    /**
     * @return the validated, normalised request
     * @throws ValidationException naming the first bad field
     */
    @Override
    public PreloadRequest validate() {
        checkRequestId("requestId", requestId);
        return of(requestId, spec().validate());
    }

    /** A request id (or a REST call's {@code Idempotency-Key}) as {@code field} must be. */
    public static void checkRequestId(String field, String value) {
        Check.required(field, value);
        if (!REQUEST_ID.matcher(value).matches()) {
            throw new ValidationException(field, "must be 1 to 128 letters, digits, '.', '_', ':' or '-'");
        }
    }
}
