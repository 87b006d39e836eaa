package io.granary.devstack;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a Kubernetes Service is to a multi-node local cluster: one address in front of several replicas, at the
 * TCP level as kube-proxy is. A replica counts as an endpoint while its readiness check ({@code /q/health/ready})
 * answers 200, each looked at every half second, as the endpoints controller follows readiness probes; connections are
 * spread round robin over the ready ones. A replica that refuses or does not answer a connection within half a
 * second is passed over at once and the next one tried. A replica no connection reaches at a check (its node is cut
 * off or gone; a replica merely busy still takes connections) has the connections it served closed, as a cloud load
 * balancer terminates connections to an unreachable target: their clients see a reset within a check and ask
 * again elsewhere, where otherwise they would wait out the cut on a connection nothing answers.
 */
public final class Balancer implements AutoCloseable {

    /** A connection opens in well under a millisecond here: the kernel accepts it however busy the replica is. */
    private static final Duration CONNECT = Duration.ofMillis(500);
    private static final Duration CHECK_EVERY = Duration.ofMillis(500);
    /** A busy replica may take a while to answer its readiness check. */
    private static final Duration ANSWER = Duration.ofSeconds(1);

    private final ServerSocket server;
    private final List<Endpoint> endpoints;
    private final AtomicInteger next = new AtomicInteger();
    private final HttpClient checks = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1).connectTimeout(CONNECT).build();
    private volatile boolean open = true;

    private Balancer(ServerSocket server, List<Endpoint> endpoints) {
        this.server = server;
        this.endpoints = endpoints;
    }

    /** Listens on {@code host:port} in front of {@code backends} ({@code host:port} each), each checked at path. */
    public static Balancer start(String host, int port, List<String> backends, String healthPath) throws IOException {
        if (backends.isEmpty()) {
            throw new IOException("a balancer needs at least one backend");
        }
        List<Endpoint> endpoints = backends.stream().map(backend -> Endpoint.parse(backend, healthPath)).toList();
        ServerSocket server = new ServerSocket();
        server.setReuseAddress(true);
        try {
            server.bind(new InetSocketAddress(host, port), 512);
        } catch (IOException e) {
            server.close();
            throw new IOException("cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        Balancer balancer = new Balancer(server, endpoints);
        for (Endpoint endpoint : endpoints) {
            balancer.check(endpoint);
        }
        // A loop each, as the kubelet probes each pod: in one loop a busy replica's slow answer delayed the check
        // that finds the next one cut off, and its clients' connections waited up to a second longer.
        for (Endpoint endpoint : endpoints) {
            daemon("balancer-checks-" + endpoint, () -> balancer.checkLoop(endpoint));
        }
        daemon("balancer-accept", balancer::acceptLoop);
        return balancer;
    }

    public int port() {
        return server.getLocalPort();
    }

    /** The endpoints that answered their last readiness check. */
    public List<String> ready() {
        return endpoints.stream().filter(endpoint -> endpoint.ready).map(Endpoint::toString).toList();
    }

    @Override
    public void close() throws IOException {
        open = false;
        server.close();
    }

    private void acceptLoop() {
        while (open) {
            try {
                Socket client = server.accept();
                daemon("balancer-connection", () -> forward(client));
            } catch (IOException e) {
                if (open) {
                    System.err.println("balancer: accept failed: " + e.getMessage());
                }
            }
        }
    }

    private void forward(Socket client) {
        Connected connected = connect();
        if (connected == null) {
            closeQuietly(client);  // no replica at all: the client sees a reset, as with a Service without endpoints
            return;
        }
        Socket backend = connected.socket();
        Socket[] pair = {client, backend};
        connected.endpoint().connections.add(pair);
        try {
            client.setTcpNoDelay(true);
            backend.setTcpNoDelay(true);
        } catch (IOException e) {
            // Nagle stays on: slower, still correct.
        }
        AtomicInteger finished = new AtomicInteger();
        daemon("balancer-upstream", () -> pipe(client, backend, finished));
        pipe(backend, client, finished);
        connected.endpoint().connections.remove(pair);
    }

    private record Connected(Endpoint endpoint, Socket socket) {
    }

    /** A connection to the next ready endpoint; endpoints that fail to connect are marked down and passed over. */
    private Connected connect() {
        int start = Math.floorMod(next.getAndIncrement(), endpoints.size());
        for (boolean readyOnly : new boolean[] {true, false}) {
            for (int i = 0; i < endpoints.size(); i++) {
                Endpoint endpoint = endpoints.get((start + i) % endpoints.size());
                if (readyOnly != endpoint.ready) {
                    continue;
                }
                Socket socket = new Socket();
                try {
                    socket.connect(endpoint.address, (int) CONNECT.toMillis());
                    return new Connected(endpoint, socket);
                } catch (IOException e) {
                    endpoint.ready = false;
                    closeQuietly(socket);
                }
            }
        }
        return null;
    }

    /** Copies one direction; the second direction to end closes both sockets. */
    private static void pipe(Socket from, Socket to, AtomicInteger finished) {
        byte[] buffer = new byte[64 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
            }
            to.shutdownOutput();  // a half close passes on: the other direction may still be sending
        } catch (IOException e) {
            // One side reset or timed out: close both, so the other side sees it too.
            closeQuietly(to);
            closeQuietly(from);
        }
        if (finished.incrementAndGet() == 2) {
            closeQuietly(to);
            closeQuietly(from);
        }
    }

    private void checkLoop(Endpoint endpoint) {
        while (open) {
            try {
                Thread.sleep(CHECK_EVERY.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            check(endpoint);
        }
    }

    private void check(Endpoint endpoint) {
        boolean ready;
        try {
            // A new connection each time: the check's own kept-alive one would only time out its request on a node
            // cut off, and the connect that tells unreachable from busy came a check later.
            if (!reachable(endpoint)) {
                ready = false;
                closeConnections(endpoint);
            } else {
                HttpResponse<Void> answer = checks.send(HttpRequest.newBuilder(endpoint.health).timeout(ANSWER)
                        .build(), HttpResponse.BodyHandlers.discarding());
                ready = answer.statusCode() == 200;
            }
        } catch (IOException e) {
            ready = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (ready != endpoint.ready) {
            System.out.println("balancer: " + endpoint + (ready ? " ready" : " not ready"));
        }
        endpoint.ready = ready;
    }

    /**
     * Whether a TCP connection to the endpoint opens within {@link #CONNECT}: the kernel accepts it for a replica
     * however busy its process is, so only an unreachable or stopped one fails.
     */
    private static boolean reachable(Endpoint endpoint) {
        try (Socket socket = new Socket()) {
            socket.connect(endpoint.address, (int) CONNECT.toMillis());
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void closeConnections(Endpoint endpoint) {
        if (!endpoint.connections.isEmpty()) {
            System.out.println("balancer: " + endpoint + " unreachable: closing its " + endpoint.connections.size()
                    + " connections");
        }
        for (Socket[] pair : endpoint.connections) {
            closeQuietly(pair[0]);
            closeQuietly(pair[1]);
        }
    }

    private static void daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closed already
        }
    }

    private static final class Endpoint {
        final InetSocketAddress address;
        final URI health;
        /** The client's socket and ours of each connection passed to it now. */
        final Set<Socket[]> connections = ConcurrentHashMap.newKeySet();
        volatile boolean ready;

        private Endpoint(InetSocketAddress address, URI health) {
            this.address = address;
            this.health = health;
        }

        static Endpoint parse(String backend, String healthPath) {
            int colon = backend.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("a backend is host:port, got " + backend);
            }
            String host = backend.substring(0, colon);
            int port = Integer.parseInt(backend.substring(colon + 1));
            return new Endpoint(new InetSocketAddress(host, port), URI.create("http://" + backend + healthPath));
        }

        @Override
        public String toString() {
            return address.getHostString() + ":" + address.getPort();
        }
    }
}
