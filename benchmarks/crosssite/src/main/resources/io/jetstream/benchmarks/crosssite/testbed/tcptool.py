#!/usr/bin/env python3
"""TCP round trips and rates for the two-site testbed, run inside its namespaces.

  tcptool.py echo                       listen on an ephemeral port (printed: "port N"), echo every byte back
  tcptool.py ping HOST PORT COUNT       COUNT round trips of 64 bytes after 3 unmeasured ones, one connection,
                                        TCP_NODELAY; prints "rtt_ms median=.. min=.. max=.. count=.."
  tcptool.py sink SKIP SECONDS          listen on an ephemeral port (printed: "port N"), read from every
                                        connection; prints "mbit=.. bytes=.. seconds=.." for the bytes received
                                        from SKIP to SKIP+SECONDS seconds after the first byte, then exits
  tcptool.py source HOST PORT SECONDS   one connection, writes as fast as TCP takes it for SECONDS
"""
import os
import socket
import sys
import threading
import time


def listen():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("0.0.0.0", 0))
    server.listen(16)
    print("port %d" % server.getsockname()[1], flush=True)
    return server


def echo():
    server = listen()

    def serve(conn):
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with conn:
            while True:
                data = conn.recv(65536)
                if not data:
                    return
                conn.sendall(data)

    while True:
        conn, _ = server.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


def ping(host, port, count):
    conn = socket.create_connection((host, port), timeout=10)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    payload = b"x" * 64
    samples = []
    for i in range(count + 3):
        start = time.perf_counter_ns()
        conn.sendall(payload)
        got = 0
        while got < len(payload):
            chunk = conn.recv(len(payload) - got)
            if not chunk:
                raise SystemExit("echo closed the connection")
            got += len(chunk)
        if i >= 3:
            samples.append((time.perf_counter_ns() - start) / 1e6)
    conn.close()
    samples.sort()
    n = len(samples)
    median = samples[n // 2] if n % 2 else (samples[n // 2 - 1] + samples[n // 2]) / 2
    print("rtt_ms median=%.3f min=%.3f max=%.3f count=%d" % (median, samples[0], samples[-1], n), flush=True)


def sink(skip, seconds):
    server = listen()
    lock = threading.Lock()
    total = [0]
    first = threading.Event()

    def drain(conn):
        buf = bytearray(262144)
        with conn:
            while True:
                n = conn.recv_into(buf)
                if n == 0:
                    return
                with lock:
                    total[0] += n
                first.set()

    def accept():
        while True:
            conn, _ = server.accept()
            threading.Thread(target=drain, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    if not first.wait(30):
        raise SystemExit("no byte received in 30 s")
    time.sleep(skip)
    with lock:
        start_bytes, start = total[0], time.monotonic()
    time.sleep(seconds)
    with lock:
        end_bytes, end = total[0], time.monotonic()
    received = end_bytes - start_bytes
    print("mbit=%.3f bytes=%d seconds=%.3f" % (received * 8 / (end - start) / 1e6, received, end - start), flush=True)
    os._exit(0)


def source(host, port, seconds):
    conn = socket.create_connection((host, port), timeout=10)
    chunk = b"\0" * 65536
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            conn.sendall(chunk)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the sink measured enough and left
    conn.close()


def main(argv):
    if len(argv) >= 1 and argv[0] == "echo":
        echo()
    elif len(argv) == 4 and argv[0] == "ping":
        ping(argv[1], int(argv[2]), int(argv[3]))
    elif len(argv) == 3 and argv[0] == "sink":
        sink(float(argv[1]), float(argv[2]))
    elif len(argv) == 4 and argv[0] == "source":
        source(argv[1], int(argv[2]), float(argv[3]))
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv[1:])
