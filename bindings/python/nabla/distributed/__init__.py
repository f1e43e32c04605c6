"""nabla.distributed: torch.distributed's process groups and collectives for nabla tensors.

CPU tensors travel over MPI (the MPI-5 ABI library of the `mpich` wheel, loaded at run time; see
docs/distributed.md). Start processes with `python -m nabla.distributed.run --nproc-per-node N script.py`
or `mpiexec -n N python script.py`, then call init_process_group().
"""
from ._grad_bucket import BuiltinCommHookType, GradBucket  # noqa: F401
from ._errors import DistBackendError, DistError, DistNetworkError, DistStoreError, QueueEmptyError  # noqa: F401
from ._objects import (  # noqa: F401
    all_gather_object, broadcast_object_list, gather_object, recv_object_list, scatter_object_list, send_object_list,
)
from ._file_store import FileStore  # noqa: F401
from ._store import HashStore, PrefixStore, Store  # noqa: F401
from ._tcp_store import TCPStore  # noqa: F401
from ._work import Work  # noqa: F401
from .distributed_c10d import (  # noqa: F401
    Backend, DebugLevel, GroupMember, P2POp, ProcessGroup, ReduceOp, all_gather, all_gather_into_tensor, all_reduce,
    all_to_all, all_to_all_single, barrier, batch_isend_irecv, broadcast, default_pg_timeout,
    destroy_process_group, gather, get_backend, get_global_rank, get_group_rank, get_process_group_ranks, get_rank,
    get_debug_level, get_node_local_rank, get_pg_count, get_world_size, group, init_process_group, irecv, is_available, is_backend_available, is_gloo_available,
    is_initialized, is_mpi_available, is_nccl_available, is_torchelastic_launched, is_ucc_available, is_xccl_available, isend,
    monitored_barrier, new_group, recv, reduce, reduce_op, reduce_scatter, reduce_scatter_tensor, scatter, send,
    _all_gather_base, _reduce_scatter_base, all_gather_single, reduce_scatter_single,
)
from ._debug import breakpoint, record_comm, set_debug_level, set_debug_level_from_env  # noqa: F401,A004
from ._logger import Logger  # noqa: F401
from ._options import (  # noqa: F401
    AllreduceCoalescedOptions, AllreduceOptions, AllToAllOptions, BackendConfig, BarrierOptions, BroadcastOptions,
    GatherOptions, GroupName, ReduceOptions, ReduceScatterOptions, ScatterOptions, get_backend_config,
    get_default_backend_for_device,
)
from ._premul import _make_nccl_premul_sum  # noqa: F401
from ._rendezvous import register_rendezvous_handler, rendezvous  # noqa: F401
from ._subgroups import new_subgroups, new_subgroups_by_enumeration, split_group  # noqa: F401
from .device_mesh import DeviceMesh, init_device_mesh  # noqa: F401


def __getattr__(name: str):
    if name == "Reducer":  # DistributedDataParallel's reducer, looked up on use: nn.parallel imports this package
        from ..nn.parallel._reducer import Reducer
        return Reducer
    raise AttributeError(f"module 'nabla.distributed' has no attribute '{name}'")
