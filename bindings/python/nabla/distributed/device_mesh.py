"""DeviceMesh and init_device_mesh (torch.distributed.device_mesh): the ranks laid out as an N-D array, with one
process group per mesh dimension (the ranks that differ only in that coordinate). Each dimension's groups are
made by one MPI split of the default group, so every rank calls DeviceMesh / init_device_mesh; slicing by
name (mesh["dp"]) reuses them."""
from __future__ import annotations

import math

import numpy as np

from . import distributed_c10d as c10d


class DeviceMesh:
    """DeviceMesh(device_type, mesh, mesh_dim_names=None): mesh is an N-D array of global ranks (a tensor or
    nested lists); each rank belongs to one group per dimension."""

    def __init__(self, device_type: str, mesh=None, *, mesh_dim_names=None, backend_override=None,
                 _init_backend: bool = True, _groups=None) -> None:
        if ":" in str(device_type):
            raise ValueError(f"Device type with index is not supported but got {device_type}. If you maintained a "
                             "'torch.device' object, it's recommended to pass in 'device.type'.")
        from .. import int64, tensor
        ranks = np.asarray(mesh.tolist() if hasattr(mesh, "tolist") else mesh, dtype=np.int64)
        if ranks.ndim == 0 or ranks.size == 0:
            raise ValueError(f"DeviceMesh: mesh must be a non-empty array of ranks, got {mesh!r}")
        if len(set(ranks.ravel().tolist())) != ranks.size:
            raise ValueError(f"DeviceMesh: mesh must not repeat a rank, got {ranks.tolist()}")
        if mesh_dim_names is not None:
            mesh_dim_names = tuple(mesh_dim_names)
            if len(mesh_dim_names) != ranks.ndim:
                raise ValueError(f"mesh_dim_names should have the mesh's {ranks.ndim} dimensions, got "
                                 f"{len(mesh_dim_names)}: {mesh_dim_names}")
            if len(set(mesh_dim_names)) != len(mesh_dim_names):
                raise RuntimeError(f"Each mesh_dim_name must be unique. Found repeated mesh_dim_name in "
                                   f"mesh_dim_names {mesh_dim_names}")
        self.device_type = str(device_type)
        self.mesh = tensor(ranks.tolist(), dtype=int64)
        self.mesh_dim_names = mesh_dim_names
        self._ranks = ranks
        self._rank = c10d.get_rank()
        where = np.argwhere(ranks == self._rank)
        self._coordinate = [int(c) for c in where[0]] if len(where) else None
        if _groups is not None:
            self._dim_groups = list(_groups)
        elif _init_backend:
            self._dim_groups = [self._make_group(d) for d in range(ranks.ndim)]
        else:
            self._dim_groups = []

    def _make_group(self, dim: int):
        """The group of this rank's line along dim (one split of the default group: color = the line)."""
        lines = np.moveaxis(self._ranks, dim, -1).reshape(-1, self._ranks.shape[dim])  # [lines, size along dim]
        color, key, members = -1, self._rank, []
        for index, line in enumerate(lines.tolist()):
            if self._rank in line:
                color, key, members = index, line.index(self._rank), line
        return c10d._split(c10d._group(None), color, key, members, None, None)

    # ---- shape ----

    @property
    def ndim(self) -> int:
        return self._ranks.ndim

    @property
    def shape(self) -> tuple:
        return tuple(self._ranks.shape)

    def size(self, mesh_dim=None) -> int:
        return int(self._ranks.size) if mesh_dim is None else int(self._ranks.shape[self._dim(mesh_dim)])

    def _dim(self, mesh_dim) -> int:
        if isinstance(mesh_dim, str):
            if not self.mesh_dim_names or mesh_dim not in self.mesh_dim_names:
                raise KeyError(f"Mesh dimension '{mesh_dim}' does not exist. Available mesh dimensions are: "
                               f"mesh_dim_names={self.mesh_dim_names}")
            return self.mesh_dim_names.index(mesh_dim)
        if not -self.ndim <= mesh_dim < self.ndim:
            raise IndexError(f"mesh_dim {mesh_dim} is out of range for a {self.ndim}-D mesh")
        return mesh_dim % self.ndim

    # ---- this rank ----

    def get_rank(self) -> int:
        """This process's global rank."""
        return self._rank

    def get_coordinate(self):
        """This rank's index in the mesh (a list, one entry per dimension), or None when it is not in it."""
        return None if self._coordinate is None else list(self._coordinate)

    def get_local_rank(self, mesh_dim=None) -> int:
        """This rank's coordinate along mesh_dim (its rank in that dimension's group)."""
        if mesh_dim is None:
            if self.ndim != 1:
                raise RuntimeError(f"Optional kwarg `mesh_dim` needs to be specified when device_mesh.ndim > 1. "
                                   f"Found device_mesh.ndim = {self.ndim}.")
            mesh_dim = 0
        if self._coordinate is None:
            raise RuntimeError(f"rank {self._rank} is not part of the mesh {self._ranks.tolist()}")
        return self._coordinate[self._dim(mesh_dim)]

    def get_group(self, mesh_dim=None):
        """The process group of mesh_dim (an index or a name; may be left out for a 1-D mesh)."""
        if not self._dim_groups:
            raise RuntimeError("DeviceMesh process groups not initialized!")
        if mesh_dim is None:
            if self.ndim != 1:
                raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions. Optional kwarg `mesh_dim` "
                                   "needs to be specified when device_mesh.ndim > 1. If you want to get the list "
                                   "of all the ProcessGroups in the DeviceMesh, please use `get_all_groups()` "
                                   "instead.")
            mesh_dim = 0
        return self._dim_groups[self._dim(mesh_dim)]

    def get_all_groups(self) -> list:
        return list(self._dim_groups)

    # ---- slicing ----

    def __getitem__(self, names):
        """The sub-mesh of the named dimensions through this rank (mesh["dp"], mesh["dp", "tp"]); it shares
        this mesh's groups."""
        names = (names,) if isinstance(names, str) else tuple(names)
        dims = [self._dim(n) for n in names]
        if dims != sorted(dims):
            raise KeyError(f"Invalid mesh_dim_names {names} specified. The mesh dims must be in the order of the "
                           f"mesh's {self.mesh_dim_names}")
        if self._coordinate is None:
            raise RuntimeError(f"rank {self._rank} is not part of the mesh {self._ranks.tolist()}")
        index = tuple(slice(None) if d in dims else c for d, c in enumerate(self._coordinate))
        return DeviceMesh(self.device_type, self._ranks[index], mesh_dim_names=names,
                          _groups=[self._dim_groups[d] for d in dims] if self._dim_groups else None,
                          _init_backend=False)

    def __repr__(self) -> str:
        names = f", mesh_dim_names={self.mesh_dim_names}" if self.mesh_dim_names else ""
        return f"DeviceMesh('{self.device_type}', {self._ranks.tolist()}{names})"

    def __eq__(self, other) -> bool:
        return (isinstance(other, DeviceMesh) and self.device_type == other.device_type
                and np.array_equal(self._ranks, other._ranks) and self.mesh_dim_names == other.mesh_dim_names)

    def __hash__(self) -> int:
        return hash((self.device_type, self._ranks.tobytes(), self._ranks.shape, self.mesh_dim_names))


def init_device_mesh(device_type: str, mesh_shape, *, mesh_dim_names=None, backend_override=None) -> DeviceMesh:
    """A mesh of mesh_shape over every rank of the default group, in rank order (row-major)."""
    mesh_shape = tuple(int(s) for s in mesh_shape)
    if mesh_dim_names is not None and len(mesh_dim_names) != len(mesh_shape):
        raise RuntimeError(f"mesh_shape and mesh_dim_names should have same length! Found len(mesh_dim_names): "
                           f"{len(mesh_dim_names)} and len(mesh_shape):{len(mesh_shape)}.")
    world = c10d.get_world_size()
    if math.prod(mesh_shape) != world:
        raise RuntimeError(f"init_device_mesh: mesh_shape {mesh_shape} holds {math.prod(mesh_shape)} ranks but the "
                           f"world has {world}")
    return DeviceMesh(device_type, np.arange(world).reshape(mesh_shape), mesh_dim_names=mesh_dim_names,
                      backend_override=backend_override)
