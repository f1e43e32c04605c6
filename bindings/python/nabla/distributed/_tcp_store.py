"""TCPStore: a store served over TCP by one process (is_master=True, usually rank 0) to every rank
(torch.distributed.TCPStore). Requests and replies are length-prefixed JSON frames (values as latin-1
strings); the server runs each request on its _Table in the connection's own thread, so a blocking get
or wait holds up only its caller."""
from __future__ import annotations

import json
import socket
import struct
import threading
import time

from ._errors import DistNetworkError, DistStoreError
from ._store import DEFAULT_TIMEOUT, Store, _Table

_INIT_KEY = "init/"  # counts the stores that connected, as torch's (so num_keys() starts at 1)


def _encode(value):
    if isinstance(value, bytes):
        return {"b": value.decode("latin-1")}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    return value


def _decode(value):
    if isinstance(value, dict):
        return value["b"].encode("latin-1")
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def _send(sock, obj) -> None:
    payload = json.dumps(_encode(obj)).encode()
    sock.sendall(struct.pack("!Q", len(payload)) + payload)


def _recv_exact(sock, n: int) -> bytes:
    chunks = []
    while n:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise ConnectionError("connection closed")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _recv(sock):
    (n,) = struct.unpack("!Q", _recv_exact(sock, 8))
    return _decode(json.loads(_recv_exact(sock, n)))


_ERRORS = {"DistStoreError": DistStoreError, "ValueError": ValueError, "TypeError": TypeError}


class _Server:
    """Accepts connections on a listening socket and serves each from its own daemon thread."""

    def __init__(self, port: int) -> None:
        self.table = _Table()
        self.listener = socket.create_server(("", port), family=socket.AF_INET, reuse_port=False)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, name="nabla-tcpstore", daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:  # closed
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn) -> None:
        with conn:
            while True:
                try:
                    op, args, timeout = _recv(conn)
                except (ConnectionError, OSError, ValueError):
                    return
                try:
                    reply = ["ok", self.table.execute(op, args, timeout)]
                except Exception as e:  # noqa: BLE001 - sent to the client, which raises it
                    reply = ["err", type(e).__name__, str(e)]
                try:
                    _send(conn, reply)
                except OSError:
                    return

    def close(self) -> None:
        self.listener.close()


class TCPStore(Store):
    """TCPStore(host_name, port, world_size=None, is_master=False, timeout=timedelta(seconds=300),
    wait_for_workers=True): is_master serves the store on port (0: a free one, see .port); every instance
    connects to host_name:port (retrying until timeout). With world_size and wait_for_workers the master
    waits until world_size instances have connected."""

    def __init__(self, host_name: str, port: int, world_size=None, is_master: bool = False,
                 timeout=DEFAULT_TIMEOUT, wait_for_workers: bool = True, multi_tenant: bool = False,
                 master_listen_fd=None, use_libuv: bool = True) -> None:
        super().__init__(timeout)
        self.host, self._server = host_name, None
        if is_master:
            try:
                self._server = _Server(port)
            except OSError as e:
                raise DistNetworkError(f"The server socket has failed to listen on any local network address. "
                                       f"port: {port}, useIpv6: 0, code: {-e.errno}, name: {e.strerror}, "
                                       f"message: {e}") from None
            port = self._server.port
        self.port = port
        self._lock = threading.Lock()
        self._sock = self._connect()
        self.add(_INIT_KEY, 1)
        if is_master and world_size is not None and wait_for_workers:
            self._wait_for_workers(int(world_size))

    def _connect(self):
        deadline = time.monotonic() + self._seconds
        while True:
            try:
                sock = socket.create_connection((self.host, self.port), timeout=max(0.1, deadline - time.monotonic()))
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sock.settimeout(None)
                return sock
            except OSError:
                if time.monotonic() >= deadline:
                    raise DistNetworkError(f"The client socket has timed out after {round(self._seconds * 1000)}ms "
                                           f"while trying to connect to ({self.host}, {self.port}).") from None
                time.sleep(0.05)

    def _wait_for_workers(self, world_size: int) -> None:
        deadline = time.monotonic() + self._seconds
        while (joined := int(self.get(_INIT_KEY))) < world_size:
            if time.monotonic() >= deadline:
                raise DistStoreError(f"Timed out after {round(self._seconds)} seconds waiting for clients. "
                                     f"{joined}/{world_size} clients joined.")
            time.sleep(0.01)

    def _execute(self, op, args, timeout):
        with self._lock:
            try:
                _send(self._sock, [op, args, timeout])
                reply = _recv(self._sock)
            except (ConnectionError, OSError) as e:
                raise DistNetworkError(f"TCPStore {op}: lost the connection to {self.host}:{self.port} ({e}); "
                                       "did the process that serves the store (is_master) exit?") from None
        if reply[0] == "ok":
            return reply[1]
        raise _ERRORS.get(reply[1], DistStoreError)(reply[2])

    @property
    def libuvBackend(self) -> bool:  # noqa: N802 - torch's name
        return False

    def clone(self) -> "TCPStore":
        """A new connection to the same store."""
        return TCPStore(self.host, self.port, is_master=False, timeout=self.timeout, wait_for_workers=False)

    def __del__(self) -> None:
        sock = getattr(self, "_sock", None)
        if sock is not None:
            sock.close()
        if getattr(self, "_server", None) is not None:
            self._server.close()
