package io.granary.cli;

/** The exit codes of every command, as the README lists them: a script can tell what went wrong. */
public final class Exit {

    public static final int OK = 0;
    /** The gateway refused the request: bad input, a conflict (the message names the field). */
    public static final int REFUSED = 1;
    /** The command line itself was wrong: an unknown option, a missing argument. */
    public static final int USAGE = 2;
    /** No such dataset, file or DataLoad. */
    public static final int NOT_FOUND = 3;
    /** No credentials, or the caller's role does not allow the call. */
    public static final int DENIED = 4;
    /** The gateway could not be reached, or failed (5xx). */
    public static final int UNAVAILABLE = 5;
    /** A followed DataLoad ended Failed. */
    public static final int LOAD_FAILED = 6;
    /** A followed DataLoad ended Cancelled. */
    public static final int LOAD_CANCELLED = 7;

    private Exit() {
    }
}
