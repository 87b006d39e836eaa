package io.granary.contracts.validation;

/** Bad input, with the JSON path of the field at fault ({@code mounts[0].uri}) so a REST problem body can name it. */
public class ValidationException extends IllegalArgumentException {

    private final String field;

    public ValidationException(String field, String message) {
        super(field + ": " + message);
        this.field = field;
    }

    public String field() {
        return field;
    }

    /** The message without the field prefix. */
    public String detail() {
        return getMessage().substring(field.length() + 2);
    }
}
