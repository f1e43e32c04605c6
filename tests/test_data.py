"""nabla.utils.data in the main process: datasets, samplers, default_collate and
DataLoader, against PyTorch's behaviour (names, defaults, results, errors)."""
from __future__ import annotations

import collections

import numpy as np
import pytest

import nabla
from nabla.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset, IterableDataset, RandomSampler,
                              SequentialSampler, Subset, SubsetRandomSampler, TensorDataset, WeightedRandomSampler,
                              default_collate, default_convert, random_split)


class Squares(Dataset):
    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return i * i


class Count(IterableDataset):
    def __init__(self, n: int) -> None:
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self) -> int:
        return self.n


def test_tensor_dataset_subset_concat():
    x, y = nabla.arange(10.0).reshape(5, 2), nabla.arange(5)
    ds = TensorDataset(x, y)
    assert len(ds) == 5 and ds[3][0].tolist() == [6.0, 7.0] and ds[3][1].item() == 3
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(x, nabla.arange(4))
    sub = Subset(ds, [4, 0])
    assert len(sub) == 2 and sub[0][1].item() == 4
    cat = ConcatDataset([Squares(3), Squares(2)])
    assert len(cat) == 5 and [cat[i] for i in range(5)] == [0, 1, 4, 0, 1] and cat[-1] == 1
    assert (Squares(2) + Squares(1))[2] == 0
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        cat[-6]
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        ConcatDataset([Count(2)])
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement __getitem__."):
        Dataset()[0]


def test_random_split_lengths_fractions_and_reproducibility():
    ds = Squares(10)
    a, b = random_split(ds, [3, 7], generator=nabla.Generator().manual_seed(1))
    assert len(a) == 3 and len(b) == 7 and sorted(a.indices + b.indices) == list(range(10))
    a2, _ = random_split(ds, [3, 7], generator=nabla.Generator().manual_seed(1))
    assert a.indices == a2.indices
    parts = random_split(ds, [0.5, 0.3, 0.2])
    assert [len(p) for p in parts] == [5, 3, 2]
    parts = random_split(Squares(11), [0.5, 0.5])  # the remainder goes round-robin from the first split
    assert [len(p) for p in parts] == [6, 5]
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(ds, [3, 3])
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        random_split(ds, [1.5, -0.5])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(Squares(2), [0.99, 0.01])


def test_samplers_match_pytorch_semantics():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    g = nabla.Generator().manual_seed(0)
    perm = list(RandomSampler(range(10), generator=g))
    assert sorted(perm) == list(range(10))
    assert list(RandomSampler(range(10), generator=nabla.Generator().manual_seed(0))) == perm
    draws = list(RandomSampler(range(3), replacement=True, num_samples=70, generator=g))
    assert len(draws) == 70 and set(draws) <= {0, 1, 2}
    more = list(RandomSampler(range(4), num_samples=10, generator=g))  # past one epoch: permutations chain
    assert len(more) == 10 and sorted(more[:4]) == [0, 1, 2, 3]
    sub = list(SubsetRandomSampler([10, 20, 30], generator=g))
    assert sorted(sub) == [10, 20, 30]
    w = list(WeightedRandomSampler([0.0, 1.0, 0.0], 5, generator=g))
    assert w == [1] * 5
    assert sorted(WeightedRandomSampler([1, 1, 1], 3, replacement=False, generator=g)) == [0, 1, 2]
    assert list(BatchSampler(range(7), 3, drop_last=False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(BatchSampler(range(7), 3, drop_last=True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(BatchSampler(range(7), 3, False)) == 3 and len(BatchSampler(range(7), 3, True)) == 2


@pytest.mark.parametrize("make,exc,msg", [
    (lambda: RandomSampler(range(3), replacement=1), TypeError, "replacement should be a boolean value, but got replacement=1"),
    (lambda: RandomSampler(range(3), num_samples=0), ValueError, "num_samples should be a positive integer value, but got num_samples=0"),
    (lambda: WeightedRandomSampler([1.0], 0), ValueError, "num_samples should be a positive integer value, but got num_samples=0"),
    (lambda: WeightedRandomSampler([1.0], True), ValueError, "num_samples should be a positive integer value, but got num_samples=True"),
    (lambda: WeightedRandomSampler([[1.0]], 1), ValueError, r"weights should be a 1d sequence but given weights have shape \(1, 1\)"),
    (lambda: BatchSampler(range(3), 0, False), ValueError, "batch_size should be a positive integer value, but got batch_size=0"),
    (lambda: BatchSampler(range(3), 2, 1), ValueError, "drop_last should be a boolean value, but got drop_last=1"),
])
def test_sampler_errors_match_pytorch(make, exc, msg):
    with pytest.raises(exc, match=msg):
        make()


def test_sampler_errors_are_pytorchs():
    torch = pytest.importorskip("torch")
    import torch.utils.data as tud
    for ours, theirs in [(lambda m: m.RandomSampler(range(3), replacement=1), None),
                         (lambda m: m.BatchSampler(range(3), 0, False), None),
                         (lambda m: m.WeightedRandomSampler([1.0], 0), None)]:
        with pytest.raises(Exception) as a:
            ours(nabla.utils.data)
        with pytest.raises(Exception) as b:
            ours(tud)
        assert type(a.value) is type(b.value) and str(a.value) == str(b.value)
    del torch


Point = collections.namedtuple("Point", "x y")


def test_default_collate_behaves_like_pytorchs():
    torch = pytest.importorskip("torch")
    from torch.utils.data import default_collate as torch_collate
    samples = [
        [(np.arange(3, dtype=np.float32) + i, i, float(i), "s") for i in range(4)],
        [{"a": np.ones((2, 2)) * i, "b": [i, i + 1]} for i in range(3)],
        [Point(i, np.int64(i)) for i in range(3)],
        [np.float32(i) for i in range(3)],
        [True, False],
    ]

    def to_plain(x):
        if hasattr(x, "tolist") and not isinstance(x, (np.generic,)):
            return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), x.tolist())
        if isinstance(x, dict):
            return {k: to_plain(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return (type(x).__name__, [to_plain(v) for v in x])
        return x

    for batch in samples:
        ours = default_collate(batch)
        theirs = torch_collate(batch)
        assert to_plain(ours) == to_plain(theirs), batch
    t = default_collate([nabla.ones(2), nabla.zeros(2)])
    assert t.shape == (2, 2) and not t.is_shared()  # main process: an ordinary tensor
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays, numbers, "
                                        "dicts or lists; found <class 'object'>"):
        default_collate([object()])
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [1]])
    assert default_convert(np.arange(3)).tolist() == [0, 1, 2]
    assert default_convert((np.float64(1.5), "x"))[0].item() == 1.5


def test_dataloader_batches_shuffle_drop_last_and_generator():
    x = nabla.arange(20.0).reshape(10, 2)
    ds = TensorDataset(x, nabla.arange(10))
    batches = list(DataLoader(ds, batch_size=4))
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert batches[0][0].shape == (4, 2)
    assert len(DataLoader(ds, batch_size=4)) == 3 and len(DataLoader(ds, batch_size=4, drop_last=True)) == 2
    first = [b[1].tolist() for b in DataLoader(ds, batch_size=3, shuffle=True, generator=nabla.Generator().manual_seed(7))]
    again = [b[1].tolist() for b in DataLoader(ds, batch_size=3, shuffle=True, generator=nabla.Generator().manual_seed(7))]
    assert first == again and sorted(sum(first, [])) == list(range(10))
    assert [b.tolist() for b in DataLoader(Squares(5), batch_size=2)] == [[0, 1], [4, 9], [16]]
    assert list(DataLoader(Squares(3), batch_size=None)) == [0, 1, 4]  # no auto-batching: default_convert
    custom = DataLoader(Squares(4), batch_sampler=[[3, 1], [0]], collate_fn=lambda b: b)
    assert list(custom) == [[9, 1], [0]]
    assert [b.tolist() for b in DataLoader(Count(5), batch_size=2)] == [[0, 1], [2, 3], [4]]
    assert [b.tolist() for b in DataLoader(Count(5), batch_size=2, drop_last=True)] == [[0, 1], [2, 3]]
    assert len(DataLoader(Count(5), batch_size=2)) == 3


@pytest.mark.parametrize("kwargs,msg", [
    (dict(num_workers=-1), "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing."),
    (dict(timeout=-1), "timeout option should be non-negative"),
    (dict(prefetch_factor=2), "prefetch_factor option could only be specified in multiprocessing."),
    (dict(persistent_workers=True), "persistent_workers option needs num_workers > 0"),
    (dict(shuffle=True, sampler=SequentialSampler(range(3))), "sampler option is mutually exclusive with shuffle"),
    (dict(batch_sampler=[[0]], batch_size=2), "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"),
    (dict(batch_size=None, drop_last=True), "batch_size=None option disables auto-batching and is mutually exclusive with drop_last"),
])
def test_dataloader_argument_errors_match_pytorch(kwargs, msg):
    with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        DataLoader(Squares(3), **kwargs)


def test_dataloader_iterable_argument_errors_and_frozen_attributes():
    with pytest.raises(ValueError, match="expected unspecified shuffle option, but got shuffle=True"):
        DataLoader(Count(3), shuffle=True)
    with pytest.raises(ValueError, match="expected unspecified sampler option"):
        DataLoader(Count(3), sampler=[0])
    loader = DataLoader(Squares(3))
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        loader.batch_size = 2


def test_pin_memory_without_cuda_warns_like_pytorch():
    if nabla.cuda.is_available():
        pytest.skip("CUDA present: pinning is real")
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"):
        out = list(DataLoader(Squares(2), batch_size=2, pin_memory=True))
    assert out[0].tolist() == [0, 1]
