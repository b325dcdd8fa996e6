"""The search path shared by every compiled search: Zobrist keys of a child by update,
and repetition of a position on the path.

Each search keeps its path in arrays with the same names (``stack``: the positions,
two rows a ply; ``keys``: their keys under each symmetry; ``path_keys``: their identity
keys), so these kernels serve alpha-beta, df-pn and the horizon search alike.
"""

from __future__ import annotations

import numpy as np

from solver.rules import core
from solver.rules.bits import bb_any, bb_clear_lowest, bb_load, bb_lowest, bb_store
from solver.rules.core import kernel

__all__ = ["child_keys", "repeats", "enter_child"]


@kernel
def child_keys(T, keys, ply, side, cell, removed):
    """Row ``ply + 1`` of ``keys``: row ``ply`` after ``side`` placed on ``cell`` and
    lost the stones of ``removed``, with the other side to move."""
    zob = T.zobrist
    for s in range(zob.shape[0]):
        keys[ply + 1, s] = keys[ply, s] ^ T.zobrist_side ^ zob[s, side, cell]
    x = removed
    while bb_any(x):
        c = bb_lowest(x)
        x = bb_clear_lowest(x)
        for s in range(zob.shape[0]):
            keys[ply + 1, s] ^= zob[s, side, c]


@kernel
def repeats(S, ply, st):
    """Whether the position ``st``, at ``ply`` with its identity key in ``S.keys[ply,
    0]``, repeats the position at ``ply - 2``, ``ply - 4``, ... (the same player to
    move): keys first, then the stones, so a key collision is never taken for one."""
    key = S.keys[ply, 0]
    for back in range(ply - 2, -1, -2):
        if S.path_keys[back] == key:
            same = True
            for c in range(2):
                for i in range(st.shape[1]):
                    if S.stack[2 * back + c, i] != st[c, i]:
                        same = False
            if same:
                return True
    return False


@kernel
def enter_child(T, S, ply, side, cell):
    """Put the child of the position at ``ply`` after ``side`` plays ``cell`` at ``ply +
    1`` of the path, with its keys; return ``core.play``'s ``(lost, removed)``."""
    st = S.stack[2 * ply: 2 * ply + 2]
    child = S.stack[2 * ply + 2: 2 * ply + 4]
    # a cell from the int32 child rows: as wide as the move generator's, so that play and
    # child_keys compile once, not once for each integer type
    cell = np.int64(cell)
    for c in range(2):
        bb_store(child, c, bb_load(st, c, T.zero))
    lost, removed = core.play(T, child, side, cell)
    child_keys(T, S.keys, ply, side, cell, removed)
    return lost, removed
