"""Collectives of picklable Python objects (torch.distributed's *_object functions): each object travels
as a uint8 tensor of its pickle, after the sizes."""
from __future__ import annotations

import io
import pickle

import numpy as np

from . import distributed_c10d as c10d


def _to_tensor(obj, device="cpu"):
    from .. import from_numpy
    buf = io.BytesIO()
    pickle.Pickler(buf).dump(obj)
    return from_numpy(np.frombuffer(buf.getvalue(), dtype=np.uint8).copy()).to(device)


def _from_tensor(t, size: int):
    return pickle.loads(t.cpu().numpy()[:size].tobytes())


def _unpack(object_list, sizes, data) -> None:
    """object_list[i] = the i-th pickle of data (their byte counts in sizes, one after the other)."""
    offset = 0
    for i in range(len(object_list)):
        size = int(sizes[i])
        object_list[i] = _from_tensor(data[offset:offset + size], size)
        offset += size


def all_gather_object(object_list, obj, group=None) -> None:
    """object_list[r] receives rank r's obj on every rank (object_list has one slot per rank)."""
    if not c10d._is_member(group):
        return
    from .. import empty, tensor, int64, uint8
    n, dev = c10d.get_world_size(group), c10d._group(group)._object_device()
    data = _to_tensor(obj, dev)
    sizes = empty(n, dtype=int64, device=dev)
    c10d.all_gather_into_tensor(sizes, tensor([data.numel()], dtype=int64, device=dev), group=group)
    top = int(sizes.max())
    padded = empty(top, dtype=uint8, device=dev)
    padded[:data.numel()] = data
    out = empty(n * top, dtype=uint8, device=dev)
    c10d.all_gather_into_tensor(out, padded, group=group)
    for r in range(n):
        object_list[r] = _from_tensor(out[r * top:(r + 1) * top], int(sizes[r]))


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None) -> None:
    """object_gather_list[r] on rank dst receives rank r's obj."""
    if not c10d._is_member(group):
        return
    g = c10d._group(group)
    root = c10d._peer(g, "dst", dst, group_dst)
    gathered = [None] * g.size()
    all_gather_object(gathered, obj, group)
    if g.rank() == root:
        if object_gather_list is None:
            raise ValueError("Argument ``object_gather_list`` must be specified on destination rank.")
        object_gather_list[:] = gathered


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None) -> None:
    """Replaces object_list's entries on every rank by those of rank src."""
    if not c10d._is_member(group):
        return
    from .. import empty, tensor, int64, uint8
    g = c10d._group(group)
    root = c10d._peer(g, "src", src, group_src)
    is_src, dev = g.rank() == root, g._object_device() if device is None else device
    parts = [_to_tensor(o, dev) for o in object_list] if is_src else []
    sizes = (tensor([p.numel() for p in parts], dtype=int64, device=dev) if is_src
             else empty(len(object_list), dtype=int64, device=dev))
    c10d.broadcast(sizes, group=group, group_src=root)
    total = int(sizes.sum())
    data = empty(total, dtype=uint8, device=dev)
    if is_src and parts:
        from .. import cat
        data = cat(parts)
    c10d.broadcast(data, group=group, group_src=root)
    if not is_src:
        _unpack(object_list, sizes, data)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None) -> None:
    """scatter_object_output_list[0] on rank r receives scatter_object_input_list[r] of rank src."""
    if not c10d._is_member(group):
        return
    g = c10d._group(group)
    root = c10d._peer(g, "src", src, group_src)
    objs = list(scatter_object_input_list) if g.rank() == root else [None] * g.size()
    broadcast_object_list(objs, group=group, group_src=root)
    scatter_object_output_list[0] = objs[g.rank()]


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None, use_batch: bool = False) -> None:
    """Sends object_list's objects to rank dst, which receives them with recv_object_list (sizes, then bytes)."""
    if not c10d._is_member(group):
        return
    from .. import cat, tensor, int64
    g = c10d._group(group)
    peer = c10d._p2p_rank(g, "dst", dst, group_dst)
    dev = g._object_device() if device is None else device
    parts = [_to_tensor(o, dev) for o in object_list]
    c10d.send(tensor([p.numel() for p in parts], dtype=int64, device=dev), group=group, group_dst=peer)
    if parts:
        c10d.send(cat(parts), group=group, group_dst=peer)


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None, use_batch: bool = False) -> int:
    """Fills object_list (of as many slots as the sender sent) with rank src's objects; returns src's global
    rank (-1 outside the group)."""
    if not c10d._is_member(group):
        return -1
    from .. import empty, int64, uint8
    g = c10d._group(group)
    peer = c10d._p2p_rank(g, "src", src, group_src)
    dev = g._object_device() if device is None else device
    sizes = empty(len(object_list), dtype=int64, device=dev)
    sender = c10d.recv(sizes, group=group, group_src=peer)
    if len(object_list):
        data = empty(int(sizes.sum()), dtype=uint8, device=dev)
        c10d.recv(data, group=group, group_src=peer)
        _unpack(object_list, sizes, data)
    return sender
