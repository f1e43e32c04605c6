"""Several groups at once (torch's new_subgroups, new_subgroups_by_enumeration, split_group), over
distributed_c10d's groups: each is an MPI split of its parent, so every rank of the parent calls them."""
from __future__ import annotations

from . import _backends
from . import distributed_c10d as c10d


def new_subgroups_by_enumeration(ranks_per_subgroup_list, timeout=None, backend=None, pg_options=None,
                                 group_desc=None):
    """One group per list of global ranks (the lists may not overlap; a rank may be in none). Returns (the
    caller's subgroup or None, every subgroup made), as torch."""
    if not ranks_per_subgroup_list:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    subgroups, mine, seen = [], None, {}
    me = c10d.get_rank()
    for ranks in ranks_per_subgroup_list:
        subgroup = c10d.new_group(ranks=ranks, timeout=timeout, backend=backend, pg_options=pg_options,
                                  group_desc=group_desc)
        subgroups.append(subgroup)
        for rank in ranks:
            if rank in seen:
                raise ValueError(f"Rank {rank} has appeared in both subgroup {seen[rank]} and {ranks}")
            seen[rank] = ranks
            if rank == me:
                mine = subgroup
    return mine, subgroups


def new_subgroups(group_size=None, group=None, timeout=None, backend=None, pg_options=None, group_desc=None):
    """Consecutive groups of group_size ranks of group (by default one per machine: the number of CUDA
    devices). Returns (the caller's subgroup, every subgroup made)."""
    if group_size is None:
        from .. import cuda
        if not cuda.is_available():
            raise ValueError("Default group size only takes effect when CUDA is available.If your subgroup using a "
                             "backend that does not depend on CUDA,please pass in 'group_size' correctly.")
        group_size = cuda.device_count()
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    world_size = c10d.get_world_size(group)
    if world_size < group_size:
        raise ValueError(f"The arg 'group_size' ({group_size}) must not exceed the world size ({world_size})")
    if world_size % group_size != 0:
        raise ValueError(f"The world size ({world_size}) must be divisible by '{group_size=}'")
    ranks = c10d.get_process_group_ranks(group)
    return new_subgroups_by_enumeration([ranks[i:i + group_size] for i in range(0, len(ranks), group_size)],
                                        timeout=timeout, backend=backend, pg_options=pg_options,
                                        group_desc=group_desc)


def split_group(parent_pg=None, split_ranks=None, timeout=None, pg_options=None, group_desc=None, backend=None):
    """Splits parent_pg (the default group) into the groups split_ranks lists, in parent group ranks, with one
    collective over the parent. Returns the caller's group, or None when it is in no list."""
    if not split_ranks:
        raise ValueError("split_ranks cannot be None or empty")
    parent = c10d._group(parent_pg)
    size, me = parent.size(), parent.rank()
    mine, color = None, -1
    for index, ranks in enumerate(split_ranks):
        if len(ranks) == 0:
            raise ValueError("the split group cannot be empty")
        if len(ranks) > c10d.get_world_size():
            raise ValueError("the split group's size should be less or equal to the world_size set by "
                             "init_process_group")
        if len(ranks) != len(set(ranks)):
            raise ValueError("the split group cannot have duplicate ranks")
        if any(not 0 <= r < size for r in ranks):
            raise ValueError(f"split_group: the ranks of a split are group ranks of the parent, in [0, {size}); "
                             f"got {sorted(ranks)}")
        if mine is None and me in ranks:
            mine, color = sorted(ranks), index
    if backend is not None:
        parent_engines, wanted = _backends.parse(parent._backend), _backends.parse(str(c10d.Backend(backend)))
        for device, engine in wanted.items():
            if parent_engines.get(device) != engine:
                raise ValueError(f"Requested backend for device '{device}' is not present in the parent process "
                                 f"group (parent backends: {parent._backend})")
    members = [parent._ranks[r] for r in mine] if mine is not None else []
    return c10d._split(parent, color, mine.index(me) if mine is not None else me, members, backend, timeout)
