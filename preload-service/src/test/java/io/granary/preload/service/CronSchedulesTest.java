package io.granary.preload.service;

import com.cronutils.model.time.ExecutionTime;
import io.granary.contracts.validation.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which cron texts a DataLoad may carry, and when they fire: times are fixed, never the machine's clock. */
class CronSchedulesTest {

    /** A Friday, mid-morning, a little after a minute began. */
    private static final ZonedDateTime NOW = ZonedDateTime.of(2025, 3, 14, 10, 7, 30, 0, ZoneOffset.UTC);

    private static ZonedDateTime next(String schedule) {
        return NOW.plus(CronSchedules.untilNext(CronSchedules.parse(schedule), NOW));
    }

    @ParameterizedTest(name = "{0} fires next at {1}")
    @CsvSource(delimiter = '|', value = {
            // Unix: minute hour day-of-month month day-of-week
            "*/15 * * * *    | 2025-03-14T10:15Z",
            "0 3 * * *       | 2025-03-15T03:00Z",
            "30 10 * * 1-5   | 2025-03-14T10:30Z",  // weekdays: later today, a Friday
            "0 9 * * 1-5     | 2025-03-17T09:00Z",  // weekdays: today's has passed, Monday's is next
            "0 0 1 * *       | 2025-04-01T00:00Z",
            "0 0 * * 0       | 2025-03-16T00:00Z",  // Sunday is 0
    })
    void fiveFieldsAreUnixCron(String schedule, String expected) {
        assertThat(next(schedule)).isEqualTo(ZonedDateTime.parse(expected));
    }

    @ParameterizedTest(name = "{0} fires next at {1}")
    @CsvSource(delimiter = '|', value = {
            "@hourly   | 2025-03-14T11:00Z",
            "@daily    | 2025-03-15T00:00Z",
            "@weekly   | 2025-03-16T00:00Z",
            "@monthly  | 2025-04-01T00:00Z",
            "@yearly   | 2026-01-01T00:00Z",
            "@annually | 2026-01-01T00:00Z",
            "'  @daily\t' | 2025-03-15T00:00Z",
    })
    void macrosAreTheirUnixExpressions(String schedule, String expected) {
        assertThat(next(schedule)).isEqualTo(ZonedDateTime.parse(expected));
    }

    @ParameterizedTest(name = "{0} fires next at {1}")
    @CsvSource(delimiter = '|', value = {
            // Quartz: second minute hour day-of-month month day-of-week
            "0 */5 * * * *   | 2025-03-14T10:10Z",   // '*' in both day fields, as people write it
            "45 7 10 * * *   | 2025-03-14T10:07:45Z",
            "0 0 12 15 * *   | 2025-03-15T12:00Z",   // a day of the month
            "0 0 12 * * MON  | 2025-03-17T12:00Z",   // a day of the week
            "0 0 12 ? * MON  | 2025-03-17T12:00Z",   // Quartz's own '?' is kept
            "0 0 12 15 * ?   | 2025-03-15T12:00Z",
            "0 0 12 L * ?    | 2025-03-31T12:00Z",
            "0 0 12 * * 1    | 2025-03-16T12:00Z",   // Quartz counts days of the week from Sunday = 1
    })
    void sixFieldsAreQuartzWithSecondsFirst(String schedule, String expected) {
        assertThat(next(schedule)).isEqualTo(ZonedDateTime.parse(expected));
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"", "   ", "not a cron", "* * * *", "61 * * * *", "* * * * * * *", "0 0 12 ? * ?",
            "@reboot", "@DAILY", "70 0 12 * * *"})
    void whatDoesNotParseIsAValidationErrorOfTheSchedule(String schedule) {
        assertThatThrownBy(() -> CronSchedules.parse(schedule))
                .isInstanceOfSatisfying(ValidationException.class, e -> {
                    assertThat(e.field()).isEqualTo("schedule");
                    assertThat(e.detail()).startsWith("'" + schedule + "' is not a valid cron expression: ");
                });
    }

    @Test
    void theWaitRunsFromTheGivenMomentToTheNextFiring() {
        ExecutionTime everyQuarter = CronSchedules.parse("*/15 * * * *");

        assertThat(CronSchedules.untilNext(everyQuarter, NOW)).isEqualTo(Duration.ofMinutes(7).plusSeconds(30));
        assertThat(CronSchedules.untilNext(everyQuarter, NOW.withMinute(15).withSecond(0)))
                .as("a firing exactly now is not the next one").isEqualTo(Duration.ofMinutes(15));
    }

    @Test
    void aScheduleThatNeverFiresIsRefusedNamingTheSchedule() {
        assertThatThrownBy(() -> CronSchedules.parse("0 0 30 2 *"))
                .isInstanceOfSatisfying(ValidationException.class, e -> assertThat(e.field()).isEqualTo("schedule"))
                .hasMessageContaining("never fires");
    }

    @Test
    void theWaitFromNowIsFromTheMachinesClock() {
        // untilNext(schedule) is untilNext(schedule, now): never negative, never more than the period.
        Duration wait = CronSchedules.untilNext(CronSchedules.parse("* * * * * *"));

        assertThat(wait).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1));
    }
}
