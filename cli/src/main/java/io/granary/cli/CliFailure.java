package io.granary.cli;

/** Why a command stops: one line for the user, and the exit code that goes with it. */
public final class CliFailure extends RuntimeException {

    private final int exitCode;

    public CliFailure(int exitCode, String message) {
        super(message, null, false, false);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
