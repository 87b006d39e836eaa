package io.granary.contracts.dataset;

import io.granary.contracts.validation.ValidationException;

import java.util.ArrayList;
import java.util.List;

/**
 * Paths inside a dataset, as users write them ({@code /train/a.jpg}, {@code train//a.jpg}), normalised to the
 * one form every service keys on: no leading or doubled '/', never '.' or '..', so that no path can name anything
 * outside its dataset.
 */
public final class DatasetPaths {

    private DatasetPaths() {
    }

    /**
     * @return the normalised path; empty for the dataset's root. A trailing '/' is kept: it marks a directory prefix.
     * @throws ValidationException naming {@code field} for '.', '..', NUL or control characters
     */
    public static String normalize(String field, String path) {
        if (path == null) {
            return "";
        }
        List<String> segments = new ArrayList<>();
        for (String segment : path.split("/")) {
            if (segment.isEmpty()) {
                continue;
            }
            if (segment.equals(".") || segment.equals("..")) {
                throw new ValidationException(field, "'" + path + "' must not contain '.' or '..' segments");
            }
            if (segment.chars().anyMatch(Character::isISOControl)) {
                throw new ValidationException(field, "must not contain control characters");
            }
            segments.add(segment);
        }
        String normalised = String.join("/", segments);
        return path.endsWith("/") && !normalised.isEmpty() ? normalised + "/" : normalised;
    }
}
