package io.granary.devstack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports: finding a free one, and telling whether something listens on one. A port found here is free when
 * found, and nothing holds it until its server binds: the kernel may give it to the next caller meanwhile (a store
 * started beside a broker got the broker's port, and then found it taken). So no port is handed out twice in a JVM.
 */
public final class Ports {

    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private Ports() {
    }

    public static int free() {
        return free(1)[0];
    }

    /** {@code count} different free loopback ports, none handed out before in this JVM. */
    public static int[] free(int count) {
        List<ServerSocket> held = new ArrayList<>();  // each held while the next is found
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; ) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                held.add(socket);
                if (HANDED_OUT.add(socket.getLocalPort())) {
                    ports[i++] = socket.getLocalPort();
                }
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback ports", e);
        } finally {
            for (ServerSocket socket : held) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // it was only held
                }
            }
        }
    }

    /**
     * A free port below Linux's ephemeral range (32768-60999 by default), for a peer port others connect to before it
     * listens (JGroups TCPPING): a connection to a not-yet-listening port inside the ephemeral range can be given
     * that very port as its own local port, and then holds it.
     */
    public static int freeForPeers() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 100; attempt++) {
            int port = random.nextInt(20_000, 32_000);
            try (ServerSocket ignored = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                if (HANDED_OUT.add(port)) {
                    return port;
                }
            } catch (IOException taken) {
                // try another
            }
        }
        throw new UncheckedIOException(new IOException("no free loopback port in 20000-32000"));
    }

    public static boolean listening(int port) {
        return listening(InetAddress.getLoopbackAddress().getHostAddress(), port);
    }

    /** Whether something listens on {@code host}, for a server bound to another address than loopback. */
    public static boolean listening(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
