"""nabla.distributed: torch.distributed's process groups and collectives for nabla tensors.

CPU tensors travel over MPI (the MPI-5 ABI library of the `mpich` wheel, loaded at run time; see
docs/distributed.md). Start processes with `python -m nabla.distributed.run --nproc-per-node N script.py`
or `mpiexec -n N python script.py`, then call init_process_group().
"""
from ._grad_bucket import BuiltinCommHookType, GradBucket  # noqa: F401
from ._errors import DistBackendError, DistError, DistNetworkError, DistStoreError  # noqa: F401
from ._objects import all_gather_object, broadcast_object_list, gather_object, scatter_object_list  # noqa: F401
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
    _all_gather_base, _reduce_scatter_base,
)
