"""batch_isend_irecv, run by worker.py on every rank: a two-way ring of sends and receives per dtype (strided
tensors, async Works) against NumPy, the C ABI's nb_comm_batch_isend_irecv and torch's errors. On an nccl group
the batch is one NCCL group call under one Work; on MPI one Work per op, as torch's."""
from __future__ import annotations

import numpy as np

import nabla.distributed as dist


def register(check, R, N, dtypes, data, zeros, same, sync):
    nxt, prv = (R + 1) % N, (R - 1) % N
    nccl = dist.get_backend() == "nccl"

    for dtype in dtypes:
        @check("batch_p2p", dtype)
        def _(dtype=dtype):
            to_next, _ = data(dtype, R * 10 + 1)
            base, _ = data(dtype, R * 10 + 2, (3, 8))
            to_prev = base[:, ::2]  # strided source
            from_prev, from_next = zeros(3, 4, dtype=dtype), zeros(4, 3, dtype=dtype).t()  # strided receive
            works = dist.batch_isend_irecv([dist.P2POp(dist.isend, to_next, nxt), dist.P2POp(dist.isend, to_prev, prv),
                                            dist.P2POp(dist.irecv, from_prev, prv),
                                            dist.P2POp(dist.irecv, from_next, nxt)])
            assert len(works) == (1 if nccl else 4), works
            for w in works:
                assert w.wait() is True
            sync()
            assert all(w.is_completed() for w in works)
            same(from_prev, data(dtype, prv * 10 + 1)[1], dtype)  # what prv sent to its next, this rank
            same(from_next, data(dtype, nxt * 10 + 2, (3, 8))[1][:, ::2], dtype)

    @check("batch_p2p", "c-abi")
    def _():
        from nabla._lib import ffi, lib
        out, got = zeros(5, dtype="float32") + R, zeros(5, dtype="float32")
        c = dist.group.WORLD._comm(out)
        kinds = ffi.new("int32_t[]", [lib.NB_P2P_SEND, lib.NB_P2P_RECV])
        tensors = ffi.new("nb_tensor*[]", [out._h, got._h])
        peers = ffi.new("int32_t[]", [nxt, prv])
        work = ffi.new("nb_work**")
        assert lib.nb_comm_batch_isend_irecv(c, 2, kinds, tensors, peers, ffi.NULL, work) == 0
        assert lib.nb_work_wait(work[0]) == 0 and lib.nb_work_wait(work[0]) == 0  # the same result again
        lib.nb_work_release(work[0])
        assert got.tolist() == [float(prv)] * 5, got.tolist()
        for n, k, p, text in [(0, kinds, peers, "expected a non-empty list of sends and receives, got 0"),
                              (2, ffi.new("int32_t[]", [0, 2]), peers, "operation 1 is 2, neither NB_P2P_SEND"),
                              (2, kinds, ffi.new("int32_t[]", [nxt, N]), f"peer rank {N} is out of range")]:
            assert lib.nb_comm_batch_isend_irecv(c, n, k, tensors, p, ffi.NULL, work) == lib.NB_ERR_INVALID_ARGUMENT
            assert text in ffi.string(lib.nb_last_error_message()).decode()

    @check("batch_p2p", "errors-as-torch")
    def _():
        t = zeros(2, dtype="float32")
        for ops, text in [([(dist.isend, t, nxt)], "Each op is expected to to be of type ``torch.distributed.P2POp``"),
                          ([dist.P2POp(dist.isend, t, nxt), dist.P2POp(dist.irecv, t, prv, group=dist.new_group())],
                           "All ops need to use the same group.")]:
            try:
                dist.batch_isend_irecv(ops)
                raise AssertionError(f"no error, expected {text}")
            except ValueError as e:
                assert text in str(e), e
        assert np.array_equal(t.cpu().numpy(), np.zeros(2))
