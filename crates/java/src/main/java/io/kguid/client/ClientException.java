package io.kguid.client;

import java.io.IOException;

/**
 * The id service could not hand out ids: no address, or every attempt of
 * one call failed (the retry budget is spent). The cause is the last
 * failure met.
 */
public final class ClientException extends IOException {
    private static final long serialVersionUID = 1L;
    private final int attempts;

    ClientException(String message, int attempts, Throwable cause) {
        super(message, cause);
        this.attempts = attempts;
    }

    /**
     * Connections tried or broken during the call.
     *
     * @return the count
     */
    public int attempts() {
        return attempts;
    }
}
