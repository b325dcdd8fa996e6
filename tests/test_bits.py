"""The multi-word bitboard intrinsics against Python's unbounded integers."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from numba import njit

from solver.rules.bits import (
    bb_and, bb_andnot, bb_any, bb_bit, bb_clear_lowest, bb_eq, bb_highest, bb_load,
    bb_lowest, bb_or, bb_popcount, bb_shift, bb_store, bb_test, bb_xor, bb_zero,
)


@njit(_nrt=False)
def _ops(arr, like, k, i):
    a = bb_load(arr, 0, like)
    b = bb_load(arr, 1, like)
    bb_store(arr, 2, bb_and(a, b))
    bb_store(arr, 3, bb_or(a, b))
    bb_store(arr, 4, bb_xor(a, b))
    bb_store(arr, 5, bb_andnot(a, b))
    bb_store(arr, 6, bb_shift(a, k))
    bb_store(arr, 7, bb_clear_lowest(a))
    bb_store(arr, 8, bb_bit(like, i))
    bb_store(arr, 9, bb_zero(like))
    return bb_popcount(a), bb_any(a), bb_eq(a, b), bb_lowest(a), bb_highest(a), bb_test(a, i)


def _words(x: int, w: int) -> list[int]:
    return [(x >> (64 * j)) & (2**64 - 1) for j in range(w)]


def _int(row) -> int:
    return sum(int(v) << (64 * j) for j, v in enumerate(row))


@st.composite
def cases(draw):
    w = draw(st.integers(1, 4))
    n = 64 * w
    bits = st.one_of(st.just(0), st.integers(0, 2**n - 1), st.sampled_from([1, 2 ** (n - 1), 2**n - 1]))
    return w, draw(bits), draw(bits), draw(st.integers(-n - 3, n + 3)), draw(st.integers(0, n + 2))


@given(cases())
def test_bitboard_operations_match_python_integers(case):
    w, a, b, k, i = case
    n = 64 * w
    mask = 2**n - 1
    arr = np.zeros((10, w), np.uint64)
    arr[9] = _words(mask, w)  # bb_zero must overwrite it
    arr[0], arr[1] = _words(a, w), _words(b, w)
    like = tuple(np.uint64(0) for _ in range(w))
    popcount, any_, eq, low, high, test = _ops(arr, like, k, i)
    got = [_int(arr[j]) for j in range(2, 10)]
    shifted = (a << k) & mask if k >= 0 else a >> -k
    assert got == [a & b, a | b, a ^ b, a & ~b & mask, shifted, a & (a - 1) if a else 0,
                   (1 << i) if i < n else 0, 0]
    assert popcount == bin(a).count("1")
    assert any_ == (a != 0) and eq == (a == b)
    assert low == ((a & -a).bit_length() - 1 if a else n)
    assert high == a.bit_length() - 1
    assert test == (i < n and (a >> i) & 1 == 1)


def test_a_changed_kernel_source_empties_every_kernel_cache(tmp_path, monkeypatch):
    """df-pn's cached kernels have the settled rule and the core compiled in: when any
    kernel source changes, the caches of the core and of the search modules go."""
    from solver.rules import core

    cache = tmp_path / "solver" / "rules" / "__pycache__"
    search = tmp_path / "solver" / "search" / "__pycache__"
    for folder in (cache, search):
        folder.mkdir(parents=True)
        (folder / "k.f-1.py311.nbi").write_text("old")
        (folder / "k.py").write_text("not a numba cache")
    monkeypatch.setattr(core.legal_bb._cache, "_cache_path", str(cache))
    (cache / "core.sources-stamp").write_text("a stamp of other sources\n")
    core._drop_stale_cache()
    for folder in (cache, search):
        assert not (folder / "k.f-1.py311.nbi").exists() and (folder / "k.py").exists()
    stamp = (cache / "core.sources-stamp").read_text()
    # the same sources again: the stamp holds and a new cache file stays
    (search / "k.f-2.py311.nbc").write_text("new")
    core._drop_stale_cache()
    assert (search / "k.f-2.py311.nbc").exists() and (cache / "core.sources-stamp").read_text() == stamp


def _save_at(folder: str, me: int, start: float, saves: int, locked: bool, out) -> None:
    import time

    from numba.core.caching import IndexDataCacheFile

    if locked:
        import solver.rules.core  # noqa: F401  (its import locks the saves)
    cache = IndexDataCacheFile(folder, "kernel", "one source stamp")
    time.sleep(max(0.0, start - time.time()))
    for i in range(saves):
        cache.save(("signature", me, i), ("code of", me, i))
    out.put(me)


def _save_at_once(folder, processes: int, saves: int, locked: bool) -> list:
    """The keys that do not load their own code from one kernel's cache (a lost entry, or
    one naming another key's code) after ``processes`` processes each saved ``saves``
    signatures of it at the same moment."""
    import multiprocessing as mp
    import time

    from numba.core.caching import IndexDataCacheFile

    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    start = time.time() + 3.0
    procs = [ctx.Process(target=_save_at, args=(str(folder), me, start, saves, locked, out))
             for me in range(processes)]
    for p in procs:
        p.start()
    done = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join()
    assert sorted(done) == list(range(processes))
    cache = IndexDataCacheFile(str(folder), "kernel", "one source stamp")
    keys = [("signature", me, i) for me in range(processes) for i in range(saves)]
    return [k for k in keys if cache.load(k) != ("code of", *k[1:])]


def test_kernels_saved_at_the_same_moment_keep_their_own_code(tmp_path):
    """(numba reads, extends and rewrites a kernel's cache index without a lock: two
    processes saving two boards' signatures at once could pair one's entry with the
    other's code; the core's import puts an flock around every save)"""
    assert _save_at_once(tmp_path, processes=4, saves=200, locked=True) == []
