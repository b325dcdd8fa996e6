"""Proof certificates: a df-pn proof written out as an AND/OR graph, and its checker.

A certificate shows that the **winner** wins a position (the *root*) whatever the other
player does: at the winner's turns it gives exactly one move, at the loser's turns every
legal reply, and every branch ends in a finished game that the winner has won.  Positions
reached along several paths (transpositions) are one node.  The graph is acyclic and each
position is one node, so no line of play in it repeats a position: the win holds under any
repetition rule.

:func:`write_certificate` builds one from a :class:`~solver.search.prove.Proof` of
df-pn (using the search and the compiled core); :func:`check` verifies a certificate file
with **only** the networkx reference rules (:mod:`solver.reference`) and the board and
notation parsers: no search code, no compiled core.

File format (JSON, one object; each node on a line of its own)::

    {"format": "meridians-certificate", "version": 1, "board": "2/3",
     "root": "2/3/4/3/2 L", "winner": "L", "node_count": 1234,
     "code": "meridians 0.1.0 (rules 2026-11-30)", "reproved": 0,
     "nodes": [
      {"id": 0, "position": "2/3/4/3/2 L", "move": "c2", "next": 1},
      {"id": 1, "position": "2/3/1L2/3/2 D", "replies": {"a1": 2, "a2": 7, ...}},
      ...
      {"id": 9, "position": "...", "won": "L"}
     ]}

Node 0 is the root.  A node is one of: a **winner node** (the winner to move: ``move``,
the point played, and ``next``, the id of the position after it), a **loser node** (the
other player to move: ``replies``, every legal point mapped to the id of the position
after it), a **leaf** (a finished game: ``won``, the winner).  Positions are in the
position notation, "after removal".
"""

from __future__ import annotations

import functools
import gc
import gzip
import hashlib
import json
import multiprocessing
import os
import zlib
from array import array

import numpy

from . import reference as ref
from .board import Board, BoardError
from .notation import NotationError, parse_position

__all__ = ["CertificateError", "FORMAT", "VERSION", "check", "check_data", "read_certificate", "build_certificate", "write_certificate"]

FORMAT = "meridians-certificate"
VERSION = 1


class CertificateError(ValueError):
    """A certificate that does not prove its claim (or cannot be built); the message
    names the first problem found."""


# -- checking: the reference rules only ------------------------------------------------------


def check(path: str | os.PathLike, progress=None, jobs: int = 1) -> int:
    """Verify the certificate in the file ``path`` (gzip-compressed if its name ends in
    ``.gz``); return the number of positions checked.  ``jobs`` > 1 checks the positions
    in that many processes (the positions are independent; the graph is checked whole).

    Raises :class:`CertificateError` naming the first problem.  Uses only
    :mod:`solver.reference`, :mod:`solver.board` and :mod:`solver.notation`.
    """
    return check_data(read_certificate(path), progress, jobs)


def read_certificate(path: str | os.PathLike) -> object:
    """The JSON of the certificate file ``path`` (gzip-compressed if its name ends in
    ``.gz``), not yet checked: the header as a dict, its ``nodes`` stored compactly as
    they are read (a node takes about 90 bytes, not the 620 of a dict).  Raises
    :class:`CertificateError` if it cannot be read."""
    opener = gzip.open if str(path).endswith(".gz") else open
    nodes = _Nodes()
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            data = json.load(f, object_pairs_hook=nodes.hook)
    except (gzip.BadGzipFile, EOFError) as e:
        raise CertificateError(f"{path} is not a whole gzip file: {e}") from None
    except OSError as e:
        raise CertificateError(f"cannot read {path}: {e.strerror or e}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CertificateError(f"{path} is not JSON: {e}") from None
    if isinstance(data, dict) and isinstance(data.get("nodes"), list):
        data["nodes"] = nodes.claim(data["nodes"])
    return data


#: positions between two calls of a progress callback
PROGRESS_EVERY = 50_000

_NODE = object()  # what a node object of the file becomes once _Nodes has stored it
MOVE, REPLIES, WON_L, WON_D, ODD = range(5)  # a node's kind; ODD: malformed


class _Nodes:
    """A certificate's nodes, stored column-wise as they are read: a node is its position
    text in one byte string, a kind byte, and its edges (the point played, the node it
    leads to) in flat arrays.  A 3/4 certificate has tens of millions of nodes; as dicts
    they would not fit in memory, and forked checkers would copy every dict they read."""

    def __init__(self) -> None:
        self.texts = bytearray()
        self.text_end = array("q")
        self.kind = bytearray()
        self.edge_end = array("q")  # node i's edges are [edge_end[i - 1], edge_end[i])
        self.points: list = []  # the point of each edge: a move, or a reply
        self.targets = array("q")  # the node each edge leads to (as given; -1 if no int)
        # what is malformed in a node, by node: a whole message if it is found before the
        # node's position is read, else what follows "node i (position): "
        self.odd: dict[int, str] = {}
        self._names: dict = {}  # one object per point name, shared by every edge

    def __len__(self) -> int:
        return len(self.kind)

    def text(self, i: int) -> str:
        return self.texts[self.text_end[i - 1] if i else 0:self.text_end[i]].decode()

    def edges(self, i: int) -> range:
        return range(self.edge_end[i - 1] if i else 0, self.edge_end[i])

    def hook(self, pairs: list) -> object:
        """``json.load``'s object hook: a node object is stored, the rest kept."""
        obj = dict(pairs)
        if "position" not in obj:
            return obj
        self.add(obj)
        return _NODE

    def claim(self, listed: list) -> "_Nodes":
        """Self, if ``listed`` (the file's node list, read with :meth:`hook`) holds the
        stored nodes and nothing else, in order."""
        for i, item in enumerate(listed):
            if item is not _NODE:
                raise CertificateError(f"node {i} is not an object" if not isinstance(item, dict)
                                       else f"node {i}: a position must be a string")
        if len(listed) != len(self):
            raise CertificateError("an object with a position stands outside the node list")
        return self

    @classmethod
    def of(cls, listed: list) -> "_Nodes":
        """The nodes of a list of node dicts (a certificate already in memory)."""
        nodes = cls()
        for i, item in enumerate(listed):
            if not isinstance(item, dict):
                raise CertificateError(f"node {i} is not an object")
            nodes.add(item)
        return nodes

    def add(self, node: dict) -> None:
        i = len(self.kind)
        text = node.get("position")
        self.texts += text.encode() if isinstance(text, str) else b"?"
        self.text_end.append(len(self.texts))
        problem = None  # the first thing malformed in the node
        if not isinstance(text, str):
            problem = f"node {i}: a position must be a string"
        elif node.get("id", i) != i:
            problem = f"node {i} has id {node.get('id')!r}"
        kinds = [k for k in ("move", "replies", "won") if k in node]
        edges: list = []
        kind = ODD
        if len(kinds) != 1:
            problem = problem or "must have exactly one of move, replies, won"
        elif "won" in node:
            kind = {"L": WON_L, "D": WON_D}.get(node["won"], ODD)
            if kind == ODD:
                problem = problem or f"a leaf is won by 'L' or 'D', not {node['won']!r}"
        elif "move" in node:
            kind = MOVE
            edges = [(node["move"], node.get("next"), f"move {node['move']}")]
        elif isinstance(node["replies"], dict):
            kind = REPLIES
            edges = [(point, j, f"reply {point}") for point, j in node["replies"].items()]
        else:
            problem = problem or "replies must be an object"
        for point, j, label in edges:
            number = isinstance(j, int) and not isinstance(j, bool) and -1 <= j < 1 << 62
            if not isinstance(point, str):
                problem = problem or f"a move is a point name, not {point!r}"
            elif not number:
                problem = problem or f"{label} leads to no node ({j!r})"
            self.points.append(self._names.setdefault(point, point) if isinstance(point, str) else None)
            self.targets.append(j if number else -1)
        self.edge_end.append(len(self.targets))
        if problem is not None:
            self.odd[i] = problem
        self.kind.append(kind if problem is None else ODD)


class _Certificate:
    """What checking one position needs: the board, the claim, the nodes and (once
    parsed) every node's position as a number in ``keys``."""

    def __init__(self, board: Board, winner: str, nodes: _Nodes):
        self.board, self.winner, self.nodes = board, winner, nodes
        self.loser = "D" if winner == "L" else "L"
        # a position is light | dark << size | (side is D) << 2 size, in 64-bit words:
        # a few bytes a node, and forked checkers read it without copying it
        self.words = (2 * board.size + 64) // 64
        self.keys = numpy.zeros((len(nodes), self.words), dtype="<u8")

    def key(self, i: int) -> int:
        return int.from_bytes(self.keys[i].tobytes(), "little")

    def store(self, lo: int, keys: list[int]) -> None:
        raw = b"".join(k.to_bytes(8 * self.words, "little") for k in keys)
        self.keys[lo:lo + len(keys)] = numpy.frombuffer(raw, dtype="<u8").reshape(-1, self.words)

    def first_repeat(self) -> tuple[int, int] | None:
        """``(i, j)``: the first node ``i`` whose position node ``j`` < ``i`` has, if any."""
        if len(self.keys) < 2:
            return None
        order = numpy.lexsort(self.keys.T[::-1])  # stable: equal positions in node order
        ranked = self.keys[order]
        same = (ranked[1:] == ranked[:-1]).all(axis=1)
        # the second of each run of equal positions repeats the first
        second = numpy.flatnonzero(same & numpy.concatenate(([True], ~same[:-1])))
        if not len(second):
            return None
        k = second[numpy.argmin(order[second + 1])]
        return int(order[k + 1]), int(order[k])


_SHARED: _Certificate | None = None  # the certificate forked worker processes check
_CHUNK = 2_000  # positions a worker process checks at a time


def check_data(data: object, progress=None, jobs: int = 1) -> int:
    """:func:`check` on a certificate already read (by :func:`read_certificate`, or a
    dict with a list of node dicts).  ``progress``, if given, is called as
    ``progress(stage, done, total)`` every few ten thousand positions (stages ``'read'``
    and ``'checked'``)."""
    if not isinstance(data, dict):
        raise CertificateError("a certificate is a JSON object")
    if data.get("format") != FORMAT:
        raise CertificateError(f"format is {data.get('format')!r}, not {FORMAT!r}")
    if data.get("version") != VERSION:
        raise CertificateError(f"format version {data.get('version')!r} is not {VERSION}")
    for key in ("board", "root", "winner", "nodes"):
        if key not in data:
            raise CertificateError(f"the header has no {key!r}")
    try:
        board = Board.parse(str(data["board"]))
    except BoardError as e:
        raise CertificateError(f"board: {e}") from None
    winner = data["winner"]
    if winner not in ("L", "D"):
        raise CertificateError(f"winner must be 'L' or 'D', not {winner!r}")
    nodes = data["nodes"]
    if isinstance(nodes, list):
        nodes = _Nodes.of(nodes)
    if not isinstance(nodes, _Nodes) or not len(nodes):
        raise CertificateError("nodes must be a non-empty list")
    if "node_count" in data and data["node_count"] != len(nodes):
        raise CertificateError(f"the header says {data['node_count']} nodes, the file has {len(nodes)}")
    c = _Certificate(board, winner, nodes)

    # every node well formed, its position valid and listed once
    for lo, keys in _in_chunks(c, _parse_range, jobs, progress, "read"):
        c.store(lo, keys)
    repeat = c.first_repeat()
    if repeat is not None:
        i, j = repeat
        raise CertificateError(f"node {i} repeats the position of node {j}: {nodes.text(i)}")
    if c.key(0) != _packed(board, *_parse(c, data["root"], "root")):
        raise CertificateError(f"node 0 is {nodes.text(0)}, not the root {data['root']}")

    # every node's move or replies, against the rules
    for _ in _in_chunks(c, _check_range, jobs, progress, "checked"):
        pass  # each part raises its first problem; nothing else comes back

    # acyclic (so no line repeats a position) and every node reachable from the root
    state = bytearray(len(nodes))  # 0 unseen, 1 on the path, 2 done
    targets = nodes.targets
    stack = [(0, nodes.edges(0).start)]
    state[0] = 1
    while stack:
        i, e = stack[-1]
        if e < nodes.edge_end[i]:
            stack[-1] = (i, e + 1)
            j = targets[e]
            if state[j] == 1:
                raise CertificateError(f"cycle: node {i} ({nodes.text(i)}) leads back to node {j}")
            if state[j] == 0:
                state[j] = 1
                stack.append((j, nodes.edges(j).start))
        else:
            state[i] = 2
            stack.pop()
    unreached = state.find(0)
    if unreached >= 0:
        raise CertificateError(f"node {unreached} is not reachable from the root")
    return len(nodes)


def _in_chunks(c: _Certificate, work, jobs: int, progress, stage: str):
    """``(lo, work(c, lo, hi))`` over the nodes in order, in chunks of PROGRESS_EVERY
    positions, or with ``jobs`` > 1 of _CHUNK positions run in forked processes (which
    see ``c`` as it is now); results and errors come back in node order either way."""
    n = len(c.nodes)
    parallel = jobs > 1 and n > _CHUNK and "fork" in multiprocessing.get_all_start_methods()
    size = _CHUNK if parallel else PROGRESS_EVERY
    ranges = [(lo, min(n, lo + size)) for lo in range(0, n, size)]

    def report(hi: int) -> None:
        if progress is not None and hi < n and hi // PROGRESS_EVERY > (hi - size) // PROGRESS_EVERY:
            progress(stage, hi, n)

    if parallel:
        global _SHARED
        _SHARED = c
        # the workers share the certificate with this process page by page until they
        # write to a page; it is in arrays, and the few objects left are frozen, so that
        # neither reading nor the workers' garbage collector writes to its pages
        gc.freeze()
        try:
            with multiprocessing.get_context("fork").Pool(min(jobs, len(ranges))) as pool:
                for (lo, hi), part in zip(ranges, pool.imap(functools.partial(_shared, work), ranges)):
                    report(hi)
                    yield lo, part
        finally:
            _SHARED = None
            gc.unfreeze()
        return
    for lo, hi in ranges:
        yield lo, work(c, lo, hi)
        report(hi)


def _shared(work, bounds: tuple[int, int]):
    return work(_SHARED, *bounds)


def _parse(c: _Certificate, text: object, what: str) -> tuple:
    if not isinstance(text, str):
        raise CertificateError(f"{what}: a position must be a string")
    try:
        b, light, dark, side = parse_position(text)
    except NotationError as e:
        raise CertificateError(f"{what}: {e}") from None
    if b.name != c.board.name:
        raise CertificateError(f"{what}: {text!r} is on board {b.name}, not {c.board.name}")
    why = ref.is_valid(c.board, light, dark, side)
    if why is not None:
        raise CertificateError(f"{what}: {text!r} is not a valid position: {why}")
    return light, dark, side


def _packed(board: Board, light: frozenset, dark: frozenset, side: str) -> int:
    """A position as one number (see :class:`_Certificate`)."""
    n = board.size
    return sum(1 << p for p in light) | sum(1 << p for p in dark) << n | (side == "D") << 2 * n


def _unpacked(board: Board, key: int) -> tuple[frozenset, frozenset, str]:
    n = board.size
    return (frozenset(p for p in range(n) if key >> p & 1),
            frozenset(p for p in range(n) if key >> (n + p) & 1), "D" if key >> 2 * n else "L")


def _parse_range(c: _Certificate, lo: int, hi: int) -> list[int]:
    """The positions of nodes ``lo`` to ``hi - 1``, each node well formed and its position
    valid."""
    out = []
    for i in range(lo, hi):
        problem = c.nodes.odd.get(i)
        if problem is not None and problem.startswith(f"node {i}"):
            raise CertificateError(problem)
        out.append(_packed(c.board, *_parse(c, c.nodes.text(i), f"node {i}")))
        if problem is not None:
            raise CertificateError(f"node {i} ({c.nodes.text(i)}): {problem}")
    return out


def _target(c: _Certificate, i: int, value: int, label: str) -> int:
    if not 0 <= value < len(c.nodes):
        raise CertificateError(f"node {i} ({c.nodes.text(i)}): {label} leads to no node ({value!r})")
    return value


def _child(c: _Certificate, i: int, point: str, legal: list[int]) -> int:
    """The position after ``point`` at node ``i``, whose legal moves are ``legal``."""
    light, dark, side = _unpacked(c.board, c.key(i))
    try:
        p = c.board.index(point)
    except BoardError as e:
        raise CertificateError(f"node {i} ({c.nodes.text(i)}): {e}") from None
    if p not in legal:
        raise CertificateError(f"node {i} ({c.nodes.text(i)}): {point} is not a legal move")
    return _packed(c.board, *ref.play(c.board, light, dark, side, p))


def _check_range(c: _Certificate, lo: int, hi: int) -> None:
    """Check nodes ``lo`` to ``hi - 1`` against the rules."""
    board, winner, nodes = c.board, c.winner, c.nodes
    for i in range(lo, hi):
        light, dark, side = _unpacked(board, c.key(i))
        result = ref.outcome(board, light, dark, side)
        kind = nodes.kind[i]
        if kind in (WON_L, WON_D):
            if result is None:
                raise CertificateError(f"node {i} ({nodes.text(i)}) is a leaf, but the game is not over")
            won = "L" if kind == WON_L else "D"
            if won != winner or result != winner:
                raise CertificateError(
                    f"node {i} ({nodes.text(i)}) is a leaf won by {result}, not by the claimed winner {winner}")
            continue
        if result is not None:
            raise CertificateError(f"node {i} ({nodes.text(i)}): the game is over ({result} won), it must be a leaf")
        edges = nodes.edges(i)
        if kind == MOVE:
            if side != winner:
                raise CertificateError(f"node {i} ({nodes.text(i)}) gives a move, but {side}, the loser, is to move")
            point = nodes.points[edges.start]
            j = _target(c, i, nodes.targets[edges.start], f"move {point}")
            if _child(c, i, point, ref.legal_moves(board, light, dark, side)) != c.key(j):
                raise CertificateError(
                    f"node {i} ({nodes.text(i)}): {point} does not lead to node {j} ({nodes.text(j)})")
            continue
        if side != c.loser:
            raise CertificateError(f"node {i} ({nodes.text(i)}) lists replies, but {side}, the winner, is to move")
        moves = ref.legal_moves(board, light, dark, side)
        legal = {board.name_of(p) for p in moves}
        given = {nodes.points[e] for e in edges}
        missing = sorted(legal - given)
        if missing:
            raise CertificateError(f"node {i} ({nodes.text(i)}): the reply {missing[0]} is missing")
        extra = sorted(given - legal)
        if extra:
            raise CertificateError(f"node {i} ({nodes.text(i)}): {extra[0]} is not a legal reply")
        for e in edges:
            point = nodes.points[e]
            j = _target(c, i, nodes.targets[e], f"reply {point}")
            if _child(c, i, point, moves) != c.key(j):
                raise CertificateError(
                    f"node {i} ({nodes.text(i)}): {point} does not lead to node {j} ({nodes.text(j)})")


# -- building: from a df-pn proof ------------------------------------------------------------


def _fresh(position):
    """``position`` without its game history (so that ``outcome`` is the rules' alone)."""
    from .position import Position

    p = object.__new__(Position)
    p.board, p._T, p._st, p._side = position.board, position._T, position._st, position._side
    p._history, p.last_move, p.removed = (), None, frozenset()
    return p


def _with_history(position, keys: list):
    p = _fresh(position)
    p._history = tuple(keys)
    return p


class _Graph:
    """The nodes of a certificate while it is built, kept compact: a 3/4 certificate has
    millions of positions, and as dicts of strings they took 550 bytes each, more than
    the machine has left beside the search's table.  A node here is a packed position
    (one int: the stones' bits and the side to move) and a kind; a winner node adds its
    move's point and its next node, a loser node its replies, in arrays shared by all."""

    LEAF, WINNER, LOSER = 0, 1, 2

    def __init__(self, root) -> None:
        self.root = root
        self.keys: list[int] = []       # node id -> packed position
        self.ids: dict[int, int] = {}   # packed position -> node id
        self.kind = bytearray()
        self.a = array("h")             # winner node: its move's point; loser node: its reply count
        self.b = array("q")             # winner node: its next node; loser node: its first reply slot
        self.reply_point = array("h")   # reply slots: the reply's point ...
        self.reply_node = array("q")    # ... and the node it leads to (-1 until walked)

    def __len__(self) -> int:
        return len(self.keys)

    @staticmethod
    def pack(st, side: int) -> int:
        """The packed form of a position's stones ``st`` and side to move."""
        return int.from_bytes(st.tobytes(), "little") << 1 | side

    def bare(self, st, side: int):
        """A Position of the stones ``st`` and side to move, without history."""
        p = _fresh(self.root)
        p._st, p._side = st, side
        return p

    def position(self, i: int):
        """Node ``i``'s position, without history (unpacked)."""
        import numpy as np

        key, shape = self.keys[i], self.root._st.shape
        st = np.frombuffer((key >> 1).to_bytes(self.root._st.nbytes, "little"), dtype=self.root._st.dtype)
        return self.bare(st.reshape(shape).copy(), key & 1)

    def add(self, key: int, kind: int, points: list[int]) -> int:
        """A new node: a leaf (no ``points``), a winner node (its move's point) or a loser
        node (every reply's point)."""
        i = len(self.keys)
        self.keys.append(key)
        self.ids[key] = i
        self.kind.append(kind)
        if kind == self.LOSER:
            self.a.append(len(points))
            self.b.append(len(self.reply_node))
            self.reply_point.extend(points)
            self.reply_node.extend([-1] * len(points))
        else:
            self.a.append(points[0] if points else -1)
            self.b.append(-1)
        return i

    def link(self, i: int, k: int, j: int) -> None:
        """The ``k``-th move walked at node ``i`` leads to node ``j``."""
        if self.kind[i] == self.WINNER:
            self.b[i] = j
        else:
            self.reply_node[self.b[i] + k] = j

    def node(self, i: int, winner: str) -> dict:
        """Node ``i`` as the file has it."""
        names = self.root.board.names
        rec: dict = {"id": i, "position": str(self.position(i))}
        kind, a, b = self.kind[i], self.a[i], self.b[i]
        if kind == self.LEAF:
            rec["won"] = winner
        elif kind == self.WINNER:
            rec["move"], rec["next"] = names[a], b
        else:
            rec["replies"] = {names[self.reply_point[s]]: self.reply_node[s] for s in range(b, b + a)}
        return rec


def build_certificate(
    position,
    proof=None,
    *,
    max_nodes: int = 2_000_000,
    reprove_seconds: float | None = 60.0,
    tt_mb: float = 256,
    progress=None,
) -> dict:
    """The certificate (a dict, as :func:`check_data` reads it) of a df-pn ``proof`` of
    ``position`` (a :class:`~solver.position.Position`).  Without ``proof`` the position
    is proven first.

    The walk from the root takes at the winner's turns a move that ends the game at once,
    else the table's move if the table has its child as won, else any child already in
    the certificate or won by the table; where the table has lost the entries (evicted),
    that sub-position is proven again (with the path to it as its game history, so that
    its proof avoids the path) and the walk goes on in the new table.  At the loser's turns
    every legal reply is walked.  Raises :class:`CertificateError` when there is no proof,
    when a proof does not hold up, or past ``max_nodes`` nodes.  ``progress``, if given,
    is called with the number of positions so far every few ten thousand.
    """
    head, graph = _build(position, proof, max_nodes=max_nodes, reprove_seconds=reprove_seconds,
                         tt_mb=tt_mb, progress=progress)
    return {**head, "nodes": [graph.node(i, head["winner"]) for i in range(len(graph))]}


def _build(position, proof, *, max_nodes: int = 2_000_000, reprove_seconds: float | None = 60.0,
           tt_mb: float = 256, progress=None) -> tuple[dict, _Graph]:
    """The header of :func:`build_certificate`'s certificate and its nodes as a graph."""
    import numpy as np

    from . import __version__, RULES_VERSION, core
    from .search import dfpn as F
    from .search.prove import prove

    root = _fresh(position)
    if proof is None and root.outcome is None:
        proof = prove(root, method="dfpn", tt_mb=tt_mb)
    if root.outcome is not None:
        winner = root.outcome
        if winner not in ("L", "D"):
            raise CertificateError("the game is drawn: there is nothing to certify")
        table = None
    else:
        if proof.value not in ("win", "loss") or getattr(proof, "search", None) is None:
            raise CertificateError(f"no df-pn proof to certify (value {proof.value}, method {proof.method})")
        table = proof.search
        winner = "LD"[table[2]]
    W = "LD".index(winner)
    # the walk works on bare (stones, side) pairs and the compiled core, not on Position
    # objects: the builder plays every legal reply of millions of positions
    T, names = root._T, root.board.names
    point_of = [int(x) for x in T.point_of]
    cell_of = [int(x) for x in T.cell_of]
    cells = np.empty(64 * T.w, dtype=np.int64)
    m_key = root.board.m

    def result(st, side) -> int | None:
        """The winner's index of a finished game, or None."""
        r = core.outcome(T, st, side)
        return None if r == core.NO_RESULT else int(r)

    def legal(st, side) -> list[int]:
        """The legal points, in board order (the order of Position.legal_moves)."""
        n = core.legal_moves(T, st, side, cells)
        return sorted(point_of[c] for c in cells[:n])

    def child(st, side, point: int):
        out = st.copy()
        core.play(T, out, side, cell_of[point])
        return out, 1 - side

    def won(t_entry, st, side) -> bool:
        """Whether the table ``t_entry`` (or the game itself) has the position as won by
        the winner."""
        r = result(st, side)
        if r is not None:
            return r == W
        if t_entry is None:
            return False
        t, D, w = t_entry
        found, pn, dn, _, _ = F.probe(t, D, st, side)
        if not found:
            return False
        return (pn == 0) if w == int(D.limits[F.PROVER]) else (dn == 0)

    def loses_at_once(st, side) -> bool:
        """Whether every move of the player to move ends the game won by the winner:
        df-pn's lookahead settles such a child without a table entry of its own, so the
        table's move at its parent is the only trace of it (in the first table or in one
        proven again)."""
        return result(st, side) is None and all(
            result(*child(st, side, q)) == W for q in legal(st, side))

    def table_move(t_entry, st, side) -> int | None:
        if t_entry is None:
            return None
        t, D, _ = t_entry
        _, _, _, cell, _ = F.probe(t, D, st, side)
        return int(t.point_of[cell]) if cell >= 0 else None

    graph = _Graph(root)
    on_path: set = set()    # packed positions on the walk's path
    reproved = [0]  # sub-positions proven again (their table entries were evicted)

    def new_node(key: int, kind: int, points: list[int]) -> int:
        i = len(graph)
        if i >= max_nodes:
            raise CertificateError(f"the certificate would have more than {max_nodes} nodes")
        if progress is not None and i % PROGRESS_EVERY == 0 and i:
            progress(i)
        return graph.add(key, kind, points)

    # iterative depth-first walk; a frame: [stones, side, key, node id, table, children
    # by point, points to do, points done, path keys]
    def open_node(st, side, t_entry, path_keys):
        key = graph.pack(st, side)
        r = result(st, side)
        if r is not None:
            if r != W:
                raise CertificateError(f"the proof reaches {graph.bare(st, side)}, won by {'LD'[r]}, "
                                       f"not {winner}")
            new_node(key, _Graph.LEAF, [])
            return None
        children = {q: child(st, side, q) for q in legal(st, side)}
        if side == W:
            move, t_entry = choose(st, side, children, t_entry, path_keys)
            todo = [move]
            i = new_node(key, _Graph.WINNER, todo)
        else:
            todo = list(children)
            i = new_node(key, _Graph.LOSER, todo)
        on_path.add(key)
        return [st, side, key, i, t_entry, children, todo, 0, path_keys + [(m_key, st.tobytes(), side)]]

    def choose(st, side, children, t_entry, path_keys):
        usable = {q: c for q, c in children.items() if graph.pack(*c) not in on_path}
        for q, c in usable.items():
            if result(*c) == W:
                return q, t_entry
        for attempt in range(2):
            tm = table_move(t_entry, st, side)
            if tm in usable and (graph.pack(*usable[tm]) in graph.ids or won(t_entry, *usable[tm])
                                 or loses_at_once(*usable[tm])):
                return tm, t_entry
            for q, c in usable.items():
                if graph.pack(*c) in graph.ids:
                    return q, t_entry
            for q, c in usable.items():
                if won(t_entry, *c):
                    return q, t_entry
            if attempt == 1:
                break
            # the table has lost this part of the proof: prove it again, avoiding the path
            p = _with_history(graph.bare(st, side), path_keys)
            again = prove(p, method="dfpn", seconds=reprove_seconds, tt_mb=tt_mb)
            if again.value != "win" or again.search is None:
                raise CertificateError(f"the proof does not hold up at {p}: proven again, {again.value}")
            t_entry = again.search
            reproved[0] += 1
        raise CertificateError(f"no winning move found at {graph.bare(st, side)}")

    frame = open_node(root._st, root._side, table, [])
    stack = [frame] if frame is not None else []
    while stack:
        frame = stack[-1]
        st, side, key, i, t_entry, children, todo, k, path_keys = frame
        if k == len(todo):
            on_path.discard(key)
            stack.pop()
            continue
        q = todo[k]
        frame[7] = k + 1
        c = children[q]
        ckey = graph.pack(*c)
        if ckey in on_path:
            raise CertificateError(f"the proof loops: {names[q]} at {graph.bare(st, side)} repeats a "
                                   "position of the line")
        j = graph.ids.get(ckey)
        if j is None:
            opened = open_node(*c, t_entry, path_keys)
            j = graph.ids[ckey]
            if opened is not None:
                stack.append(opened)
        graph.link(i, k, j)

    head = {
        "format": FORMAT, "version": VERSION, "board": root.board.name, "root": str(root),
        "winner": winner, "node_count": len(graph),
        "reproved": reproved[0],
        "code": f"meridians {__version__} (rules {RULES_VERSION})",
    }
    return head, graph


def dumps(cert: dict) -> str:
    """The certificate as text: the header, then one node per line."""
    head = {k: v for k, v in cert.items() if k != "nodes"}
    return "".join(_text(head, (json.dumps(n, separators=(",", ":")) for n in cert["nodes"])))


def _text(head: dict, lines):
    """The pieces of a certificate's text (see :func:`dumps`), one node line at a time."""
    yield json.dumps(head)[:-1] + ', "nodes": [\n'
    for k, line in enumerate(lines):
        yield (",\n" if k else "") + line
    yield "\n]}\n"


def write_certificate(path: str | os.PathLike, position, proof=None, *, header: dict | None = None,
                      **kwargs) -> dict:
    """Build the certificate of ``position`` (see :func:`build_certificate`, which takes
    the same keyword arguments; ``header`` adds fields to its header) and write it to
    ``path``, gzip-compressed if the name ends in ``.gz``, atomically; return its header
    with the file's ``bytes`` and ``sha256``.

    The nodes go to the file one at a time as they are written out, never all as text:
    the file is the same as ``dumps(build_certificate(...))`` (through
    ``gzip.compress(..., mtime=0)``), without holding it in memory.
    """
    from .files import write_atomic_chunks

    head, graph = _build(position, proof, **kwargs)
    head.update(header or {})
    winner = head["winner"]
    lines = (json.dumps(graph.node(i, winner), separators=(",", ":")) for i in range(len(graph)))
    pieces = (s.encode() for s in _text(head, lines))
    if str(path).endswith(".gz"):
        pieces = _gzipped(pieces)
    digest = hashlib.sha256()
    size = 0

    def counted(chunks):
        nonlocal size
        for chunk in chunks:
            digest.update(chunk)
            size += len(chunk)
            yield chunk

    write_atomic_chunks(path, _batched(counted(pieces)))
    return {**head, "bytes": size, "sha256": digest.hexdigest()}


def _gzipped(pieces):
    """``pieces`` compressed as ``gzip.compress(b"".join(pieces), mtime=0)`` would be."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    for piece in pieces:
        out = z.compress(piece)
        if out:
            yield out
    yield z.flush()


def _batched(chunks, size: int = 1 << 20):
    """Small chunks joined into writes of about ``size`` bytes."""
    buf: list[bytes] = []
    n = 0
    for chunk in chunks:
        buf.append(chunk)
        n += len(chunk)
        if n >= size:
            yield b"".join(buf)
            buf, n = [], 0
    if buf:
        yield b"".join(buf)
