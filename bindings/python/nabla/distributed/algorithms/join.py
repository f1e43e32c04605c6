"""Join: training with uneven inputs across ranks (torch.distributed.algorithms.join).

Inside `with Join([ddp_model, ...]):` a rank that has run out of inputs leaves the loop and waits in the
context manager's exit, where it shadows the collectives the other ranks still run each iteration (the
Joinables' join hooks say which: DDP all-reduces zeros for every bucket) until every rank has joined."""
from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from typing import NamedTuple

from .. import distributed_c10d as c10d


class JoinHook:
    """What a Joinable does once its rank has joined: main_hook() once per iteration the other ranks still
    run, post_hook(is_last_joiner) once every rank has joined."""

    def main_hook(self) -> None:
        """Shadows one iteration's collectives."""

    def post_hook(self, is_last_joiner: bool) -> None:
        """Runs after every rank joined; is_last_joiner is True on the ranks that joined last."""


class _JoinConfig(NamedTuple):
    enable: bool
    throw_on_early_termination: bool
    is_first_joinable: bool

    @staticmethod
    def construct_disabled_join_config():
        return _JoinConfig(enable=False, throw_on_early_termination=False, is_first_joinable=False)


class Joinable(ABC):
    """A class whose collectives a joined rank can shadow: join_hook(), join_device, join_process_group."""

    @abstractmethod
    def __init__(self) -> None:
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abstractmethod
    def join_hook(self, **kwargs) -> JoinHook:
        """The hook that shadows this Joinable's collectives (kwargs: those given to Join)."""

    @property
    @abstractmethod
    def join_device(self):
        """The device of the join collectives."""

    @property
    @abstractmethod
    def join_process_group(self):
        """The process group of the join collectives."""


class Join:
    """Join(joinables, enable=True, throw_on_early_termination=False, **kwargs): a context manager under which
    ranks may run different numbers of iterations. With throw_on_early_termination every rank raises as soon
    as one runs out of inputs instead."""

    def __init__(self, joinables: list, enable: bool = True, throw_on_early_termination: bool = False,
                 **kwargs) -> None:
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = joinables
        self._join_hooks = [j.join_hook(**kwargs) for j in joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        for i, j in enumerate(joinables):
            j._join_config = _JoinConfig(enable, throw_on_early_termination, is_first_joinable=i == 0)
        groups = {id(j.join_process_group) for j in joinables}
        if len(groups) > 1:
            raise ValueError("Using join context manager with multiple process groups")
        self._process_group = joinables[0].join_process_group
        self._device = joinables[0].join_device
        self._rank = c10d.get_rank(self._process_group)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        try:
            if not self._enable or kind is not None:
                return  # an exception in the loop propagates as it is
            is_last_joiner = True
            rounds = 0
            while self._count_nonjoined() > 0:
                if rounds == 1000:
                    warnings.warn(f"Detected uneven input skew of greater than 1000. This means that rank "
                                  f"{self._rank} has at least 1000 fewer inputs than other currently-active ranks. "
                                  "This level of skew could lead to performance degradation during training.")
                if self._throw_on_early_termination:
                    self._notify_procs_to_terminate()
                for hook in self._join_hooks:
                    hook.main_hook()
                is_last_joiner = False
                rounds += 1
            for hook in self._join_hooks:
                hook.post_hook(is_last_joiner)
        finally:
            for j in self._joinables:
                j._join_config = _JoinConfig.construct_disabled_join_config()

    def _count_nonjoined(self) -> int:
        """Matches the all-reduce of ones that every rank still training starts in its forward."""
        from ... import zeros
        count = zeros(1, device=self._device)
        c10d.all_reduce(count, group=self._process_group)
        return int(count.item())

    def _notify_procs_to_terminate(self):
        from ... import ones
        c10d.all_reduce(ones(1, device=self._device), group=self._process_group)
        raise RuntimeError(f"Rank {self._rank} exhausted all inputs.")

    @staticmethod
    def notify_join_context(joinable: Joinable):
        """Called by a Joinable at the start of each iteration: the first Joinable of an enabled Join starts
        the all-reduce that counts the ranks still training (its Work is returned), and with
        throw_on_early_termination raises on every rank once one has joined."""
        if not hasattr(joinable, "_join_config"):
            raise RuntimeError(f"Check that the {type(joinable)} constructor calls the ``Joinable`` constructor")
        config = joinable._join_config
        if not config.is_first_joinable or not config.enable:
            return None
        from ... import ones, zeros
        group, device = joinable.join_process_group, joinable.join_device
        work = c10d.all_reduce(ones(1, device=device), group=group, async_op=True)
        if config.throw_on_early_termination:
            flag = zeros(1, device=device)
            c10d.all_reduce(flag, group=group)
            if flag.item():
                raise RuntimeError("Detected at least one rank that exhausted inputs. Throwing across all ranks.")
        return work
