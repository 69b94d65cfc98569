"""The relay's process (see relay.ts): one loopback port, held from start to exit, joined to the
server behind it. Python rather than Node because holding a port while refusing connections needs
two things Node does not offer: binding a port explicitly (SO_REUSEPORT beside the port-0 socket
that found it, so the port is never free in between), and shutdown() of a listening socket, which
on Linux stops it listening while the socket keeps its port; listen() on it starts again.

Commands on stdin, one per line, each answered on stdout once done:
  up PORT   join new connections to 127.0.0.1:PORT (and listen, if down)  -> "up PORT"
  down      refuse new connections (connection refused, as with no server) -> "down"
  blackhole every connection open now stops passing bytes either way, and stays open: no FIN,
            no RST, nothing (a dead path through a middlebox); new connections pass -> "blackhole"
  heal      the blackholed connections pass bytes again, held bytes first -> "heal"
The first line on stdout is "port N": the relay's own port. Exits when stdin closes.
"""

import socket
import struct
import sys
import threading

target = int(sys.argv[1])
lock = threading.Lock()
listening = threading.Event()
# Each joined pair's "flowing" event: a pump holds what it read until its pair flows. Blackholed
# pairs' events, cleared, wait in `held` for "heal".
flows: list = []
held: list = []


def reset(sock: socket.socket) -> None:
    """Closes with a RST (SO_LINGER 0): what a client of a dead server sees.

    The other pump thread may be blocked reading this socket (a client waiting for its reply sends
    nothing). On Linux, close() then only drops the descriptor: the socket is released — and the
    RST sent — when that read returns, which it never would, so the client waited for its socket
    timeout (test/unit/relay.spec.ts). shutdown(SHUT_RD) first wakes the reader (its recv returns
    b"", it finds the pair cut) without sending anything; the close then releases the socket."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RD)
    except OSError:
        pass
    sock.close()


def pump(src: socket.socket, dst: socket.socket, pair: dict) -> None:
    try:
        while True:
            data = src.recv(65536)
            pair["flowing"].wait()  # blackholed: the bytes (or the FIN) are held, nothing is sent
            if not data:  # a FIN: pass it on
                dst.shutdown(socket.SHUT_WR)
                return
            dst.sendall(data)
    except OSError:  # a reset or a closed socket: cut both sides
        with lock:
            if not pair["cut"]:
                pair["cut"] = True
                reset(src)
                reset(dst)


def join(client: socket.socket, port: int) -> None:
    try:
        upstream = socket.create_connection(("127.0.0.1", port))
    except OSError:
        reset(client)
        return
    for s in (client, upstream):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    pair = {"cut": False, "flowing": threading.Event()}
    pair["flowing"].set()
    with lock:
        flows.append(pair["flowing"])
    ends = [threading.Thread(target=pump, args=(a, b, pair), daemon=True) for a, b in ((client, upstream), (upstream, client))]
    for t in ends:
        t.start()
    for t in ends:
        t.join()
    with lock:
        if not pair["cut"]:
            client.close()
            upstream.close()


finder = socket.socket()
finder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
finder.bind(("127.0.0.1", 0))
port = finder.getsockname()[1]
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
server.bind(("127.0.0.1", port))  # explicit: the port stays bound across shutdown()
finder.close()
server.listen(512)
listening.set()


def accept_loop() -> None:
    while True:
        listening.wait()
        try:
            client, _ = server.accept()
        except OSError:  # shut down by "down"
            continue
        threading.Thread(target=join, args=(client, target), daemon=True).start()


threading.Thread(target=accept_loop, daemon=True).start()
print(f"port {port}", flush=True)
for line in sys.stdin:
    words = line.split()
    if words[:1] == ["up"]:
        target = int(words[1])
        if not listening.is_set():
            server.listen(512)
            listening.set()
        print(f"up {target}", flush=True)
    elif words == ["blackhole"]:
        with lock:
            for flowing in flows:
                flowing.clear()
            held.extend(flows)
            flows.clear()
        print("blackhole", flush=True)
    elif words == ["heal"]:
        with lock:
            for flowing in held:
                flowing.set()
            flows.extend(held)
            held.clear()
        print("heal", flush=True)
    elif words == ["down"]:
        listening.clear()
        server.shutdown(socket.SHUT_RDWR)
        print("down", flush=True)
