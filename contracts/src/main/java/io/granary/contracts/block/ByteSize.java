package io.granary.contracts.block;

import io.granary.contracts.validation.ValidationException;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Sizes as people write them: {@code 16MiB}, {@code 512KiB}, {@code 2GiB}, {@code 100MB}, {@code 4096}. */
public final class ByteSize {

    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgtp]?i?b?)?");

    private ByteSize() {
    }

    /** @throws IllegalArgumentException when the text is not a size */
    public static long parse(String text) {
        return parse("size", text);
    }

    /** @throws ValidationException naming {@code field} when the text is not a size */
    public static long parse(String field, String text) {
        if (text == null || text.isBlank()) {
            throw new ValidationException(field, "is required");
        }
        Matcher matcher = SIZE.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!matcher.matches()) {
            throw new ValidationException(field, "'" + text + "' is not a size such as 16MiB, 512KiB or 4096");
        }
        String unit = matcher.group(2) == null ? "" : matcher.group(2);
        long multiplier = multiplier(unit);
        try {
            return Math.multiplyExact(Long.parseLong(matcher.group(1)), multiplier);
        } catch (ArithmeticException | NumberFormatException e) {
            throw new ValidationException(field, "'" + text + "' is too large");
        }
    }

    /** The shortest exact binary form: {@code 16777216} → {@code 16MiB}. */
    public static String format(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
        int unit = 0;
        long value = bytes;
        while (unit < units.length - 1 && value != 0 && value % 1024 == 0) {
            value /= 1024;
            unit++;
        }
        return value + units[unit];
    }

    private static long multiplier(String unit) {
        boolean binary = unit.length() >= 2 && unit.charAt(1) == 'i';
        long base = binary ? 1024 : 1000;
        char prefix = unit.isEmpty() ? 'b' : unit.charAt(0);
        int power = switch (prefix) {
            case 'k' -> 1;
            case 'm' -> 2;
            case 'g' -> 3;
            case 't' -> 4;
            case 'p' -> 5;
            default -> 0;
        };
        long multiplier = 1;
        for (int i = 0; i < power; i++) {
            multiplier *= base;
        }
        return multiplier;
    }
}
