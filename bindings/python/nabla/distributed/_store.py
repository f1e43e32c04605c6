"""Key-value stores with torch.distributed's interface (Store, HashStore, PrefixStore): every rank can set
keys and wait for the keys of others. TCPStore (_tcp_store.py) and FileStore (_file_store.py) share them
across processes; all execute their requests on a _Table, which holds the blocking semantics."""
from __future__ import annotations

import datetime
import threading
import time

from ._errors import DistStoreError

DEFAULT_TIMEOUT = datetime.timedelta(seconds=300)


def _bytes(value) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, (list, tuple)):  # torch takes a list of byte values too
        return bytes(value)
    raise TypeError(f"store value must be str or bytes, got {type(value).__name__}")


def _key(key) -> str:
    if not isinstance(key, str):
        raise TypeError(f"store key must be a str, got {type(key).__name__}")
    return key


def _timeout_error(keys, seconds: float) -> DistStoreError:
    names = ", ".join("/" + k for k in keys)
    return DistStoreError(f"wait timeout after {round(seconds * 1000)}ms, keys: {names}")


class _Table:
    """The store's state and operations; get, wait and multi_get block (up to a timeout) until their keys
    exist. Thread-safe. execute(op, args, timeout) is what every store backend runs."""

    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}
        self.changed = threading.Condition()

    def _wait_for(self, keys, timeout: float) -> None:
        """Called with self.changed held."""
        deadline = time.monotonic() + timeout
        while not all(k in self.data for k in keys):
            left = deadline - time.monotonic()
            if left <= 0:
                raise _timeout_error(keys, timeout)
            self.changed.wait(left)

    def execute(self, op: str, args: list, timeout: float):
        with self.changed:
            result = getattr(self, "op_" + op)(*args, timeout=timeout)
            if op in _WRITES:
                self.changed.notify_all()
            return result

    def op_set(self, key, value, timeout):
        self.data[key] = value

    def op_get(self, key, timeout):
        self._wait_for([key], timeout)
        return self.data[key]

    def op_add(self, key, amount, timeout):
        current = self.data.get(key, b"0")
        try:
            value = int(current) + amount
        except ValueError:
            raise DistStoreError(f"add: the value of key {key!r} is not an integer: {current[:40]!r}") from None
        self.data[key] = str(value).encode()
        return value

    def op_compare_set(self, key, expected, desired, timeout):
        current = self.data.get(key)
        if current is None:
            if expected == b"":
                self.data[key] = desired
                return desired
            return expected
        if current == expected:
            self.data[key] = desired
            return desired
        return current

    def op_delete_key(self, key, timeout):
        return self.data.pop(key, None) is not None

    def op_num_keys(self, timeout):
        return len(self.data)

    def op_check(self, keys, timeout):
        return all(k in self.data for k in keys)

    def op_wait(self, keys, timeout):
        self._wait_for(keys, timeout)

    def op_append(self, key, value, timeout):
        self.data[key] = self.data.get(key, b"") + value

    def op_multi_get(self, keys, timeout):
        self._wait_for(keys, timeout)
        return [self.data[k] for k in keys]

    def op_multi_set(self, keys, values, timeout):
        self.data.update(zip(keys, values))

    def op_list_keys(self, timeout):
        return list(self.data)


_WRITES = {"set", "add", "compare_set", "delete_key", "append", "multi_set"}


class Store:
    """A key-value store (torch.distributed.Store): set/get/add/compare_set/delete_key/num_keys/check/wait;
    get and wait block until their keys are set, up to the store's timeout (DistStoreError after it)."""

    def __init__(self, timeout=DEFAULT_TIMEOUT) -> None:
        self.set_timeout(timeout)

    def _execute(self, op: str, args: list, timeout: float):
        raise NotImplementedError

    def _run(self, op, *args, timeout=None):
        return self._execute(op, list(args), self._seconds if timeout is None else timeout)

    @property
    def timeout(self) -> datetime.timedelta:
        return datetime.timedelta(seconds=self._seconds)

    def set_timeout(self, timeout) -> None:
        if not isinstance(timeout, datetime.timedelta):
            raise TypeError(f"timeout must be a datetime.timedelta, got {type(timeout).__name__}")
        self._seconds = timeout.total_seconds()

    def set(self, key: str, value) -> None:
        self._run("set", _key(key), _bytes(value))

    def get(self, key: str) -> bytes:
        """The value of key, waiting up to the store's timeout for it to be set."""
        return self._run("get", _key(key))

    def add(self, key: str, amount: int) -> int:
        """Adds amount to the integer value of key (0 when missing) and returns the new value."""
        return self._run("add", _key(key), int(amount))

    def compare_set(self, key: str, expected_value, desired_value) -> bytes:
        """Sets key to desired_value when it holds expected_value (or is missing and expected_value is empty);
        returns the value key holds afterwards (expected_value when key is missing and expected_value is not
        empty)."""
        return self._run("compare_set", _key(key), _bytes(expected_value), _bytes(desired_value))

    def delete_key(self, key: str) -> bool:
        return self._run("delete_key", _key(key))

    def num_keys(self) -> int:
        return self._run("num_keys")

    def check(self, keys: list) -> bool:
        """True when every key is set; never waits."""
        return self._run("check", [_key(k) for k in keys])

    def wait(self, keys: list, timeout=None) -> None:
        """Waits until every key is set (up to timeout, a timedelta; the store's by default)."""
        seconds = None if timeout is None else timeout.total_seconds()
        self._run("wait", [_key(k) for k in keys], timeout=seconds)

    def append(self, key: str, value) -> None:
        self._run("append", _key(key), _bytes(value))

    def multi_get(self, keys: list) -> list:
        return self._run("multi_get", [_key(k) for k in keys])

    def multi_set(self, keys: list, values: list) -> None:
        if len(keys) != len(values):
            raise ValueError(f"multi_set: {len(keys)} keys but {len(values)} values")
        self._run("multi_set", [_key(k) for k in keys], [_bytes(v) for v in values])

    def list_keys(self) -> list:
        return self._run("list_keys")

    def has_extended_api(self) -> bool:
        return True


class HashStore(Store):
    """A store within one process (threads share it)."""

    def __init__(self) -> None:
        super().__init__()
        self._table = _Table()

    def _execute(self, op, args, timeout):
        return self._table.execute(op, args, timeout)


class PrefixStore(Store):
    """PrefixStore(prefix, store): every key goes to store as "prefix/key"."""

    def __init__(self, prefix: str, store: Store) -> None:
        super().__init__(store.timeout)
        self._prefix, self.underlying_store = prefix + "/", store

    def _name(self, key):
        return self._prefix + key

    def _execute(self, op, args, timeout):
        if op in ("check", "wait", "multi_get", "multi_set"):
            args = [[self._name(k) for k in args[0]], *args[1:]]
        elif op not in ("num_keys", "list_keys"):
            args = [self._name(args[0]), *args[1:]]
        result = self.underlying_store._execute(op, args, timeout)
        if op == "list_keys":
            return [k[len(self._prefix):] for k in result if k.startswith(self._prefix)]
        return result
