package io.granary.kit.blockfile;

import java.io.IOException;

/**
 * A send failed after its first bytes may have gone out: the response must break off (the client asks again),
 * never go on from the block's start or from where the caller last counted, which would send some bytes twice
 * under a Content-Length that hides it.
 */
public class SendBroken extends IOException {

    SendBroken(String message, Throwable cause) {
        super(message, cause);
    }

    /** The failure as it is, if it says so already; else wrapped. */
    static SendBroken of(Object what, Throwable failure) {
        return failure instanceof SendBroken broken ? broken
                : new SendBroken("the send of " + what + " failed part-way: " + failure.getMessage(), failure);
    }
}
