package io.granary.preload.service;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import io.granary.contracts.validation.ValidationException;

import java.time.Duration;
import java.time.ZonedDateTime;

/** Cron schedules of DataLoads: five fields (Unix), or six with seconds first (Quartz), or @daily-style macros. */
final class CronSchedules {

    private static final CronParser UNIX = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));
    private static final CronParser QUARTZ =
            new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.QUARTZ));

    private CronSchedules() {
    }

    /** @throws ValidationException naming {@code schedule} when the expression does not parse or never fires */
    static ExecutionTime parse(String schedule) {
        ExecutionTime parsed = parseExpression(schedule);
        if (parsed.nextExecution(ZonedDateTime.now()).isEmpty()) {
            // Accepted, it would be recorded and then fail every attempt to schedule it (at each restart too).
            throw new ValidationException("schedule", "'" + schedule + "' never fires");
        }
        return parsed;
    }

    private static ExecutionTime parseExpression(String schedule) {
        String expression = macro(schedule.strip());
        try {
            int fields = expression.split("\\s+").length;
            if (fields == 6) {
                // Quartz wants '?' in one of the two day fields; people write '*' in both.
                String[] parts = expression.split("\\s+");
                if (!parts[3].equals("?") && !parts[5].equals("?")) {
                    parts[5] = parts[5].equals("*") ? "?" : parts[5];
                    parts[3] = parts[5].equals("?") ? parts[3] : "?";
                }
                return ExecutionTime.forCron(QUARTZ.parse(String.join(" ", parts)));
            }
            return ExecutionTime.forCron(UNIX.parse(expression));
        } catch (IllegalArgumentException e) {
            throw new ValidationException("schedule", "'" + schedule + "' is not a valid cron expression: "
                    + e.getMessage());
        }
    }

    /** Time until the next firing after now. */
    static Duration untilNext(ExecutionTime schedule) {
        return untilNext(schedule, ZonedDateTime.now());
    }

    /** Time from {@code now} until the next firing after it. */
    static Duration untilNext(ExecutionTime schedule, ZonedDateTime now) {
        return schedule.nextExecution(now).map(next -> Duration.between(now, next))
                .orElseThrow(() -> new IllegalStateException("the schedule never fires again"));
    }

    private static String macro(String expression) {
        return switch (expression) {
            case "@yearly", "@annually" -> "0 0 1 1 *";
            case "@monthly" -> "0 0 1 * *";
            case "@weekly" -> "0 0 * * 0";
            case "@daily" -> "0 0 * * *";
            case "@hourly" -> "0 * * * *";
            default -> expression;
        };
    }
}
