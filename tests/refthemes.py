"""A slow twin of :mod:`puzzles.themes`, written from the definitions in its docstring
and docs/puzzles.md: the networkx reference rules (:mod:`solver.reference`) for
groups, paths, dead groups and moves, and the plain-recursion capture search of
:mod:`puzzles.reference` for every "X captures within k".  Positions are
``(light, dark, to_move)`` triples of point indices."""

from __future__ import annotations

from puzzles import reference as PR
from puzzles.record import THEMES
from solver.reference import rules as R


def _other(c):
    return "D" if c == "L" else "L"


def _own(state, c):
    light, dark, _ = state
    return light if c == "L" else dark


def _dead(board, state, c):
    own, other = _own(state, c), _own(state, _other(c))
    out = set()
    for g in R.dead_groups(board, own, other):
        out |= g
    return out


def _pass(board, state):
    light, dark, y = state
    dead = _dead(board, state, y)
    if y == "L":
        light = light - dead
    else:
        dark = dark - dead
    return (frozenset(light), frozenset(dark), _other(y))


def _alive(board, state, t, y):
    return t in _own(state, y) and t not in _dead(board, state, y)


def _captures(board, state, t, k, history=()):
    if k <= 0:
        return False
    light, dark, x = state
    return PR.capture_within(board, light, dark, x, t, k, history)


def _every_reply_loses(board, state, t, k, history):
    """Y to move at state: X captures within k more moves whatever Y plays."""
    light, dark, y = state
    x = _other(y)
    res = R.outcome(board, light, dark, y)
    if res == x:
        return True
    if res is not None:
        return False
    seen = tuple(history) + (state,)
    for reply in R.legal_moves(board, light, dark, y):
        l2, d2, _ = R.play(board, light, dark, y, reply)
        if t not in (l2 if y == "L" else d2):
            continue
        if not PR.capture_within(board, l2, d2, x, t, k, seen):
            return False
    return True


def ref_themes(p):
    pos = p.to_position()
    board = pos.board
    x = pos.to_move
    y = _other(x)
    idx = board.index
    t = idx(p.target)
    states = [(frozenset(map(idx, pos.stones("L"))), frozenset(map(idx, pos.stones("D"))), x)]
    line = []
    for name in p.line or (p.key,):
        light, dark, c = states[-1]
        # a last reply written "any": one legal reply of the reference rules (no theme
        # depends on which, the X stones and the earlier positions being the same)
        m = min(R.legal_moves(board, light, dark, c)) if name == "any" else idx(name)
        line.append(m)
        states.append(R.play(board, light, dark, c, m))
    found = set()
    root = states[0]
    ys, xs = _own(root, y), _own(root, x)
    group = next(g for g in R.groups(board, ys) if t in g)
    on_paths = set()
    for a, b in R.paths(board, ys, xs):
        if (a in group) != (b in group):
            for ray in board.rays[a]:
                if b in ray:
                    on_paths.update(ray[: ray.index(b)])
    if line[0] in on_paths:
        found.add("block")
    after = states[1]
    if p.n >= 2 and _alive(board, after, t, y):
        passed = _pass(board, after)
        if not _dead(board, after, y) and "block" not in found and not _captures(board, passed, t, 1):
            found.add("quiet-key")
        light, dark, _ = passed
        if R.outcome(board, light, dark, x) is None:
            threats = [m for m in R.legal_moves(board, light, dark, x)
                       if PR.move_forces_capture(board, light, dark, x, t, m, 1)]
            if len(threats) >= 2:
                found.add("double-threat")
    for i, m in enumerate(line):
        if i % 2 == 0:
            if any(m not in _own(s, x) for s in states[i + 1:]):
                found.add("sacrifice")
        else:
            s = states[i]
            dead = _dead(board, s, y)
            light, dark, _ = s
            moves = R.legal_moves(board, light, dark, y)
            if moves and all((_own(s, y) - _own(R.play(board, light, dark, y, mv), y)) - dead for mv in moves):
                found.add("self-harm")
    for i in range(1, len(line), 2):
        s = states[i]
        if not _alive(board, s, t, y):
            continue
        left = p.n - (i + 1) // 2
        passed = _pass(board, s)
        light, dark, _ = passed
        if left >= 1 and R.outcome(board, light, dark, x) is None and _captures(board, passed, t, left):
            continue
        if _every_reply_loses(board, s, t, left, states[:i]):
            found.add("zugzwang")
    if p.n >= 4:
        found.add("long-line")
    return tuple(th for th in THEMES if th in found)
