"""A slow twin of :mod:`puzzles.themes`, written from the definitions in its docstring
and docs/puzzles.md: the networkx reference rules (:mod:`solver.reference`) for
groups, paths, dead groups and moves, the plain-recursion capture search of
:mod:`puzzles.reference` for every "X captures within k", and the board's geometry
(neighbours, lines, edge, corners) from its axial coordinates alone.  Positions are
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


def _near(board, a, b):
    """Whether points a and b are neighbours: axial distance 1."""
    (q1, r1), (q2, r2) = board.coords[a], board.coords[b]
    return max(abs(q1 - q2), abs(r1 - r2), abs(q1 + r1 - q2 - r2)) == 1


def _degree(board, a):
    return sum(_near(board, a, b) for b in range(board.size))


def _collinear(board, points):
    """Whether the points lie on one lattice line: equal q, equal r or equal q + r."""
    cs = [board.coords[a] for a in points]
    return any(len({f(q, r) for q, r in cs}) == 1
               for f in (lambda q, r: q, lambda q, r: r, lambda q, r: q + r))


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
    block = line[0] in on_paths
    after = states[1]
    alive = _alive(board, after, t, y)
    if block and alive:
        found.add("several-paths")
    if p.n >= 2 and alive:
        passed = _pass(board, after)
        light, dark, _ = passed
        if not block:
            forces = bool(_dead(board, after, y)) or (R.outcome(board, light, dark, x) is None
                                                      and _captures(board, passed, t, 1))
            found.add("tempo" if forces else "quiet-key")
        if R.outcome(board, light, dark, x) is None:
            threats = [m for m in R.legal_moves(board, light, dark, x)
                       if PR.move_forces_capture(board, light, dark, x, t, m, 1)]
            if len(threats) >= 2:
                found.add("double-threat")
    if p.n >= 2:
        light, dark, _ = after
        keep = [m for m in R.legal_moves(board, light, dark, y)
                if t in _own(R.play(board, light, dark, y, m), y)]
        if len(keep) == 1 and not any(_near(board, keep[0], s) for s in group):
            found.add("forced-reply")
        if len(line) >= 2 and p.line[1] != "any" and any(_near(board, line[1], s) for s in group):
            found.add("chase")
    if p.n >= 3 and len(line[0::2]) == p.n and _collinear(board, line[0::2]):
        found.add("ladder")
    others = [g for g in R.dead_groups(board, _own(after, y), _own(after, x)) if t not in g]
    if p.n >= 2 and len(states) > 2:  # the line's reply must leave one dead: gone from the board
        others = [g for g in others if not g <= _own(states[2], y)]
    if others:
        found.add("fork")
    if len(group) >= p.n + 3:
        found.add("big-group")
    if any(_degree(board, s) == 3 for s in group):
        found.add("corner")
    if _degree(board, line[0]) < 6:
        found.add("edge-key")
    return tuple(th for th in THEMES if th in found)
