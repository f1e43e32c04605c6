"""Process groups and collectives with torch.distributed's names and behaviour, over nabla's C ABI
(nb_comm_*: MPI for CPU tensors, NCCL for CUDA tensors)."""
from __future__ import annotations

import atexit
import datetime
import enum
import os
import sys
import warnings

from .._lib import ffi, lib
from . import _backends, _mpi, _premul
from ._errors import DistBackendError, raise_for
from ._rendezvous import default_store
from ._work import Work, _DoneWork

default_pg_timeout = datetime.timedelta(minutes=30)

_NOT_INIT = ("Default process group has not been initialized, please make sure to call init_process_group.")


class RedOpType(enum.IntEnum):
    """The values of ReduceOp (PyTorch's numbering, also the C ABI's NB_REDUCE_OP_*)."""
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9


class ReduceOp:
    """How reductions combine the ranks' tensors: ReduceOp.SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR, BXOR, and
    PREMUL_SUM through _make_nccl_premul_sum(factor)."""
    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM


class reduce_op:  # noqa: N801 - PyTorch's deprecated spelling
    SUM, PRODUCT, MIN, MAX = ReduceOp.SUM, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX


class Backend(str):
    """A backend name: Backend.MPI ("mpi"), Backend.NCCL ("nccl"), Backend.GLOO ("gloo": CPU tensors on MPI) or
    per device ("cpu:gloo,cuda:nccl"); Backend("MPI") lowers the case."""
    UNDEFINED = "undefined"
    GLOO = "gloo"
    MPI = "mpi"
    NCCL = "nccl"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend name must be a string, but got: {name}")
        value = name.lower()
        if value != "undefined":
            _backends.parse(value)  # ValueError for an unknown name
        return super().__new__(cls, value)


class ProcessGroup:
    """A group of ranks (torch's ProcessGroup): the default group from init_process_group or one from new_group."""

    def __init__(self, handle, ranks: list[int], backend: str, timeout: datetime.timedelta) -> None:
        self._c = handle          # the MPI nb_comm* (CPU tensors, NCCL's bootstrap), released by destroy
        self._ranks = ranks       # global ranks, in group-rank order
        self._backend = backend
        self._engines = _backends.parse(backend)  # device type -> "mpi" or "nccl"
        self._nccl = {}           # CUDA device index -> NCCL nb_comm*, made by the first collective there
        self._timeout = timeout

    def rank(self) -> int:
        return lib.nb_comm_rank(self._live())

    def size(self) -> int:
        return lib.nb_comm_size(self._live())

    def name(self) -> str:
        return self._backend

    def _live(self):
        if self._c is None:
            raise ValueError("The process group has been destroyed (destroy_process_group); "
                             "create a new one with init_process_group or new_group")
        return self._c

    def _comm(self, tensor):
        """The communicator for tensor's device: NCCL's for CUDA tensors of an nccl group, else MPI's (which
        refuses CUDA tensors, naming the nccl backend)."""
        device = tensor.device
        engine = self._engines.get(device.type)
        if engine == "nccl":
            return self._nccl_comm(device.index)
        if engine is None and device.type != "cuda":
            raise RuntimeError(f"No backend type associated with device type {device.type}")
        return self._live()

    def _nccl_comm(self, index: int):
        comm = self._nccl.get(index)
        if comm is None:  # as PyTorch's, made at the first collective on the device (every rank calls it)
            comm = self._nccl[index] = _backends.nccl_comm(self._live(), index)
        return comm

    def _barrier_comm(self):
        """NCCL's communicator of the current CUDA device for an nccl-only group (its barrier waits for the
        device first), else MPI's."""
        if "cpu" in self._engines:
            return self._live()
        from .. import cuda
        return self._nccl_comm(cuda.current_device())

    def _object_device(self):
        """Where the *_object collectives put their bytes: the current CUDA device for an nccl-only group."""
        if "cpu" in self._engines:
            return "cpu"
        from .. import cuda
        return f"cuda:{cuda.current_device()}"

    def __repr__(self) -> str:
        return f"ProcessGroup(backend={self._backend!r}, ranks={self._ranks})"


class GroupMember:
    """GroupMember.WORLD is the default group; NON_GROUP_MEMBER is what new_group returns to non-members."""
    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = -100


group = GroupMember  # torch.distributed.group.WORLD
_groups: list[ProcessGroup] = []
_default_store = None
_finalize_registered = False


def is_available() -> bool:
    """True: nabla.distributed is always built (whether MPI can be loaded is is_mpi_available())."""
    return True


def is_mpi_available() -> bool:
    """True when an MPI-5 ABI library (the `mpich` wheel's) can be loaded."""
    return lib.nb_comm_available(_c_str(_mpi.library())) == 0


def is_nccl_available() -> bool:
    """True when libnccl.so.2 can be loaded ($NABLA_NCCL_LIBRARY, the nvidia-nccl wheel's, or the system's)."""
    return lib.nb_comm_nccl_available(_c_str(_mpi.nccl_library()), ffi.NULL) == 0


def is_gloo_available() -> bool:
    """True when MPI is: nabla runs backend "gloo" (CPU tensors) on MPI."""
    return is_mpi_available()


def is_ucc_available() -> bool:
    return False


def is_torchelastic_launched() -> bool:
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def is_initialized() -> bool:
    return GroupMember.WORLD is not None


def is_backend_available(backend: str) -> bool:
    try:
        engines = set(_backends.parse(backend.lower()).values())
    except ValueError:
        return False
    return is_mpi_available() and ("nccl" not in engines or _backends.nccl_usable())


def _c_str(s):
    return ffi.NULL if s is None else s.encode()


def _seconds(timeout) -> float:
    if timeout is None:
        return default_pg_timeout.total_seconds()
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout).__name__}")


def _env_int(name: str):
    value = os.environ.get(name)
    return None if value in (None, "") else int(value)


def init_process_group(backend=None, init_method=None, timeout=None, world_size: int = -1, rank: int = -1,
                       store=None, group_name: str = "", pg_options=None, device_id=None) -> None:
    """Starts the default process group. backend "mpi" (or "gloo") carries CPU tensors over the MPI library the
    `mpich` wheel installs; "nccl" carries CUDA tensors over NCCL (bootstrapped through MPI); "cpu:gloo,cuda:nccl"
    both; None picks "cpu:mpi,cuda:nccl" when NCCL and a CUDA device are there, else "mpi". The processes are
    started by `mpiexec -n N` or `python -m nabla.distributed.run`. Rank and world size come from MPI; RANK /
    WORLD_SIZE (environment) or rank= / world_size=, when given, must agree with it. timeout (a timedelta, 30
    minutes by default) bounds every MPI wait. The NCCL communicator of a CUDA device is made by the group's
    first collective on it, or here for device_id. init_method ("env://", "tcp://host:port", "file:///path") or
    store= also give the group a key-value store (_get_default_store()), which every rank reaches before this
    returns."""
    global _finalize_registered
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = Backend(backend if backend is not None else _backends.default_backend())
    if name == Backend.UNDEFINED:
        name = Backend(_backends.default_backend())
    if "nccl" in _backends.parse(name).values():
        _backends.check_nccl()
    seconds = _seconds(timeout)
    if lib.nb_comm_available(_c_str(_mpi.library())):
        raise DistBackendError(ffi.string(lib.nb_last_error_message()).decode())
    out = ffi.new("nb_comm**")
    st = lib.nb_comm_init_mpi(_c_str(_mpi.library()), seconds, out)
    if st:
        raise_for(st)
    comm = out[0]
    got_rank, got_size = lib.nb_comm_rank(comm), lib.nb_comm_size(comm)
    for what, wanted, got in (("RANK", rank if rank >= 0 else _env_int("RANK"), got_rank),
                              ("WORLD_SIZE", world_size if world_size > 0 else _env_int("WORLD_SIZE"), got_size)):
        if wanted is not None and wanted != got:
            lib.nb_comm_release(comm)
            raise ValueError(f"init_process_group: {what} is {wanted} but MPI started this process as rank "
                             f"{got_rank} of {got_size}; start the processes with `mpiexec -n N` or "
                             "`python -m nabla.distributed.run --nproc-per-node N`")
    global _default_store
    try:
        _default_store = default_store(init_method, store, got_rank, got_size, datetime.timedelta(seconds=seconds))
    except BaseException:
        lib.nb_comm_release(comm)
        raise
    GroupMember.WORLD = ProcessGroup(comm, list(range(got_size)), str(name),
                                     timeout if timeout is not None else default_pg_timeout)
    _groups.append(GroupMember.WORLD)
    if device_id is not None and GroupMember.WORLD._engines.get("cuda") == "nccl":
        from .. import device as _device
        index = device_id if isinstance(device_id, int) else _device(device_id).index
        GroupMember.WORLD._nccl_comm(0 if index is None else index)
    if not _finalize_registered:
        atexit.register(_finalize)
        sys.excepthook = _abort_on_uncaught(sys.excepthook)
        _finalize_registered = True


def _abort_on_uncaught(previous):
    """An uncaught exception on one rank stops every rank at once (MPI_Abort) instead of leaving the others
    waiting in their next collective until the timeout."""
    def hook(kind, value, tb):
        previous(kind, value, tb)
        world = GroupMember.WORLD
        if world is not None and world._c is not None and world.size() > 1:
            sys.stderr.flush()
            lib.nb_comm_abort(world._c, 1)
    return hook


def _finalize() -> None:
    """At exit: a barrier (bounded by the group's timeout) so that MPI_Finalize, which waits for every
    process, is only called when every rank got there; otherwise the process ends without it."""
    world = GroupMember.WORLD
    together = world is None or world._c is None or lib.nb_comm_barrier(world._c, ffi.NULL) == 0
    for g in list(_groups):
        _destroy(g)
    if not together:
        return
    for stream in (sys.stdout, sys.stderr):  # before MPI ends: the process manager may stop forwarding output
        try:
            stream.flush()
        except (AttributeError, ValueError, OSError):
            pass
    if lib.nb_comm_finalize():
        warnings.warn(ffi.string(lib.nb_last_error_message()).decode(), RuntimeWarning)


def _destroy(g: ProcessGroup) -> None:
    for comm in g._nccl.values():
        lib.nb_comm_release(comm)
    g._nccl = {}
    if g._c is not None:
        lib.nb_comm_release(g._c)
        g._c = None
    if g in _groups:
        _groups.remove(g)


def destroy_process_group(group=None) -> None:
    """Destroys a group, or with no argument every group and the default one (a new init_process_group may
    follow). Collectives on a destroyed group raise."""
    if group is None or group is GroupMember.WORLD:
        if GroupMember.WORLD is None:
            raise ValueError(_NOT_INIT)
        for g in list(_groups):
            _destroy(g)
        GroupMember.WORLD = None
        global _default_store
        _default_store = None
    elif group is not GroupMember.NON_GROUP_MEMBER:
        _destroy(group)


def _get_default_store():
    """The default group's store (init_process_group's init_method or store)."""
    if GroupMember.WORLD is None:
        raise ValueError(_NOT_INIT)
    if _default_store is None:
        raise RuntimeError("the default process group has no store: nabla's MPI backend needs none; pass "
                           "init_method (env://, tcp://host:port, file://path) or store= to init_process_group")
    return _default_store


def _group(group) -> ProcessGroup:
    if GroupMember.WORLD is None:
        raise ValueError(_NOT_INIT)
    g = GroupMember.WORLD if group is None else group
    if not isinstance(g, ProcessGroup):
        raise TypeError(f"expected a ProcessGroup, got {type(g).__name__}")
    g._live()
    return g


def _is_member(group) -> bool:
    if group is GroupMember.NON_GROUP_MEMBER:
        if GroupMember.WORLD is None:
            raise ValueError(_NOT_INIT)
        return False
    return True


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """A group of the given global ranks (all by default). Every rank of the default group must call it, in the
    same order; a rank outside `ranks` gets GroupMember.NON_GROUP_MEMBER."""
    world = _group(None)
    if backend is not None and "nccl" in _backends.parse(str(Backend(backend))).values():
        _backends.check_nccl()
    size = world.size()
    members = sorted(set(range(size) if ranks is None else ranks))
    for r in members:
        if not 0 <= r < size:
            raise ValueError(f"Invalid rank {r}, the ranks of a new group must be in [0, {size})")
    me = world.rank()
    g = _split(world, 0 if me in members else -1, me, members, backend, timeout)
    return GroupMember.NON_GROUP_MEMBER if g is None else g


def _split(parent: ProcessGroup, color: int, key: int, members: list, backend, timeout):
    """The group of parent's ranks that pass the same color (members: its global ranks, in key order), or None
    for a caller that passes color -1. Collective over parent."""
    out = ffi.new("nb_comm**")
    st = lib.nb_comm_split(parent._live(), color, key, out)
    if st:
        raise_for(st)
    if out[0] == ffi.NULL:
        return None
    if timeout is not None:
        lib.nb_comm_set_timeout(out[0], _seconds(timeout))
    g = ProcessGroup(out[0], list(members), parent._backend if backend is None else str(Backend(backend)),
                     parent._timeout if timeout is None else timeout)
    _groups.append(g)
    return g


def get_rank(group=None) -> int:
    if not _is_member(group):
        return -1
    return _group(group).rank()


def get_world_size(group=None) -> int:
    if not _is_member(group):
        return -1
    return _group(group).size()


def get_backend(group=None) -> str:
    return _group(group)._backend


def get_process_group_ranks(group) -> list[int]:
    return list(_group(group)._ranks)


def get_global_rank(group, group_rank: int) -> int:
    ranks = _group(group)._ranks
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {ranks}")
    return ranks[group_rank]


def get_group_rank(group, global_rank: int) -> int:
    ranks = _group(group)._ranks
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {ranks}")
    return ranks.index(global_rank)


def _peer(g: ProcessGroup, name: str, rank, group_rank) -> int:
    """The group rank a call means by its global `rank` or its `group_rank` argument."""
    if rank is not None and group_rank is not None:
        raise ValueError(f"Can not specify both {name} and group_{name}")
    if group_rank is not None:
        return group_rank
    if rank is None:
        return 0
    if rank not in g._ranks:
        raise ValueError(f"Global rank {rank} is not part of group {g._ranks}")
    return g._ranks.index(rank)


def _h(t, name="tensor"):
    try:
        return t._h
    except AttributeError:
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type nabla.Tensor\n"
                        f"             but got {type(t)} instead.") from None


def _run(call, async_op: bool, result=None, outputs=None):
    """Calls call(work_ptr) blocking (work_ptr NULL) or asynchronously, returning None or a Work (whose
    result() and future hold `outputs`, the tensors the call writes)."""
    if not async_op:
        st = call(ffi.NULL)
        if st:
            raise_for(st)
        return None
    out = ffi.new("nb_work**")
    st = call(out)
    if st:
        raise_for(st)
    return Work(out[0], result, outputs)


def _op(op) -> int:
    value = int(op)
    if value == RedOpType.PREMUL_SUM and not _premul.is_premul(op):
        raise ValueError("ReduceOp.PREMUL_SUM needs its factor: pass dist._make_nccl_premul_sum(factor)")
    return RedOpType.SUM if value == RedOpType.PREMUL_SUM else value


def _scaled(tensor, op):
    """tensor times a PREMUL_SUM op's factor (a new tensor of tensor's dtype), else tensor itself."""
    return tensor * _premul.factor_for(op, tensor) if _premul.is_premul(op) else tensor


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduces tensor across the group in place (every rank gets the result)."""
    if not _is_member(group):
        return None
    g, code = _group(group), _op(op)
    if _premul.is_premul(op):
        tensor.mul_(_premul.factor_for(op, tensor))
    h, c = _h(tensor), g._comm(tensor)
    return _run(lambda w: lib.nb_comm_all_reduce(c, h, code, w), async_op, outputs=[tensor])


def broadcast(tensor, src=None, group=None, async_op: bool = False, group_src=None):
    """Copies tensor from rank src (global rank) to every rank of the group."""
    if not _is_member(group):
        return None
    g, h = _group(group), _h(tensor)
    root, c = _peer(g, "src", src, group_src), g._comm(tensor)
    return _run(lambda w: lib.nb_comm_broadcast(c, h, root, w), async_op, outputs=[tensor])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op: bool = False, group_dst=None):
    """Reduces tensor across the group; only rank dst's tensor receives the result."""
    if not _is_member(group):
        return None
    g, code = _group(group), _op(op)
    root, c = _peer(g, "dst", dst, group_dst), g._comm(tensor)
    scaled = _scaled(tensor, op)  # PREMUL_SUM: reduced from a copy, which reaches tensor on dst only
    h = _h(scaled)
    if scaled is tensor:
        return _run(lambda w: lib.nb_comm_reduce(c, h, root, code, w), async_op, outputs=[tensor])
    pairs = [(tensor, scaled)] if g.rank() == root else []
    return _with_copies(lambda w: lib.nb_comm_reduce(c, h, root, code, w), async_op, pairs)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op: bool = False):
    """Concatenates every rank's input_tensor (in rank order) into output_tensor on every rank."""
    if not _is_member(group):
        return None
    g, o, i = _group(group), _h(output_tensor, "output_tensor"), _h(input_tensor, "input_tensor")
    c = g._comm(input_tensor)
    return _run(lambda w: lib.nb_comm_all_gather(c, o, i, w), async_op, outputs=[output_tensor])


_all_gather_base = all_gather_into_tensor
all_gather_single = all_gather_into_tensor  # output: the inputs concatenated or stacked along dim 0


def all_gather(tensor_list, tensor, group=None, async_op: bool = False):
    """tensor_list[r] receives rank r's tensor on every rank."""
    if not _is_member(group):
        return None
    g, i = _group(group), _h(tensor)
    hs = ffi.new("nb_tensor*[]", [_h(t, "tensor_list") for t in tensor_list])
    n, c = len(tensor_list), g._comm(tensor)
    return _run(lambda w: lib.nb_comm_all_gather_list(c, hs, n, i, w), async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op: bool = False):  # noqa: A002
    """Reduces input across the group and gives rank r the r-th equal piece (dim 0) in output."""
    if not _is_member(group):
        return None
    g, o, code = _group(group), _h(output, "output"), _op(op)
    _h(input, "input")
    scaled, c = _scaled(input, op), g._comm(input)
    i = scaled._h
    return _run(lambda w: lib.nb_comm_reduce_scatter(c, o, i, code, w), async_op, scaled, [output])


_reduce_scatter_base = reduce_scatter_tensor
reduce_scatter_single = reduce_scatter_tensor  # output: one piece; input: the pieces concatenated or stacked


def _cat(tensors):
    from .. import cat
    return cat([t.reshape(-1) for t in tensors])


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduces input_list[r] across the group into rank r's output."""
    if not _is_member(group):
        return None
    g = _group(group)
    if len(input_list) != g.size():
        raise ValueError(f"reduce_scatter: input_list must have one tensor per rank ({g.size()}), "
                         f"got {len(input_list)}")
    for t in input_list:
        if t.numel() != output.numel():
            raise ValueError(f"reduce_scatter: every input must have output's {output.numel()} elements, "
                             f"got one of {t.numel()}")
    return reduce_scatter_tensor(output, _cat(input_list), op, group, async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op: bool = False, group_dst=None):
    """gather_list[r] on rank dst receives rank r's tensor (gather_list is only given on dst)."""
    if not _is_member(group):
        return None
    g, i = _group(group), _h(tensor)
    root = _peer(g, "dst", dst, group_dst)
    from .. import empty
    if g.rank() == root:
        if gather_list is None or len(gather_list) != g.size():
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        flat = empty(g.size() * tensor.numel(), dtype=tensor.dtype, device=tensor.device)
        views = [flat[r * tensor.numel():(r + 1) * tensor.numel()].view(t.shape) for r, t in enumerate(gather_list)]
        pairs = list(zip(gather_list, views))
        o = flat._h
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    else:
        o, pairs = ffi.NULL, []

    c = g._comm(tensor)

    def call(w):
        return lib.nb_comm_gather(c, o, i, root, w)

    return _with_copies(call, async_op, pairs)


def _with_copies(call, async_op, pairs):
    """Runs call, then copies each staged (dst, src) pair when it completes (at wait() for async calls)."""
    work = _run(call, async_op)
    if not pairs:
        return work
    if work is None:
        for dst, src in pairs:
            dst.copy_(src)
        return None
    return _CopyingWork(work, pairs)


class _CopyingWork(Work):
    """A Work whose results reach the caller's tensors by a copy once it completes."""

    def __init__(self, inner: Work, pairs) -> None:
        self._w, self._result, self._outputs, self._exc, self._done = inner._w, None, None, None, False
        self._inner, self._pairs = inner, pairs

    def wait(self, timeout=None) -> bool:
        self._inner.wait(timeout)
        for dst, src in self._pairs:
            dst.copy_(src)
        self._pairs = []
        return True

    def is_completed(self) -> bool:
        return self._inner.is_completed()

    def exception(self):
        return self._inner.exception()


def scatter(tensor, scatter_list=None, src=None, group=None, async_op: bool = False, group_src=None):
    """Rank r's tensor receives scatter_list[r] of rank src (scatter_list is only given on src)."""
    if not _is_member(group):
        return None
    g, o = _group(group), _h(tensor)
    root = _peer(g, "src", src, group_src)
    if g.rank() == root:
        if scatter_list is None or len(scatter_list) != g.size():
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        flat = _cat(scatter_list)
        i = flat._h
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    else:
        flat, i = None, ffi.NULL
    c = g._comm(tensor)
    return _run(lambda w: lib.nb_comm_scatter(c, o, i, root, w), async_op, flat)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,  # noqa: A002
                      group=None, async_op: bool = False):
    """Splits input along dim 0 (equally, or by input_split_sizes), sends piece r to rank r and receives the
    pieces of every rank, in rank order, into output (split by output_split_sizes)."""
    if not _is_member(group):
        return None
    g, o, i = _group(group), _h(output, "output"), _h(input, "input")
    n = g.size()

    def splits(s, name):
        if s is None or len(s) == 0:
            return ffi.NULL
        if len(s) != n:
            raise ValueError(f"all_to_all_single: {name} must have one size per rank ({n}), got {len(s)}")
        return ffi.new("int64_t[]", [int(x) for x in s])

    os_, is_ = splits(output_split_sizes, "output_split_sizes"), splits(input_split_sizes, "input_split_sizes")
    if (os_ == ffi.NULL) != (is_ == ffi.NULL):  # one given: the other is the equal split
        rows_o, rows_i = (output.shape[0] if output.dim() else 1), (input.shape[0] if input.dim() else 1)
        if os_ == ffi.NULL:
            os_ = ffi.new("int64_t[]", [rows_o // n] * n)
        else:
            is_ = ffi.new("int64_t[]", [rows_i // n] * n)
    c = g._comm(input)
    return _run(lambda w: lib.nb_comm_all_to_all(c, o, i, os_, is_, 0 if os_ == ffi.NULL else n, w), async_op,
                (os_, is_))


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op: bool = False):
    """Rank r's output_tensor_list[s] receives rank s's input_tensor_list[r]."""
    if not _is_member(group):
        return None
    g = _group(group)
    n = g.size()
    if len(output_tensor_list) != n or len(input_tensor_list) != n:
        raise ValueError(f"all_to_all: both lists must have one tensor per rank ({n})")
    from .. import empty
    flat_in = _cat(input_tensor_list)
    flat_out = empty(sum(t.numel() for t in output_tensor_list), dtype=flat_in.dtype, device=flat_in.device)
    o_s, i_s = [t.numel() for t in output_tensor_list], [t.numel() for t in input_tensor_list]
    offs = [sum(o_s[:r]) for r in range(n)]
    pairs = [(t, flat_out[offs[r]:offs[r] + o_s[r]].view(t.shape)) for r, t in enumerate(output_tensor_list)]
    os_, is_ = ffi.new("int64_t[]", o_s), ffi.new("int64_t[]", i_s)

    c = g._comm(flat_in)

    def call(w):
        return lib.nb_comm_all_to_all(c, flat_out._h, flat_in._h, os_, is_, n, w)

    return _with_copies(call, async_op, pairs)


def _p2p_rank(g, name, rank, group_rank):
    if rank is None and group_rank is None:
        raise ValueError(f"{name} rank must be given (nabla's MPI backend does not receive from any source)")
    return _peer(g, name, rank, group_rank)


def isend(tensor, dst=None, group=None, tag: int = 0, group_dst=None):
    """Starts sending tensor to rank dst; returns a Work."""
    if not _is_member(group):
        return None
    g, h = _group(group), _h(tensor)
    peer, c = _p2p_rank(g, "dst", dst, group_dst), g._comm(tensor)
    return _run(lambda w: lib.nb_comm_send(c, h, peer, tag, w), True)


def irecv(tensor, src=None, group=None, tag: int = 0, group_src=None):
    """Starts receiving into tensor from rank src; returns a Work."""
    if not _is_member(group):
        return None
    g, h = _group(group), _h(tensor)
    peer, c = _p2p_rank(g, "src", src, group_src), g._comm(tensor)
    return _run(lambda w: lib.nb_comm_recv(c, h, peer, tag, w), True, g._ranks[peer])


def send(tensor, dst=None, group=None, tag: int = 0, group_dst=None) -> None:
    """Sends tensor to rank dst and waits until it has gone."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag: int = 0, group_src=None) -> int:
    """Receives into tensor from rank src; returns the sender's rank (-1 outside the group)."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    return work._result


class P2POp:
    """A send or receive for batch_isend_irecv: P2POp(isend or irecv, tensor, peer, group=None, tag=0)."""

    def __init__(self, op, tensor, peer=None, group=None, tag: int = 0, group_peer=None) -> None:
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        self.op, self.tensor, self.peer, self.group = op, tensor, peer, group
        self.tag, self.group_peer = tag, group_peer


def batch_isend_irecv(p2p_op_list) -> list:
    """Starts every send and receive of the list (all on one group); returns their Works. On an nccl group (CUDA
    tensors) they go to NCCL as one group call and one Work covers them all, as torch's coalesced batch."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type ``torch.distributed.P2POp``.")
    group = p2p_op_list[0].group
    if not all(group == p.group for p in p2p_op_list):
        raise ValueError("All ops need to use the same group.")
    if not _is_member(group):
        return []
    g = _group(group)
    if g._engines.get(p2p_op_list[0].tensor.device.type) != "nccl":  # MPI: one request (and Work) per op
        return [p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer) for p in p2p_op_list]
    c = g._comm(p2p_op_list[0].tensor)
    kinds = ffi.new("int32_t[]", [lib.NB_P2P_SEND if p.op is isend else lib.NB_P2P_RECV for p in p2p_op_list])
    tensors = ffi.new("nb_tensor*[]", [_h(p.tensor) for p in p2p_op_list])
    peers = ffi.new("int32_t[]", [_p2p_rank(g, "peer", p.peer, p.group_peer) for p in p2p_op_list])
    tags = ffi.new("int32_t[]", [p.tag for p in p2p_op_list])
    n = len(p2p_op_list)
    return [_run(lambda w: lib.nb_comm_batch_isend_irecv(c, n, kinds, tensors, peers, tags, w), True,
                 (kinds, tensors, peers, tags))]


def barrier(group=None, async_op: bool = False, device_ids=None):
    """Returns once every rank of the group has called it."""
    if not _is_member(group):
        return None
    c = _group(group)._barrier_comm()
    return _run(lambda w: lib.nb_comm_barrier(c, w), async_op)


def monitored_barrier(group=None, timeout=None, wait_all_ranks: bool = False) -> None:
    """A barrier that fails (DistBackendError) when the ranks do not all arrive within timeout."""
    g = _group(group)
    if timeout is not None:
        lib.nb_comm_set_timeout(g._c, _seconds(timeout))
    try:
        barrier(g)
    finally:
        if timeout is not None and g._c is not None:
            lib.nb_comm_set_timeout(g._c, _seconds(g._timeout))


class DebugLevel(enum.IntEnum):
    """What NABLA_DISTRIBUTED_DEBUG (or TORCH_DISTRIBUTED_DEBUG) asks for: DETAIL checks every collective's
    arguments across ranks."""
    OFF = 0
    INFO = 1
    DETAIL = 2


def get_debug_level() -> DebugLevel:
    value = os.environ.get("NABLA_DISTRIBUTED_DEBUG") or os.environ.get("TORCH_DISTRIBUTED_DEBUG") or "OFF"
    return DebugLevel.__members__.get(value.upper(), DebugLevel.OFF)


def is_xccl_available() -> bool:
    return False


def get_pg_count() -> int:
    """The number of live process groups (the default one included)."""
    return len(_groups)


def get_node_local_rank(fallback_rank=None) -> int:
    """LOCAL_RANK (set by nabla.distributed.run), else MPICH's MPI_LOCALRANKID, else fallback_rank."""
    for name in ("LOCAL_RANK", "MPI_LOCALRANKID"):
        if os.environ.get(name):
            return int(os.environ[name])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device context "
                       "and want the code to run locally instead.")
