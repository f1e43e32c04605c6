"""Strided views shared by the device tests: the same layout of one array as a
nabla tensor on a device and as a PyTorch CPU tensor, to compare the two."""
from __future__ import annotations

import nabla


def view(t, layout, shape):
    """layout: "t" transposes the last two dims, "s" takes every other row,
    "e" expands size-1 dims to 3, anything else leaves t as it is."""
    if layout == "t":
        return t.transpose(-1, -2)
    if layout == "s":
        return t[::2]
    if layout == "e":
        return t.expand(*[s if s != 1 else 3 for s in shape])
    return t


def pair(arr, layout, shape, nd, td, device):
    """The same strided view as a nabla tensor (dtype nd) on device and a torch CPU tensor (dtype td)."""
    import torch
    x = nabla.tensor(arr).to(nd).to(device)
    t = torch.tensor(arr).to(td)
    return view(x, layout, shape), view(t, layout, shape)
