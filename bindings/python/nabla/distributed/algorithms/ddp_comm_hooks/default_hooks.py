"""The default DDP communication hooks, with torch's semantics: a hook takes (process_group, bucket) and
returns a Future of the reduced bucket; state is the process group (None: the default group)."""
from __future__ import annotations

from ... import distributed_c10d as c10d


def _group(process_group):
    return process_group if process_group is not None else c10d.group.WORLD


def _allreduce_fut(process_group, tensor):
    """Divides by the group size first (no float16 overflow), sums across the group; a Future of tensor."""
    group = _group(process_group)
    tensor.div_(group.size())
    return c10d.all_reduce(tensor, group=group, async_op=True).get_future().then(lambda fut: fut.value()[0])


def allreduce_hook(process_group, bucket):
    """Averages the bucket across the group (what DDP does without a hook)."""
    return _allreduce_fut(process_group, bucket.buffer())


def _compress_hook(dtype, process_group, bucket):
    group = _group(process_group)
    buffer = bucket.buffer()
    compressed = buffer.to(dtype).div_(group.size())

    def decompress(fut):
        buffer.copy_(fut.value()[0])  # in place: no second full-precision copy
        return buffer

    return c10d.all_reduce(compressed, group=group, async_op=True).get_future().then(decompress)


def fp16_compress_hook(process_group, bucket):
    """Casts the bucket to float16, averages it across the group, and casts the result back into the bucket."""
    from .... import float16
    return _compress_hook(float16, process_group, bucket)


def bf16_compress_hook(process_group, bucket):
    """As fp16_compress_hook, in bfloat16."""
    from .... import bfloat16
    return _compress_hook(bfloat16, process_group, bucket)


def _compress_wrapper(dtype, hook):
    def wrapped(hook_state, bucket):
        bucket.set_buffer(bucket.buffer().to(dtype))
        fut = hook(hook_state, bucket)

        def decompress(fut):
            out = bucket.buffer()
            out.copy_(fut.value())
            return out

        return fut.then(decompress)
    return wrapped


def fp16_compress_wrapper(hook):
    """A hook that runs `hook` on a float16 copy of the bucket and casts its result back."""
    from .... import float16
    return _compress_wrapper(float16, hook)


def bf16_compress_wrapper(hook):
    """As fp16_compress_wrapper, in bfloat16."""
    from .... import bfloat16
    return _compress_wrapper(bfloat16, hook)
