"""swap_in_optimizer_params_and_state: run an optimizer for a while on other parameters and on a
state_dict()-shaped state, then restore its own (PyTorch's checks and messages)."""
from __future__ import annotations

import contextlib
from collections import defaultdict

from .._tensor import Tensor

__all__ = ["swap_in_optimizer_params_and_state"]

_NAME = "swap_in_optimizer_params_and_state"
_PACKED = f"{_NAME} requires optimizer.state_dict()-style "


def _checked_state(state) -> dict:
    if not isinstance(state, dict):
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['state'] to be a dict mapping packed parameter "
                           f"ids to per-param state dicts, got {type(state).__name__}.")
    if any(isinstance(k, Tensor) for k in state):
        raise RuntimeError(_PACKED + "state keyed by packed parameter ids.")
    if any(isinstance(k, int) and not isinstance(v, dict) for k, v in state.items()):
        raise RuntimeError(f"{_NAME} requires per-parameter optimizer state entries to be dictionaries.")
    return state


def _checked_group_ids(idx: int, live: dict, saved) -> list[int]:
    """The packed parameter ids of saved param group idx, after checking it against the live group."""
    if not isinstance(saved, dict):
        raise RuntimeError(f"{_NAME} requires each optimizer param group to be a dictionary.")
    ids = saved.get("params")
    if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
        raise RuntimeError(_PACKED + "param_groups[*]['params'] entries keyed by packed parameter ids.")
    if len(live["params"]) != len(ids):
        raise RuntimeError(f"swapin_optim_state param group {idx} has a different number of params than the live "
                           "optimizer param group.")
    saved_only = [k for k in saved if k not in live]
    live_only = [k for k in live if k not in saved]
    if saved_only or live_only:
        raise RuntimeError(_PACKED + "param group keys to exactly match the live optimizer group keys for group "
                           f"{idx}. Keys only in swap-in: {saved_only}. Keys only in live: {live_only}.")
    return ids


def _prepare(optimizer, parameters: dict, optim_state) -> tuple[dict, list]:
    """(saved state by packed id, [(live group, saved group, its swap-in parameters)])."""
    if not optimizer.state:
        raise RuntimeError(f"{_NAME} requires initialized optimizer state.")
    if not isinstance(optim_state, dict):
        raise RuntimeError(f"{_NAME} requires a DCP-style optimizer state_dict.")
    state = _checked_state(optim_state.get("state"))
    groups = optim_state.get("param_groups")
    if not isinstance(groups, list):
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['param_groups'] to be a list of param-group dicts, "
                           f"got {type(groups).__name__}.")
    if len(optimizer.param_groups) != len(groups):
        raise RuntimeError("swapin_optim_state has a different number of parameter groups than the live optimizer.")
    flat = list(parameters.values())
    start, seen, plan = 0, set(), []
    for idx, (live, saved) in enumerate(zip(optimizer.param_groups, groups)):
        ids = _checked_group_ids(idx, live, saved)
        seen.update(ids)
        if start + len(ids) > len(flat):
            raise RuntimeError(f"{_NAME} requires the explicit parameter state to match optimizer.param_groups "
                               "ordering.")
        plan.append((live, saved, flat[start:start + len(ids)]))
        start += len(ids)
    extra = [k for k in state if k not in seen]
    if extra:
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['state'] to be keyed only by packed parameter ids "
                           f"from param_groups[*]['params']; got extra keys {extra!r}.")
    return state, plan


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters: dict, swapin_optim_state: dict):
    """Within the block the optimizer steps swapin_parameters (in the order of its own parameters) with the
    options and per-parameter state of swapin_optim_state (a state_dict(): in-place edits of its tensors
    persist, anything else is dropped); on exit its own parameters, options and state come back."""
    state, plan = _prepare(optimizer, swapin_parameters, swapin_optim_state)
    original_state = optimizer.state
    snapshots = [dict(g) for g in optimizer.param_groups]
    try:
        swapped: defaultdict = defaultdict(dict)
        for live, saved, params in plan:
            live.update({k: v for k, v in saved.items() if k != "params"})
            live["params"] = params
            for p, pid in zip(params, saved["params"]):
                swapped[p] = dict(state.get(pid, {}))
        optimizer.state = swapped
        yield
    finally:
        for group, snapshot in zip(optimizer.param_groups, snapshots):
            group.clear()
            group.update(snapshot)
        optimizer.state = original_state
