"""Fused optimizer steps, single and over lists, and gradient clipping (abi/ops/optim.json):
PyTorch's formulas in float64, parameters and states checked after one step in place."""
from __future__ import annotations

import math

import numpy as np

from .case import F64, I32, I64, I64S, NULL, OUT, T, TS
from .family import Family

SHAPE = (3, 4)


def state(r, dt, names, positive=()):
    return [(n, dt, r.uniform(0.1, 1, SHAPE) if n in positive else r.uniform(-1, 1, SHAPE)) for n in names]


def sgd(p, g, buf, lr, mom, damp, wd, nesterov, maximize, init):
    g = -g if maximize else g
    g = g + wd * p
    if mom:
        buf = g if init else mom * buf + (1 - damp) * g
        g = g + mom * buf if nesterov else buf
    return {"p": p - lr * g, **({"buf": buf} if mom else {})}


def adam(p, g, m, v, vmax, step, lr, b1, b2, eps, wd, decoupled, amsgrad, maximize):
    g = -g if maximize else g
    if wd:
        if decoupled:
            p = p * (1 - lr * wd)
        else:
            g = g + wd * p
    m = m + (1 - b1) * (g - m)
    v = b2 * v + (1 - b2) * g * g
    out = {"m": m, "v": v}
    if amsgrad:
        vmax = np.maximum(vmax, v)
        out["vmax"] = vmax
    denom = np.sqrt(vmax if amsgrad else v) / math.sqrt(1 - b2 ** step) + eps
    out["p"] = p - lr / (1 - b1 ** step) * m / denom
    return out


def rmsprop(p, g, sq, ga, buf, lr, alpha, eps, wd, mom, centered, maximize):
    g = -g if maximize else g
    g = g + wd * p
    sq = alpha * sq + (1 - alpha) * g * g
    out = {"sq": sq}
    if centered:
        ga = ga + (1 - alpha) * (g - ga)
        out["ga"] = ga
        avg = np.sqrt(sq - ga * ga) + eps
    else:
        avg = np.sqrt(sq) + eps
    if mom > 0:
        buf = mom * buf + g / avg
        out["buf"], out["p"] = buf, p - lr * buf
    else:
        out["p"] = p - lr * g / avg
    return out


def adagrad(p, g, s, step, lr, lr_decay, eps, wd, maximize):
    g = -g if maximize else g
    g = g + wd * p
    clr = lr / (1 + (step - 1) * lr_decay)
    s = s + g * g
    return {"s": s, "p": p - clr * g / (np.sqrt(s) + eps)}


LIST_SHAPES = ((3, 4), (5,))  # two parameters of different shapes per list case


def list_state(r, dt, names, positive=()):
    """Per name, one tensor per parameter (name0, name1), of LIST_SHAPES."""
    return [(f"{n}{i}", dt, r.uniform(0.1, 1, s) if n in positive else r.uniform(-1, 1, s))
            for n in names for i, s in enumerate(LIST_SHAPES)]


def per_tensor(step, names, **values):
    """A single-tensor reference applied to each parameter; outputs named name0, name1."""
    out = {}
    for i in range(len(LIST_SHAPES)):
        res = step(*(values.get(f"{n}{i}") for n in names), i)
        out.update({f"{k}{i}": v for k, v in res.items()})
    return out


def list_cases(fam: Family, dt: str) -> None:
    def ts(n):
        return TS([f"{n}{i}" for i in range(len(LIST_SHAPES))])

    fam.forward("sgd_step_list", dt, "momentum-first", lambda r: (
        list_state(r, dt, ("p", "g", "buf")),
        [ts("p"), ts("g"), ts("buf"), I64(2), F64(0.1), F64(0.9), F64(0.1), F64(0.01), I32(0), I32(0), I32(1)],
        lambda **v: per_tensor(lambda p, g, buf, i: sgd(p, g, buf, 0.1, 0.9, 0.1, 0.01, 0, 0, 1), ("p", "g", "buf"),
                               **v)), tol="accumulate")
    fam.forward("sgd_step_list", dt, "nesterov-maximize", lambda r: (
        list_state(r, dt, ("p", "g", "buf")),
        [ts("p"), ts("g"), ts("buf"), I64(2), F64(0.1), F64(0.9), F64(0.0), F64(0.05), I32(1), I32(1), I32(0)],
        lambda **v: per_tensor(lambda p, g, buf, i: sgd(p, g, buf, 0.1, 0.9, 0.0, 0.05, 1, 1, 0), ("p", "g", "buf"),
                               **v)), tol="accumulate")
    for variant, (wd, dec, ams, steps) in {"l2-steps-1-3": (0.05, 0, 0, (1, 3)),
                                           "adamw-amsgrad-steps-2-5": (0.1, 1, 1, (2, 5))}.items():
        fam.forward("adam_step_list", dt, variant, lambda r, a=(wd, dec, ams, steps): (
            list_state(r, dt, ("p", "g", "m", "v", "vmax"), positive=("v", "vmax")),
            [ts("p"), ts("g"), ts("m"), ts("v"), ts("vmax") if a[2] else NULL, I64S(a[3]), I64(2), F64(1e-2),
             F64(0.9), F64(0.999), F64(1e-8), F64(a[0]), I32(a[1]), I32(a[2]), I32(0)],
            lambda **v: per_tensor(lambda p, g, m, v_, vmax, i: adam(p, g, m, v_, vmax, a[3][i], 1e-2, 0.9, 0.999,
                                                                      1e-8, a[0], a[1], a[2], 0),
                                   ("p", "g", "m", "v", "vmax"), **v)), tol="accumulate")
    fam.forward("rmsprop_step_list", dt, "centered-momentum", lambda r: (
        [(n, d, x * (0.1 if n.startswith("ga") else 1)) for n, d, x in  # keeps sq - ga^2 positive
         list_state(r, dt, ("p", "g", "sq", "ga", "buf"), positive=("sq",))],
        [ts("p"), ts("g"), ts("sq"), ts("ga"), ts("buf"), I64(2), F64(0.01), F64(0.99), F64(1e-8), F64(0.01),
         F64(0.9), I32(1), I32(0)],
        lambda **v: per_tensor(lambda p, g, sq, ga, buf, i: rmsprop(p, g, sq, ga, buf, 0.01, 0.99, 1e-8, 0.01, 0.9,
                                                                    1, 0), ("p", "g", "sq", "ga", "buf"), **v)),
        tol="accumulate")
    fam.forward("adagrad_step_list", dt, "decay-steps-1-4", lambda r: (
        list_state(r, dt, ("p", "g", "s"), positive=("s",)),
        [ts("p"), ts("g"), ts("s"), I64S((1, 4)), I64(2), F64(0.1), F64(0.1), F64(1e-10), F64(0.01), I32(1)],
        lambda **v: per_tensor(lambda p, g, s, i: adagrad(p, g, s, (1, 4)[i], 0.1, 0.1, 1e-10, 0.01, 1),
                               ("p", "g", "s"), **v)), tol="accumulate")
    fam.forward("clip_grad_value_", dt, "clamps", lambda r: (
        [("a", dt, r.uniform(-1, 1, (2, 3))), ("b", dt, r.uniform(-1, 1, (4,)))],
        [TS(["a", "b"]), I32(2), F64(0.5)],
        lambda a, b: {"a": np.clip(a, -0.5, 0.5), "b": np.clip(b, -0.5, 0.5)}), tol="exact")


def list_errors(fam: Family) -> None:
    fam.error("sgd_step_list", "f32", "second-grad-shape", lambda r: (
        [("p0", "f32", np.zeros(3)), ("p1", "f32", np.zeros(4)), ("g0", "f32", np.zeros(3)),
         ("g1", "f32", np.zeros(3))],
        [TS(["p0", "p1"]), TS(["g0", "g1"]), NULL, I64(2), F64(0.1), F64(0), F64(0), F64(0), I32(0), I32(0), I32(0)],
        None), "NB_ERR_SHAPE")
    fam.error("adam_step_list", "f32", "step-zero", lambda r: (
        [("p", "f32", np.zeros(3)), ("g", "f32", np.zeros(3)), ("m", "f32", np.zeros(3)), ("v", "f32", np.zeros(3))],
        [TS(["p"]), TS(["g"]), TS(["m"]), TS(["v"]), NULL, I64S([0]), I64(1), F64(0.1), F64(0.9), F64(0.999),
         F64(1e-8), F64(0), I32(0), I32(0), I32(0)], None), "NB_ERR_INVALID_ARGUMENT")
    fam.error("rmsprop_step_list", "f32", "no-grads", lambda r: (
        [("p", "f32", np.zeros(3)), ("sq", "f32", np.zeros(3))],
        [TS(["p"]), NULL, TS(["sq"]), NULL, NULL, I64(1), F64(0.01), F64(0.99), F64(1e-8), F64(0), F64(0), I32(0),
         I32(0)], None), "NB_ERR_INVALID_ARGUMENT")
    fam.error("adagrad_step_list", "f32", "state-dtype", lambda r: (
        [("p", "f32", np.zeros(3)), ("g", "f32", np.zeros(3)), ("s", "f64", np.zeros(3))],
        [TS(["p"]), TS(["g"]), TS(["s"]), I64S([1]), I64(1), F64(0.1), F64(0), F64(1e-10), F64(0), I32(0)], None),
        "NB_ERR_DTYPE")
    fam.error("clip_grad_value_", "i64", "integer-grad", lambda r: (
        [("a", "i64", np.ones(3))], [TS(["a"]), I32(1), F64(1.0)], None), "NB_ERR_DTYPE")


def cases() -> Family:
    fam = Family("optim")
    for dt in ("f32", "f64"):
        for variant, (mom, damp, wd, nest, maxi, init) in {
                "plain": (0.0, 0.0, 0.0, 0, 0, 0), "momentum-first": (0.9, 0.1, 0.01, 0, 0, 1),
                "nesterov-maximize": (0.9, 0.0, 0.05, 1, 1, 0)}.items():
            fam.forward("sgd_step", dt, variant, lambda r, dt=dt, a=(mom, damp, wd, nest, maxi, init): (
                state(r, dt, ("p", "g", "buf")),
                [T("p"), T("g"), T("buf") if a[0] else NULL, F64(0.1), F64(a[0]), F64(a[1]), F64(a[2]), I32(a[3]),
                 I32(a[4]), I32(a[5])],
                lambda p, g, buf: sgd(p, g, buf, 0.1, *a)), tol="accumulate")
        for variant, (wd, dec, ams, maxi, step) in {
                "plain-step1": (0.0, 0, 0, 0, 1), "adamw-step3": (0.1, 1, 0, 0, 3),
                "l2-amsgrad-maximize-step5": (0.05, 0, 1, 1, 5)}.items():
            fam.forward("adam_step", dt, variant, lambda r, dt=dt, a=(wd, dec, ams, maxi, step): (
                state(r, dt, ("p", "g", "m", "v", "vmax"), positive=("v", "vmax")),
                [T("p"), T("g"), T("m"), T("v"), T("vmax") if a[2] else NULL, I64(a[4]), F64(1e-2), F64(0.9),
                 F64(0.999), F64(1e-8), F64(a[0]), I32(a[1]), I32(a[2]), I32(a[3])],
                lambda p, g, m, v, vmax: adam(p, g, m, v, vmax, a[4], 1e-2, 0.9, 0.999, 1e-8, a[0], a[1], a[2], a[3])),
                tol="accumulate")
        for variant, (wd, mom, cent, maxi) in {"plain": (0.0, 0.0, 0, 0),
                                               "centered-momentum": (0.01, 0.9, 1, 0),
                                               "maximize": (0.0, 0.5, 0, 1)}.items():
            fam.forward("rmsprop_step", dt, variant, lambda r, dt=dt, a=(wd, mom, cent, maxi): (
                [(n, d, x * (0.1 if n == "ga" else 1)) for n, d, x in  # keeps sq - ga^2 positive
                 state(r, dt, ("p", "g", "sq", "ga", "buf"), positive=("sq",))],
                [T("p"), T("g"), T("sq"), T("ga") if a[2] else NULL, T("buf") if a[1] else NULL, F64(0.01), F64(0.99),
                 F64(1e-8), F64(a[0]), F64(a[1]), I32(a[2]), I32(a[3])],
                lambda p, g, sq, ga, buf: rmsprop(p, g, sq, ga, buf, 0.01, 0.99, 1e-8, *a)), tol="accumulate")
        for variant, (decay, wd, maxi, step) in {"step1": (0.0, 0.0, 0, 1), "decay-step4": (0.1, 0.01, 1, 4)}.items():
            fam.forward("adagrad_step", dt, variant, lambda r, dt=dt, a=(decay, wd, maxi, step): (
                state(r, dt, ("p", "g", "s"), positive=("s",)),
                [T("p"), T("g"), T("s"), I64(a[3]), F64(0.1), F64(a[0]), F64(1e-10), F64(a[1]), I32(a[2])],
                lambda p, g, s: adagrad(p, g, s, a[3], 0.1, a[0], 1e-10, a[1], a[2])), tol="accumulate")
        for variant, (max_norm, p) in {"l2-clips": (0.5, 2.0), "inf-no-clip": (100.0, math.inf),
                                       "l1-clips": (1.0, 1.0)}.items():
            fam.forward("clip_grad_norm_", dt, variant, lambda r, dt=dt, max_norm=max_norm, p=p: (
                [("a", dt, r.uniform(-1, 1, (2, 3))), ("b", dt, r.uniform(-1, 1, (4,)))],
                [TS(["a", "b"]), I32(2), F64(max_norm), F64(p), I32(0), OUT("out")],
                lambda a, b: _clip(a, b, max_norm, p)), tol="accumulate")
        for variant, bad in {"finite": None, "inf": np.inf, "nan": np.nan}.items():
            fam.forward("amp_foreach_non_finite_check_and_unscale_", dt, variant, lambda r, dt=dt, bad=bad: (
                [("a", dt, _plant(r.uniform(-1e3, 1e3, (2, 3)), bad)), ("b", dt, r.uniform(-1e3, 1e3, (4,))),
                 ("found", "f32", np.zeros(1)), ("inv", "f32", np.array([0.125]))],
                [TS(["a", "b"]), I32(2), T("found"), T("inv")],
                lambda a, b, found, inv: {"a": a * 0.125, "b": b * 0.125,
                                          "found": np.array([0.0 if bad is None else 1.0])}),
                tol="accumulate", out_dt={"found": "f32"})
    for dt in ("f32", "f64"):
        list_cases(fam, dt)
    list_errors(fam)
    for variant, (scale, tracker, found) in {"backoff": (1024.0, 1, 1.0), "count": (1024.0, 0, 0.0),
                                             "grow": (1024.0, 2, 0.0), "grow-overflow": (3e38, 2, 0.0)}.items():
        fam.forward("amp_update_scale_", "f32", variant, lambda r, a=(scale, tracker, found): (
            [("scale", "f32", np.array([a[0]])), ("tracker", "i32", np.array([a[1]])),
             ("found", "f32", np.array([a[2]]))],
            [T("scale"), T("tracker"), T("found"), F64(2.0), F64(0.5), I64(3)],
            lambda scale, tracker, found: _update_scale(scale, tracker, found, 2.0, 0.5, 3)),
            tol="exact", out_dt={"tracker": "i32"})
    shape_err = lambda names: [(n, "f32", np.zeros(SHAPE if n != "g" else (4, 3))) for n in names]  # noqa: E731
    fam.error("sgd_step", "f32", "shape", lambda r: (shape_err(("p", "g")), [
        T("p"), T("g"), NULL, F64(0.1), F64(0), F64(0), F64(0), I32(0), I32(0), I32(0)], None), "NB_ERR_SHAPE")
    fam.error("adam_step", "f32", "shape", lambda r: (shape_err(("p", "g", "m", "v")), [
        T("p"), T("g"), T("m"), T("v"), NULL, I64(1), F64(0.1), F64(0.9), F64(0.999), F64(1e-8), F64(0), I32(0), I32(0),
        I32(0)], None), "NB_ERR_SHAPE")
    fam.error("rmsprop_step", "f32", "shape", lambda r: (shape_err(("p", "g", "sq")), [
        T("p"), T("g"), T("sq"), NULL, NULL, F64(0.01), F64(0.99), F64(1e-8), F64(0), F64(0), I32(0), I32(0)], None),
        "NB_ERR_SHAPE")
    fam.error("adagrad_step", "f32", "shape", lambda r: (shape_err(("p", "g", "s")), [
        T("p"), T("g"), T("s"), I64(1), F64(0.1), F64(0), F64(1e-10), F64(0), I32(0)], None), "NB_ERR_SHAPE")
    fam.error("clip_grad_norm_", "f32", "nonfinite", lambda r: (
        [("a", "f32", np.array([1.0, np.inf]))], [TS(["a"]), I32(1), F64(1.0), F64(2.0), I32(1), OUT("out")], None),
        "NB_ERR_INVALID_ARGUMENT")
    fam.error("amp_foreach_non_finite_check_and_unscale_", "i64", "integer-grad", lambda r: (
        [("a", "i64", np.ones(3)), ("found", "f32", np.zeros(1)), ("inv", "f32", np.ones(1))],
        [TS(["a"]), I32(1), T("found"), T("inv")], None), "NB_ERR_DTYPE")
    fam.error("amp_update_scale_", "f32", "tracker-dtype", lambda r: (
        [("scale", "f32", np.ones(1)), ("tracker", "f32", np.zeros(1)), ("found", "f32", np.zeros(1))],
        [T("scale"), T("tracker"), T("found"), F64(2.0), F64(0.5), I64(3)], None), "NB_ERR_DTYPE")
    return fam


def _plant(x, bad):
    if bad is not None:
        x[1, 2] = bad
    return x


def _update_scale(scale, tracker, found, growth, backoff, interval):
    """PyTorch's _amp_update_scale_: the new scale rounded to float32, which keeps an overflowing growth out."""
    s, t = float(scale[0]), int(tracker[0])
    if found[0]:
        s, t = s * backoff, 0
    elif t + 1 == interval:
        grown = np.float32(s * growth)
        s, t = (float(grown) if np.isfinite(grown) else s), 0
    else:
        t += 1
    return {"scale": np.array([s]), "tracker": np.array([t])}


def _clip(a, b, max_norm, p):
    flat = np.concatenate([a.reshape(-1), b.reshape(-1)])
    norm = np.max(np.abs(flat)) if p == math.inf else np.sum(np.abs(flat) ** p) ** (1 / p)
    coef = max_norm / (norm + 1e-6)
    scale = coef if coef < 1 else 1.0
    return {"out": np.array(norm), "a": a * scale, "b": b * scale}
