"""FileStore: a store shared through a file (torch.distributed.FileStore), by processes on one machine or on
a shared file system. The file is a log of set and delete records; each request locks it (flock), replays
it into a _Table, runs there, and appends what changed. Blocking requests poll until their keys appear."""
from __future__ import annotations

import fcntl
import os
import struct
import time

from ._errors import DistStoreError
from ._store import DEFAULT_TIMEOUT, Store, _Table, _WRITES

_REFCOUNT_KEY = "refcount/"  # the instances using the file, as torch's (so num_keys() starts at 1)
_BLOCKING = {"get", "wait", "multi_get"}


class FileStore(Store):
    """FileStore(file_name, world_size=-1): a store kept in file_name (created when missing)."""

    def __init__(self, file_name: str, world_size: int = -1) -> None:
        super().__init__(DEFAULT_TIMEOUT)
        self.path, self.world_size = file_name, world_size
        try:
            os.close(os.open(file_name, os.O_CREAT | os.O_RDWR, 0o644))
        except OSError as e:
            raise DistStoreError(f"FileStore: cannot open {file_name}: {e.strerror}") from None
        self.add(_REFCOUNT_KEY, 1)

    def _replay(self, f) -> _Table:
        table, raw, at = _Table(), f.read(), 0
        while at + 9 <= len(raw):
            kind = raw[at:at + 1]
            klen, vlen = struct.unpack_from("!II", raw, at + 1)
            key = raw[at + 9:at + 9 + klen].decode()
            value = raw[at + 9 + klen:at + 9 + klen + vlen]
            at += 9 + klen + vlen
            if kind == b"S":
                table.data[key] = value
            else:
                table.data.pop(key, None)
        return table

    def _locked(self, op, args, timeout):
        with open(self.path, "r+b") as f:
            fcntl.flock(f, fcntl.LOCK_EX if op in _WRITES else fcntl.LOCK_SH)
            table = self._replay(f)
            before = dict(table.data)
            result = table.execute(op, args, timeout)
            if op in _WRITES:
                records = [b"D" + struct.pack("!II", len(k.encode()), 0) + k.encode()
                           for k in before if k not in table.data]
                records += [b"S" + struct.pack("!II", len(k.encode()), len(v)) + k.encode() + v
                            for k, v in table.data.items() if before.get(k) != v]
                f.seek(0, os.SEEK_END)
                f.write(b"".join(records))
            return result

    def _execute(self, op, args, timeout):
        if op not in _BLOCKING:
            return self._locked(op, args, timeout)
        keys = [args[0]] if op == "get" else args[0]
        deadline = time.monotonic() + timeout
        while not self._locked("check", [keys], 0):
            if time.monotonic() >= deadline:
                missing = next(k for k in keys if not self._locked("check", [[k]], 0))
                raise DistStoreError(f"Timeout waiting for key: {missing} after {round(timeout * 1000)} ms")
            time.sleep(0.01)
        return self._locked(op, args, 0)
