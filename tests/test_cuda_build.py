"""The CUDA plugin as built: where nvcc is present, libnabla_cuda.so carries
device code (.nv_fatbin) and the three elementwise kernels (rows, which also runs
flat runs, tile and strided) for every op code of ew_codes.h in float32, float64,
float16 and bfloat16, the three copy kernels (generic, rows, tile) for every dtype pair, the
reduce kernels, the lines kernels, the index kernels for every dtype and the
pooling kernels;
and the plugin's host-side launch planning as a C++ unit test. Runs without a
GPU: it reads the ELF file and launches nothing."""
from __future__ import annotations

import pathlib
import re
import shutil
import subprocess

import pytest

import nabla

ROOT = pathlib.Path(__file__).resolve().parents[1]
DTYPES = {"f": "float32", "d": "float64", "6__half": "float16", "13__nv_bfloat16": "bfloat16"}
EW_KINDS = ("7ew_rows", "7ew_tile", "10ew_strided")
KERNEL = re.compile(rb"_ZN6nbcuda(" + "|".join(EW_KINDS).encode() +
                    rb")I(f|d|6__half|13__nv_bfloat16)\w*?Li(\d+)ELi([12])E(?:Lb[01]E)?E")


def plugin_path() -> pathlib.Path:
    here = pathlib.Path(nabla.__file__).resolve().parent
    for d in (here, here / "lib", here.parent, here.parent / "lib"):
        hits = sorted(d.glob("libnabla_cuda.so*")) if d.is_dir() else []
        if hits:
            return hits[0]
    pytest.skip("libnabla_cuda.so is not installed (built without nvcc)")


def op_codes() -> dict[str, int]:
    """NB_BK_* kernel codes from the generated ew_codes.h (NB_BK_NONE and the counts skipped)."""
    text = (ROOT / "src" / "core" / "ew_codes.h").read_text()
    skip = {"NB_BK_NONE", "NB_BK_NUM_BINARY", "NB_BK_NUM_OPS"}
    return {name: int(value) for name, value in re.findall(r"(NB_BK_\w+) = (-?\d+)", text) if name not in skip}


def section_names(data: bytes) -> set[str]:
    """Section names of a 64-bit little-endian ELF file."""
    import struct
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    str_off, = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 0x18)
    names = set()
    for i in range(shnum):
        name_off, = struct.unpack_from("<I", data, shoff + i * shentsize)
        end = data.index(b"\0", str_off + name_off)
        names.add(data[str_off + name_off:end].decode())
    return names


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: the CUDA plugin is not built")
def test_plugin_has_every_elementwise_kernel():
    data = plugin_path().read_bytes()
    assert ".nv_fatbin" in section_names(data)
    found = {(kind.decode(), DTYPES[t.decode()], int(op), int(nin)) for kind, t, op, nin in KERNEL.findall(data)}
    codes = op_codes()
    assert len(codes) > 60
    nbinary = int(re.search(r"NB_BK_NUM_BINARY = (\d+)", (ROOT / "src" / "core" / "ew_codes.h").read_text())[1])
    integer_only = set(re.findall(r"X\((\w+)\)", re.search(r"#define NB_BK_INTEGER_ONLY\(X\)(.*?)\n#",
                                  (ROOT / "src" / "core" / "backend.h").read_text(), re.S)[1]))
    assert {"BITWISE_AND", "BITWISE_NOT"} <= integer_only, integer_only
    missing = [(kind, dtype, name) for name, code in codes.items() for dtype in DTYPES.values()
               for kind in EW_KINDS
               if name[len("NB_BK_"):] not in integer_only and (kind, dtype, code, 2 if code < nbinary else 1) not in found]
    assert not missing, missing[:10]
    # the bitwise ops have int64 kernels only: one binary instance (the op picked at run time) and NOT
    int64 = {(int(op), int(nin)) for op, nin in re.findall(rb"_ZN6nbcuda13ew_contiguousIllLi(\d+)ELi([12])E", data)}
    assert (codes["NB_BK_BITWISE_AND"], 2) in int64 and (codes["NB_BK_BITWISE_NOT"], 1) in int64, sorted(int64)


CXX = shutil.which("c++") or shutil.which("g++")


def section_bytes(data: bytes, wanted: str) -> bytes:
    """The contents of one section of a 64-bit little-endian ELF file."""
    import struct
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    str_off, = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 0x18)
    for i in range(shnum):
        h = shoff + i * shentsize
        name_off, = struct.unpack_from("<I", data, h)
        if data[str_off + name_off:data.index(b"\0", str_off + name_off)].decode() == wanted:
            offset, size = struct.unpack_from("<QQ", data, h + 0x18)
            return data[offset:offset + size]
    raise AssertionError(f"no section {wanted}")


def fatbin_entries(blob: bytes) -> list[list[tuple[str, int]]]:
    """(kind, architecture) of every entry, per fat binary of an .nv_fatbin section
    (the fatbinary container: a 16-byte header, then entries of kind 1 = PTX, 2 = SASS)."""
    import struct
    binaries, pos = [], 0
    while pos + 16 <= len(blob):
        magic, _, header, size = struct.unpack_from("<IHHQ", blob, pos)
        if magic != 0xBA55ED50:
            pos += 8  # padding between the objects' fat binaries
            continue
        entries, p, end = [], pos + header, pos + header + size
        while p < end:
            kind, _, entry_header, entry_size = struct.unpack_from("<HHIQ", blob, p)
            arch, = struct.unpack_from("<I", blob, p + 28)
            entries.append(({1: "ptx", 2: "sass"}.get(kind, str(kind)), arch))
            p += entry_header + entry_size
        binaries.append(entries)
        pos = end
    return binaries


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: the CUDA plugin is not built")
def test_plugin_ships_sass_per_architecture_and_the_lowest_ptx():
    """Each source file's fat binary: SASS for every architecture of -Dgpu_archs, all from
    one PTX pass for the lowest, and that PTX (newer GPUs compile it at first load)."""
    binaries = fatbin_entries(section_bytes(plugin_path().read_bytes(), ".nv_fatbin"))
    ours = [b for b in binaries if any(k == "ptx" for k, _ in b)]
    assert len(binaries) - len(ours) <= 1, binaries  # the statically linked CUDA runtime's own SASS
    assert len(ours) >= 10, binaries
    sass_sets = {tuple(sorted(a for k, a in b if k == "sass")) for b in ours}
    assert len(sass_sets) == 1 and len(next(iter(sass_sets))) >= 1, sass_sets
    sass = next(iter(sass_sets))
    for b in ours:
        assert [a for k, a in b if k == "ptx"] == [min(sass)], b


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: the CUDA plugin is not built")
def test_plugin_has_every_index_kernel():
    data = plugin_path().read_bytes()
    # gather, scatter, masked_fill, index, index_put, masked_select for each of the ten dtype codes
    for kernel in (rb"13gather_kernel", rb"14scatter_kernel", rb"18masked_fill_kernel", rb"12index_kernel",
                   rb"16index_put_kernel", rb"20masked_select_kernel"):
        codes = set(re.findall(kernel + rb"ILi(\d)EE", data))
        assert len(codes) == 10, (kernel, sorted(codes))


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: the CUDA plugin is not built")
def test_plugin_has_copy_and_reduce_kernels():
    data = plugin_path().read_bytes()
    # copy_kernel, copy_rows and copy_tile <dst, src> for all 100 dtype pairs; every reduce launch shape
    # and the second pass
    for kernel in (rb"11copy_kernel", rb"9copy_rows", rb"9copy_tile"):
        pairs = set(re.findall(kernel + rb"ILi(\d)ELi(\d)EE", data))
        assert len(pairs) == 100, (kernel, sorted(pairs))
    for kernel in (rb"16reduce_per_block", rb"17reduce_per_thread", rb"11reduce_rows", rb"11reduce_cols",
                   rb"13reduce_finish"):
        for op in (rb"SumOp", rb"ExtOp", rb"LogicOp", rb"ArgOp", rb"VarOp", rb"NormOp", rb"LseOp"):
            assert re.search(kernel + rb"I\w*?" + op, data), (kernel, op)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: the CUDA plugin is not built")
def test_plugin_has_lines_kernels():
    data = plugin_path().read_bytes()
    # lines_per_row / lines_per_thread<dtype, op>: 6 ops for the 4 float dtypes, the 2 scans for int64
    for kernel in (rb"13lines_per_row", rb"16lines_per_thread"):
        found = set(re.findall(kernel + rb"ILi(\d+)ELi(\d)EE", data))
        assert len(found) == 4 * 6 + 2, sorted(found)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: the CUDA plugin is not built")
def test_plugin_has_pool_kernels():
    data = plugin_path().read_bytes()
    # forward for the four float dtypes and int64, backward for the float dtypes; nothing more
    forward = set(re.findall(rb"19pool_forward_kernelILi(\d)EE", data))
    backward = set(re.findall(rb"20pool_backward_kernelILi(\d)EE", data))
    assert forward == {b"0", b"1", b"2", b"3", b"7"}, sorted(forward)
    assert backward == {b"0", b"1", b"2", b"3"}, sorted(backward)


@pytest.mark.skipif(CXX is None, reason="no C++ compiler on PATH")
@pytest.mark.parametrize("name", ["test_ew_plan", "test_copy_plan", "test_reduce_plan", "test_index_plan",
                                  "test_lines_plan", "test_pool_plan",
                                  "test_sort_plan"])
def test_launch_planning(tmp_path, name):
    """The plugin's host-side planning (src/cuda/*_plan.h), built and run without a GPU."""
    exe = tmp_path / name
    subprocess.run([CXX, "-std=c++17", "-Wall", "-Wextra", "-Werror", "-O1", f"-I{ROOT / 'include'}",
                    f"-I{ROOT / 'src' / 'core'}", str(ROOT / "tests" / "cuda" / f"{name}.cpp"), "-o", str(exe)],
                   check=True, capture_output=True, text=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith("0 failed"), run.stdout
