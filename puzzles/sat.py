"""The SAT side of the generator: reshape a real position so that a group is in trouble.

Given a seed position (from a game), the attacker X (the player to move) and a target
group T of the defender Y, :class:`Reshaper` asks a MaxSAT solver (PySAT's RC2) for the
fewest **added X stones** near T such that:

1. **every Y group stays alive** (the player not to move never has a dead group, so the
   position stays valid): for each Y group, one of its paths keeps all its empty points
   free of added stones;
2. **T is in trouble for n moves**: its surviving paths plus its surviving *fresh lines*
   (a line from T whose two nearest points are empty, the second not touching T: where
   Y makes a new path in one move) number at most ``n``.  This is the necessary
   condition of the verifier's "safe target" cut (k+1 disjoint such items make T safe
   from k moves), so a candidate that breaks it is not worth verifying; and, for
   n >= 2, at least ``n`` (with fewer, a capture in fewer moves is likely);
3. at most :data:`MAX_ADDED` stones are added.

Variables: ``a_c`` for each empty point ``c`` of the window (points within two steps of
T, and the points of T's paths and fresh lines): X adds a stone on ``c``.  A path or
fresh line survives unless one of its points is added; a path with a point outside the
window cannot be cut.  Each item has a variable ``u`` equivalent to its survival
(``(OR a_c) or u`` and ``not u or not a_c``), and sequential-counter cardinality
constraints bound their sum from above and below.
Soft clauses ``not a_c`` (weight 1) make RC2 return the fewest additions first: the
candidate stays close to the real position.

**Counterexample-guided loop.**  The verifier judges each candidate; its verdict
becomes clauses (:meth:`Reshaper.learn`).  Whatever the verdict, the candidate's exact
set of added stones is blocked (a hard clause), with its symmetric forms (below).  The
verdict's *generalisation* is a soft clause (weight :data:`PREFER`): it steers the
next candidates without excluding any, because it is not a truth about them:

- ``escapes`` (X cannot capture within n): the added stones were not enough; prefer
  also taking one more of the target's resources as they stand in that candidate: a
  point of its paths or fresh lines, or a liberty;
- ``shorter`` (a capture within n - 1): too easy; prefer dropping one of those stones.

**The escape's witness** (issue 21 item 5).  When the verdict ``escapes`` comes with the
defender's reply that the first search found to refute an attacker first move (its
killer at ply 1, :meth:`solver.search.capture.CaptureSearch.refutation`), the loop can
learn *how* the target got away: a soft clause of weight :data:`ROUTE` (off by
default: it did not help, see there) asks the next
candidate to add a stone on that reply's *route*: the reply point and, when it lies on
a line from the target group through empty points only, those points (Y's new path
runs there; an attacker stone on it closes that way out).  Its claim is only that this
reply refuted some attacker first move in that candidate (``tests/test_sat.py`` checks
it exactly on small boards), not that every candidate that leaves the route open
escapes: the same exhaustive checks that sank the old hard generalisations apply, so
it stays soft.  
**Escape certificates: hard clauses** (:meth:`Reshaper.certificate`).  The verifier's
safe-target cut (:mod:`solver.search.capture`) proves an escape from ``k + 1`` disjoint
*items* of T with disjoint *reserves*; its items are T's paths and fresh lines (a new
path through one empty point).  A *route* is a fresh line or its longer form: a line
from a stone of T through empty points ``c1 .. cj`` (j >= 2) where ``cj`` is the first
of ``c2 ..`` that touches no stone of T (j = 2: a fresh line): Y placing on ``cj`` is
legal (it sees T) and makes a new path.  The cut's proof carries over to
routes word for word (Y answers an X move by placing on the last point of a route X
has not touched, or on a free reserve point of a surviving item; a route's reserve,
the empty points next to ``cj`` that touch no stone of T and lie on no item, is used
only once ``cj`` holds a Y stone, so it is legal then).  The encoding counts paths
and fresh lines only, so a candidate can have ``n`` of them and routes besides, and
escape for sure.

A *certificate* is such a proof for a candidate: items and reserves, all empty points,
with reserves that hold out for n X-moves (the count of the cut, without its common
reserve).  It depends on nothing but its own points being empty and the defender's
stones, which no candidate changes: **every candidate that adds no stone on a point of
the certificate has the same certificate and escapes** (claim C).  So the clause "add a
stone on one of its points" is hard and sound: it never blocks a candidate that can be
a puzzle.  ``tests/test_sat.py`` checks claim C exhaustively on small boards (every
window subset whose candidate keeps a certificate's points free escapes, by the exact
verifier).  The generator looks for a certificate in each candidate before any search
(:func:`puzzles.generate.sat_unit`): a candidate that has one is not searched.

As hard clauses (they were, before issue 21) these blocked sound puzzles: on 4/5, n =
1 and 2, exhaustive checks of every window subset found sound candidates that were
supersets of an escaping one through a point off the target's zone, and even subsets
of an escaping one (an added attacker stone can hurt the attacker: 4/5, seed 6, target
c6, n = 2: no stone added is sound, e5 + f6 escapes), so no monotone rule holds.

Every learned clause is kept in :attr:`Reshaper.learned` as ``(add, drop)`` (point
sets: a later candidate adds a point of ``add`` or leaves out a point of ``drop``), so
a test can check that no later candidate breaks one, and it is added with its
**symmetric forms**: for each symmetry of the board that maps the seed position (both
colours) and the target group onto themselves, the clause's image.  Such a symmetry
maps a candidate to an equivalent one (the same puzzle up to the board's symmetry), so
the image of a failed candidate fails the same way.  (In positions from real play a
symmetric seed is rare; the images cost nothing when there are none.)
"""

from __future__ import annotations

from pysat.card import CardEnc, EncType
from pysat.examples.rc2 import RC2
from pysat.formula import IDPool, WCNF

from solver import Position

__all__ = ["Reshaper", "MAX_ADDED", "PREFER", "ROUTE", "certificate", "paths_of", "fresh_lines_of"]

#: at most this many attacker stones are added to a seed position
MAX_ADDED = 3
#: the weight of a learned preference: breaking one costs as much as two more stones
PREFER = 2
#: the weight of an escape's route (see the module docstring); 0: not learned.  Off:
#: measured on 6/7 on the bench's seeds, weight 3 (above :data:`PREFER`) gave 55
#: puzzles in 11.9 CPU s against 62 in 11.5 without it (n = 3, 40 units) and 21 in
#: 32.0 against 22 in 32.9 (n = 4, 16 units); weight 1, 22 in 34.6
ROUTE = 0


def _groups(pos: Position, color: str) -> list[set[int]]:
    b = pos.board
    # built in board order: a set of ints built from a set of names iterates in an order
    # that follows the names' string hashes (it differs with PYTHONHASHSEED)
    return [set(sorted(b.index(x) for x in g)) for g in pos.groups(color)]


def paths_of(board, group: set[int], own: set[int], occupied: set[int]) -> list[tuple[int, ...]]:
    """The paths of ``group``: for each, the empty points between its two stones; in
    board order of the group's stones, whatever the order of the set."""
    out = []
    for s in sorted(group):
        for ray in board.rays[s]:
            between = []
            for p in ray:
                if p in occupied:
                    if between and p in own and p not in group:
                        out.append(tuple(between))
                    break
                between.append(p)
    return out


def fresh_lines_of(board, group: set[int], occupied: set[int]) -> list[tuple[int, int]]:
    """The fresh lines of ``group``: the two nearest points of each line from it that
    are both empty, the second not touching the group."""
    near = {q for s in group for q in board.neighbours[s]}
    out = []
    for s in sorted(group):  # board order: the items' order shapes the SAT encoding
        for ray in board.rays[s]:
            if len(ray) >= 2 and ray[0] not in occupied and ray[1] not in occupied and ray[1] not in near:
                out.append((ray[0], ray[1]))
    return out


def _enough(res: list[int], k: int) -> bool:
    """Whether items with reserves ``res`` (increasing) hold out for ``k`` X-moves: the
    count of :func:`solver.search.capture._enough` with no common reserve and no
    wasted move."""
    m = len(res)
    for use in range(m, k, -1):
        lo = m - use
        if all(sum(res[lo:lo + use - c]) - (j - c) - (j - 1) >= 1
               for j in range(1, k + 1) for c in range(0, j + 1)):
            return True
    return False


def certificate(board, tgroup: set[int], own: set[int], occupied: set[int], k: int) -> frozenset | None:
    """The points (items and reserves) of a proof that X cannot capture the Y group
    ``tgroup`` within ``k`` moves, X to move, by disjoint paths, fresh lines and routes
    of the group with disjoint reserves (module docstring); None when the greedy
    choice here finds none.  ``own``: the Y stones; ``occupied``: every stone."""
    near = {q for s in tgroup for q in board.neighbours[s]} - occupied
    # (points, the stone or point its reserve lies around, whether around its group)
    segs, lines = [], []
    for s in sorted(tgroup):
        for ray in board.rays[s]:
            between = []
            end = None
            for p in ray:
                if p in occupied:
                    end = p
                    break
                between.append(p)
            if end is not None and between and end in own and end not in tgroup:
                segs.append((tuple(between), end, True))  # a path: reserve around the partner group
                continue
            # a fresh line or a route: the first empty point that touches no stone of T
            for i, p in enumerate(between):
                if i >= 1 and p not in near:
                    lines.append((tuple(between[:i + 1]), p, False))  # reserve around that point
                    break
    if len(segs) + len(lines) < k + 1:
        return None
    blocked = set(near)
    for pts, _, _ in segs + lines:
        blocked.update(pts)
    empty = set(range(board.size)) - occupied

    def group_of(stone: int) -> set[int]:
        g, todo = {stone}, [stone]
        while todo:
            for q in board.neighbours[todo.pop()]:
                if q in own and q not in g:
                    g.add(q)
                    todo.append(q)
        return g

    taken: set[int] = set()
    assigned: set[int] = set()
    items = []  # (points, reserve): disjoint, as the cut's
    # shortest paths first, then the shortest lines (the cut's order)
    for pts, anchor, is_path in sorted(segs, key=lambda it: len(it[0])) + sorted(lines, key=lambda it: len(it[0])):
        if taken & set(pts):
            continue
        around = {q for z in (group_of(anchor) if is_path else {anchor}) for q in board.neighbours[z]}
        reserve = (around & empty) - blocked - assigned
        taken.update(pts)
        assigned |= reserve
        items.append((pts, reserve))
    if len(items) < k + 1 or not _enough(sorted(len(r) for _, r in items), k):
        return None
    out: set[int] = set()
    for pts, reserve in items:
        out.update(pts)
        out |= reserve
    return frozenset(out)


class Reshaper:
    """Candidates around one target, fewest added stones first (a context manager: it
    owns a SAT solver)."""

    def __init__(self, position: Position, target: str, n: int):
        self.position = position
        self.n = n
        #: the escape certificates learned from (hard clauses, claim C)
        self.certified: list[frozenset] = []
        b = position.board
        self.board = b
        x, y = position.to_move, ("D" if position.to_move == "L" else "L")
        self.x = x
        own = {b.index(p) for p in position.stones(y)}
        occupied = own | {b.index(p) for p in position.stones(x)}
        groups = _groups(position, y)
        t = b.index(target)
        tgroup = next(g for g in groups if t in g)
        # the window: empty points within two steps of T, plus T's paths and fresh lines
        ring = b.near(tgroup, 2)
        self.tgroup, self.own, self.occupied = tgroup, own, occupied
        tpaths = paths_of(b, tgroup, own, occupied)
        tfresh = fresh_lines_of(b, tgroup, occupied)
        window = {p for p in ring if p not in occupied}
        for pts in tpaths + tfresh:
            window.update(pts)
        self.window = sorted(window)
        pool = IDPool()
        self.var = {p: pool.id(("a", p)) for p in self.window}
        wcnf = WCNF()
        self.ok = True
        # 1. every Y group keeps a path
        for gi, g in enumerate(groups):
            ps = paths_of(b, g, own, occupied)
            if any(any(p not in window for p in pts) for pts in ps):
                continue  # a path the added stones cannot reach: the group stays alive
            lits = []
            for pi, pts in enumerate(ps):
                s = pool.id(("s", gi, pi))
                for p in pts:
                    wcnf.append([-s, -self.var[p]])
                lits.append(s)
            if not lits:
                self.ok = False  # cannot happen in a valid position
            wcnf.append(lits)
        # 2. at most n surviving items of T (paths and fresh lines)
        items = []
        for k, pts in enumerate(list(tpaths) + list(tfresh)):
            u = pool.id(("u", k))
            if any(p not in window for p in pts):
                wcnf.append([u])
            else:
                # u <-> no point of the item added: both ways, as both bounds use u
                wcnf.append([self.var[p] for p in pts] + [u])
                for p in pts:
                    wcnf.append([-u, -self.var[p]])
            items.append(u)
        if len(items) > n:
            card = CardEnc.atmost(lits=items, bound=n, vpool=pool, encoding=EncType.seqcounter)
            for cl in card.clauses:
                wcnf.append(cl)
        # ... and at least n: with fewer, a capture in fewer moves is likely
        if n > 1:
            if len(items) < n:
                self.ok = False
            else:
                card = CardEnc.atleast(lits=items, bound=n, vpool=pool, encoding=EncType.seqcounter)
                for cl in card.clauses:
                    wcnf.append(cl)
        # 3. at most MAX_ADDED stones
        if len(self.window) > MAX_ADDED:
            card = CardEnc.atmost(lits=list(self.var.values()), bound=MAX_ADDED, vpool=pool,
                                  encoding=EncType.seqcounter)
            for cl in card.clauses:
                wcnf.append(cl)
        for v in self.var.values():
            wcnf.append([-v], weight=1)
        self.solver = RC2(wcnf) if self.ok else None
        self.added: list[int] = []
        #: the clauses learned so far, ``(add, drop)``: see the module docstring
        self.learned: list[tuple[frozenset, frozenset]] = []
        #: the soft clauses learned so far (preferences), in the same form
        self.preferred: list[tuple[frozenset, frozenset]] = []
        xs = occupied - own
        #: the board's symmetries other than the identity that map the position and
        #: the target group onto themselves (then the window too)
        self.symmetries = [
            sym for sym in b.symmetries[1:]
            if {sym[p] for p in own} == own and {sym[p] for p in xs} == xs
            and {sym[p] for p in tgroup} == tgroup and {sym[p] for p in window} == window
        ]

    def __enter__(self) -> "Reshaper":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.solver is not None:
            self.solver.delete()
            self.solver = None

    def next(self) -> Position | None:
        """The next candidate (None when there is none left)."""
        while self.solver is not None:
            model = self.solver.compute()
            if model is None:
                self.close()
                return None
            true = {v for v in model if v > 0}
            self.added = [p for p in self.window if self.var[p] in true]
            pos = self._build()
            if pos is not None:
                return pos
            self._block()  # invalid after all (a rule the encoding does not model)
        return None

    def _build(self) -> Position | None:
        b, pos = self.board, self.position
        light = set(pos.stones("L"))
        dark = set(pos.stones("D"))
        names = {b.name_of(p) for p in self.added}
        (light if self.x == "L" else dark).update(names)
        try:
            cand = Position(b, light, dark, self.x)
        except ValueError:
            return None
        return None if cand.outcome is not None else cand

    def _block(self) -> None:
        """Block the last candidate's exact set of added stones (and its symmetric forms)."""
        added = set(self.added)
        self._clause(set(self.window) - added, added)

    def _forms(self, add: set, drop: set) -> list[tuple[frozenset, frozenset]]:
        """``(add, drop)`` and its distinct images under :attr:`symmetries`."""
        forms = [(frozenset(add), frozenset(drop))]
        for sym in self.symmetries:
            form = (frozenset(sym[p] for p in add), frozenset(sym[p] for p in drop))
            if form not in forms:
                forms.append(form)
        return forms

    def _clause(self, add: set, drop: set) -> None:
        """Demand that a later candidate add a point of ``add`` or leave out a point of
        ``drop``, and the same of each symmetric form (see the module docstring)."""
        for a, d in self._forms(add, drop):
            self.learned.append((a, d))
            self.solver.add_clause([self.var[p] for p in sorted(a)] + [-self.var[p] for p in sorted(d)])

    def _prefer(self, add: set, drop: set, weight: int = PREFER) -> None:
        """The soft form of :meth:`_clause` (weight :data:`PREFER` unless given), with
        its symmetric forms: a candidate that breaks it costs more, none is excluded."""
        for a, d in self._forms(add, drop):
            if not a and not d:
                continue  # nothing to prefer: a soft empty clause is only a constant cost
            self.preferred.append((a, d))
            self.solver.add_clause([self.var[p] for p in sorted(a)] + [-self.var[p] for p in sorted(d)],
                                   weight=weight)

    def route(self, reply: str) -> set[int]:
        """The route of the defender's ``reply`` in the last candidate (module
        docstring): its point, and the empty points between it and the target group
        when it lies on a line from the group through empty points only (the stones
        added so far count)."""
        b = self.board
        r = b.index(reply)
        occupied = self.occupied | set(self.added)
        out = {r}
        for s_ in sorted(self.tgroup):
            for ray in b.rays[s_]:
                between = []
                for p in ray:
                    if p == r:
                        out.update(between)
                        break
                    if p in occupied:
                        break
                    between.append(p)
        return out

    def certificate(self) -> frozenset | None:
        """The points of an escape certificate of the last candidate (module
        docstring, claim C), or None when this check finds none."""
        return certificate(self.board, self.tgroup, self.own, self.occupied | set(self.added), self.n)

    def learn_certificate(self, points: frozenset) -> None:
        """The hard clause of a certificate: a later candidate adds a stone on one of
        its ``points`` (those in the window: the others no candidate can take), with
        its symmetric forms.  Sound by claim C; it also blocks the last candidate."""
        if self.solver is None:
            return
        self._clause({p for p in self.window if p in points}, set())
        self.certified.append(frozenset(points))

    @staticmethod
    def allows(clause: tuple[frozenset, frozenset], added) -> bool:
        """Whether the set of added points ``added`` satisfies a learned ``clause``."""
        add, drop = clause
        added = set(added)
        return bool(add & added) or bool(drop - added)

    def _zone(self) -> set[int]:
        """The points of the target's paths and fresh lines and its liberties in the
        last candidate (the stones added so far count)."""
        b = self.board
        added = set(self.added)
        occupied = self.occupied | added
        zone = {q for s_ in self.tgroup for q in b.neighbours[s_] if q not in occupied}
        for pts in paths_of(b, self.tgroup, self.own, occupied) + fresh_lines_of(b, self.tgroup, occupied):
            zone.update(pts)
        return zone

    def learn(self, why: str, reply: str | None = None) -> None:
        """Turn the verifier's verdict on the last candidate into clauses: its exact set
        blocked, and the preference of ``'escapes'`` or ``'shorter'`` (any other
        verdict, ``'sound'`` included, only blocks the set).  ``reply``, with
        ``'escapes'``: the defender's reply that refuted an attacker first move (the
        escape's witness); its route in the window becomes a preference of weight
        :data:`ROUTE` (module docstring)."""
        if self.solver is None:
            return
        added = set(self.added)
        self._block()
        if why == "escapes":
            # the target got away: prefer taking one more of its resources (a point of
            # its lines or a liberty, as they stand in the candidate)
            zone = self._zone() - added
            self._prefer({p for p in self.window if p in zone}, set())
            if reply is not None and ROUTE > 0:
                # ... and above all closing the way out the search found
                way = self.route(reply) - added
                self._prefer({p for p in self.window if p in way}, set(), ROUTE)
        elif why == "shorter" and added:
            # too easy: prefer dropping one of those stones
            self._prefer(set(), added)
