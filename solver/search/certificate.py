"""Building proof certificates: a df-pn proof written out as an AND/OR graph.

:func:`build_certificate` and :func:`write_certificate` turn a df-pn proof (a
:class:`~solver.search.result.Result` with its :class:`~solver.search.result.ProofTable`,
walked with the compiled core)
into a certificate in the format that :mod:`solver.reference.certificate` describes and
checks.  Building uses the search (sub-positions whose table entries were evicted are
proven again); checking uses none of it, so a bug here can only produce a certificate the
checker rejects, never a false one accepted.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from array import array

import numpy as np

from solver.rules import core
from solver.reference.certificate import FORMAT, PROGRESS_EVERY, VERSION, VERSION_SETTLED, CertificateError
from solver.util.files import write_atomic_chunks
from solver.rules.position import Position
from solver.util.provenance import provenance
from . import dfpn as F
from .limit import Limit
from .prove import prove
from .values import Value

__all__ = ["CertificateError", "CertificateWalk", "build_certificate", "certificate_of", "write_certificate",
           "write_graph", "write_random_certificates", "dumps", "LIBRARY_COMMAND"]



def _cells(words) -> list[int]:
    """The set bits of a row of uint64 words, as cell numbers."""
    out = []
    for k, w in enumerate(int(x) for x in words):
        while w:
            low = w & -w
            out.append(64 * k + low.bit_length() - 1)
            w ^= low
    return out


@core.kernel
def _first_won_at_once(T, st, side, cells, child):
    """The lowest point whose move wins the game at once for ``side``, the player to move
    (-1: none); ``cells`` and ``child`` are scratch."""
    best = -1
    for k in range(core.legal_moves(T, st, side, cells)):
        p = T.point_of[cells[k]]
        if best >= 0 and p >= best:
            continue
        for c in range(st.shape[0]):
            for i in range(st.shape[1]):
                child[c, i] = st[c, i]
        core.play(T, child, side, cells[k])
        if core.outcome(T, child, 1 - side) == side:
            best = p
    return best


def _fresh(position, keys: tuple = ()):
    """``position`` without its game history (so that ``outcome`` is the rules' alone),
    or with the earlier positions' ``keys`` as its history."""
    return Position.from_arrays(position.board, position.bitboards, position.side_index,
                                history=keys, check=False)


def _with_history(position, keys: list):
    return _fresh(position, tuple(keys))


class _Graph:
    """The nodes of a certificate while it is built, kept compact: a 3/4 certificate has
    millions of positions, and as dicts of strings they took 550 bytes each, more than
    the machine has left beside the search's table.  A node here is a packed position
    (one int: the stones' bits and the side to move) and a kind; a winner node adds its
    move's point and its next node, a loser node its replies, in arrays shared by all."""

    LEAF, WINNER, LOSER, SETTLED = 0, 1, 2, 3

    def __init__(self, root) -> None:
        self.root = root
        self.keys: list[int] = []       # node id -> packed position
        self.ids: dict[int, int] = {}   # packed position -> node id
        self.kind = bytearray()
        self.a = array("h")             # winner node: its move's point; loser node: its reply count
        self.b = array("q")             # winner node: its next node; loser node: its first reply slot
        self.reply_point = array("h")   # reply slots: the reply's point ...
        self.reply_node = array("q")    # ... and the node it leads to (-1 until walked)
        self.claims: dict[int, dict] = {}  # settled leaf -> its claim {"owner", "supply", "bound"}

    def __len__(self) -> int:
        return len(self.keys)

    @staticmethod
    def pack(st, side: int) -> int:
        """The packed form of a position's stones ``st`` and side to move."""
        return int.from_bytes(st.tobytes(), "little") << 1 | side

    def bare(self, st, side: int):
        """A Position of the stones ``st`` and side to move, without history."""
        return Position.from_arrays(self.root.board, st, side, check=False)

    def position(self, i: int):
        """Node ``i``'s position, without history (unpacked)."""
        key, stones = self.keys[i], self.root.bitboards
        st = np.frombuffer((key >> 1).to_bytes(stones.nbytes, "little"), dtype=stones.dtype)
        return self.bare(st.reshape(stones.shape), key & 1)  # read-only, so not copied again

    def unpack(self, i: int):
        """Node ``i``'s ``(stones, side)``."""
        key, stones = self.keys[i], self.root.bitboards
        st = np.frombuffer((key >> 1).to_bytes(stones.nbytes, "little"), dtype=stones.dtype)
        return st.reshape(stones.shape), key & 1

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
        elif kind == self.SETTLED:
            rec["settled"] = dict(self.claims[i])
        elif kind == self.WINNER:
            rec["move"], rec["next"] = names[a], b
        else:
            rec["replies"] = {names[self.reply_point[s]]: self.reply_node[s] for s in range(b, b + a)}
        return rec


#: the ``command`` of a certificate's stamp when its caller names none
LIBRARY_COMMAND = "solver.search.certificate.write_certificate (a library call)"


def build_certificate(
    position,
    proof=None,
    *,
    max_nodes: int = 2_000_000,
    reprove_seconds: float | None = 60.0,
    tt_mb: float = 256,
    progress=None,
    command: str = LIBRARY_COMMAND,
) -> dict:
    """The certificate (a dict, as :func:`check_data` reads it) of a df-pn ``proof`` of
    ``position`` (a :class:`~solver.rules.position.Position`).  Without ``proof`` the position
    is proven first.  The header's ``code`` is the provenance stamp
    (:func:`solver.util.provenance.provenance`) of ``command``, the command that writes it.

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
                         tt_mb=tt_mb, progress=progress, command=command)
    return certificate_of(head, graph)


def certificate_of(head: dict, graph: _Graph) -> dict:
    """The certificate (a dict) of header ``head`` and nodes ``graph``."""
    return {**head, "nodes": [graph.node(i, head["winner"]) for i in range(len(graph))]}


def _build(position, proof, *, max_nodes: int = 2_000_000, reprove_seconds: float | None = 60.0,
           tt_mb: float = 256, progress=None, command: str = LIBRARY_COMMAND,
           settled: bool = True) -> tuple[dict, _Graph]:
    """The header of :func:`build_certificate`'s certificate and its nodes as a graph.

    With ``settled`` and a proof that used the rule, a position that the settled rule decides for the winner (df-pn's
    knowledge, :mod:`solver.search.knowledge`) is a settled leaf, its claim confirmed by
    the reference (:func:`solver.reference.settled.check_settled`, with the path to it and, at the
    end, every node as the earlier positions, as the checker has them); when one cannot be
    confirmed against every node, the certificate is built again without settled leaves
    (the subtrees are then walked or proven as ordinary ones)."""
    refused: set = set()  # settled leaves that some node of an earlier build blocked
    # a proof found without the rule has no settled leaves to write, and looking for them
    # costs the reference's solitaires at every node (9 s of a 215-node build)
    settled = settled and proof is not None and bool((getattr(proof, "stats", None) or {}).get("settled"))
    for attempt in range(SETTLED_ROUNDS + 1):
        built = _build_once(position, proof, max_nodes=max_nodes, reprove_seconds=reprove_seconds,
                            tt_mb=tt_mb, progress=progress, command=command,
                            settled=settled and attempt < SETTLED_ROUNDS, refused=refused)
        if built is not None:
            return built
    raise AssertionError("a build without settled leaves always ends")  # pragma: no cover


#: builds that may refuse more settled leaves before the last builds without any
SETTLED_ROUNDS = 4


def _build_once(position, proof, *, max_nodes, reprove_seconds, tt_mb, progress, command,
                settled, refused: set) -> tuple[dict, _Graph] | None:
    """One walk of :func:`_build`, without settled leaves at the packed positions of
    ``refused``; None when a settled leaf does not hold against every node (its position
    is then added to ``refused``)."""
    root = _fresh(position)
    if proof is None and root.outcome is None:
        proof = prove(root, Limit(tt_mb=tt_mb), method="dfpn")
    if root.outcome is not None:
        winner = root.outcome
        if winner not in ("L", "D"):
            raise CertificateError("the game is drawn: there is nothing to certify")
        table = None
    else:
        if not proof.proven or proof.table is None:
            raise CertificateError(f"no df-pn proof to certify (value {proof.value}, method {proof.method})")
        table = proof.table
        winner = "LD"[table.winner]
    walk = CertificateWalk(root, "LD".index(winner), max_nodes=max_nodes, reprove_seconds=reprove_seconds,
                           tt_mb=tt_mb, progress=progress, settled=settled, refused=refused)
    walk.subtree(root.bitboards, root.side_index, table, [])
    if not walk.settled_hold():
        return None
    return walk.head(command), walk.graph


class CertificateWalk:
    """The graph of a certificate that ``winner`` (0 Light, 1 Dark) wins ``root`` (a bare
    Position), built by depth-first walks that share it: :meth:`subtree` walks a proof
    table's proof below a position, :meth:`open` and :meth:`close` add a node whose
    children a caller walks (:mod:`solver.jobs.jlpns_certificate` walks a master tree so).
    A position is one node; those on the walk's path are never a child again, so the graph
    stays acyclic.  ``settled``: settled leaves may be written, except at the packed
    positions of ``refused``; the other arguments are :func:`build_certificate`'s."""

    def __init__(self, root, winner: int, *, max_nodes: int = 2_000_000, reprove_seconds: float | None = 60.0,
                 tt_mb: float = 256, progress=None, settled: bool = False, refused: set | None = None):
        self.root, self.W, self.winner = root, winner, "LD"[winner]
        self.max_nodes, self.reprove_seconds, self.tt_mb = max_nodes, reprove_seconds, tt_mb
        self.progress, self.settled = progress, settled
        self.refused = set() if refused is None else refused
        # the walk works on bare (stones, side) pairs and the compiled core, not on Position
        # objects: the builder plays every legal reply of millions of positions
        self.T = core.tables(root.board)
        self.names = root.board.names
        self.point_of = [int(x) for x in self.T.point_of]
        self.cell_of = [int(x) for x in self.T.cell_of]
        self.cells = np.empty(64 * self.T.w, dtype=np.int64)
        self.spare = np.empty_like(root.bitboards)  # a child's stones, in the kernel below
        core.load_kernels(self.T, "the certificate builder",
                          [(_first_won_at_once, (self.T, root.bitboards, root.side_index, self.cells, self.spare))])
        self.m_key = root.board.m
        self.graph = _Graph(root)
        self.on_path: set = set()  # packed positions on the walk's path
        self.reproved = 0  # sub-positions proven again (their table entries were evicted)
        self.scratch: list = []  # the settled rule's arrays, made on its first use

    # -- the rules, on (stones, side) pairs ------------------------------------------
    def result(self, st, side) -> int | None:
        """The winner's index of a finished game, or None."""
        r = core.outcome(self.T, st, side)
        return None if r == core.NO_RESULT else int(r)

    def legal(self, st, side) -> list[int]:
        """The legal points, in board order (the order of Position.legal_moves)."""
        n = core.legal_moves(self.T, st, side, self.cells)
        return sorted(self.point_of[c] for c in self.cells[:n])

    def child(self, st, side, point: int):
        out = st.copy()
        core.play(self.T, out, side, self.cell_of[point])
        return out, 1 - side

    def path_key(self, st, side) -> tuple:
        """The history entry of a position, as a path's keys have it."""
        return (self.m_key, st.tobytes(), side)

    # -- what a proof table says ---------------------------------------------------
    def won(self, t_entry, st, side) -> bool:
        """Whether the table ``t_entry`` (or the game itself) has the position as won by
        the winner."""
        r = self.result(st, side)
        if r is not None:
            return r == self.W
        if t_entry is None:
            return False
        t, D, w = t_entry.tables, t_entry.search, t_entry.winner
        found, pn, dn, _, _ = F.probe(t, D, st, side)
        if not found:
            return False
        return (pn == 0) if w == int(D.limits[F.PROVER]) else (dn == 0)

    def loses_at_once(self, st, side) -> bool:
        """Whether every move of the player to move ends the game won by the winner:
        df-pn's lookahead settles such a child without a table entry of its own, so the
        table's move at its parent is the only trace of it (in the first table or in one
        proven again)."""
        return self.result(st, side) is None and all(
            self.result(*self.child(st, side, q)) == self.W for q in self.legal(st, side))

    def table_move(self, t_entry, st, side) -> int | None:
        if t_entry is None:
            return None
        t, D = t_entry.tables, t_entry.search
        _, _, _, cell, _ = F.probe(t, D, st, side)
        return int(t.point_of[cell]) if cell >= 0 else None

    def reference_of(self, st, side) -> tuple:
        """(light, dark, side) with point indices, as solver.reference.settled reads positions."""
        return (frozenset(self.point_of[c] for c in _cells(st[0])),
                frozenset(self.point_of[c] for c in _cells(st[1])), "LD"[side])

    def settled_claim(self, st, side, path_keys) -> dict | None:
        """The claim of a settled leaf for the winner at (st, side) after ``path_keys``:
        the fast rule finds it as df-pn does, its numbers are computed exactly, and the
        reference confirms them against the path."""
        if not self.settled or self.result(st, side) is not None or self.graph.pack(st, side) in self.refused:
            return None
        from solver.reference import settled as S
        from . import knowledge as K_

        T, W = self.T, self.W
        if not self.scratch:
            self.scratch.extend([K_.new_scratch(T, cache=1), K_.new_scratch(T, filters=False, cache=1),
                                 np.zeros((2, T.w), np.uint64)])
        quick, exact, nothing = self.scratch
        if K_.settle(T, quick, st, side, nothing, 0)[0] != W:  # as df-pn finds it
            return None
        h, _ = K_._one(T, exact, st, side, W, nothing, 0, 1)
        v, _ = K_._one(T, exact, st, side, W, nothing, 0, 2)
        if h < 0 or v < 0 or h < v + (side == W):
            return None
        claim = {"owner": self.winner, "supply": h, "bound": v}
        earlier = [self.reference_of(np.frombuffer(b, np.uint64).reshape(st.shape), s_) for _, b, s_ in path_keys]
        try:
            S.check_settled((self.root.board, *self.reference_of(st, side)), claim, earlier)
        except S.SettledError:
            return None
        return claim

    # -- building ------------------------------------------------------------------
    def _new_node(self, key: int, kind: int, points: list[int]) -> int:
        i = len(self.graph)
        if i >= self.max_nodes:
            raise CertificateError(f"the certificate would have more than {self.max_nodes} nodes")
        if self.progress is not None and i % PROGRESS_EVERY == 0 and i:
            self.progress(i)
        return self.graph.add(key, kind, points)

    def open(self, st, side, points: list[int]) -> int:
        """A new node of (st, side) on the walk's path: a winner node (``points``: its
        move's) or a loser node (every legal reply's), its children linked by the caller
        (``graph.link``) before :meth:`close`."""
        key = self.graph.pack(st, side)
        i = self._new_node(key, _Graph.WINNER if side == self.W else _Graph.LOSER, points)
        self.on_path.add(key)
        return i

    def close(self, i: int) -> None:
        """Node ``i`` is done: off the walk's path."""
        self.on_path.discard(self.graph.keys[i])

    def known(self, st, side) -> int | None:
        """The node of (st, side) if the graph has it and it is done (CertificateError if
        it is on the walk's path: a line that repeats a position)."""
        key = self.graph.pack(st, side)
        if key in self.on_path:
            raise CertificateError(f"the proof loops: {self.graph.bare(st, side)} repeats a position of the line")
        return self.graph.ids.get(key)

    # iterative depth-first walk; a frame: [stones, side, key, node id, table, children
    # by point, points to do, points done, path keys]
    def _open_frame(self, st, side, t_entry, path_keys):
        graph = self.graph
        key = graph.pack(st, side)
        r = self.result(st, side)
        if r is not None:
            if r != self.W:
                raise CertificateError(f"the proof reaches {graph.bare(st, side)}, won by {'LD'[r]}, "
                                       f"not {self.winner}")
            self._new_node(key, _Graph.LEAF, [])
            return None
        claim = self.settled_claim(st, side, path_keys)
        if claim is not None:
            graph.claims[self._new_node(key, _Graph.SETTLED, [])] = claim
            return None
        if side == self.W:
            move, t_entry, after = self._choose(st, side, t_entry, path_keys)
            children, todo = {move: after}, [move]
        else:
            children = {q: self.child(st, side, q) for q in self.legal(st, side)}
            todo = list(children)
        i = self.open(st, side, todo)
        return [st, side, key, i, t_entry, children, todo, 0, path_keys + [self.path_key(st, side)]]

    def _choose(self, st, side, t_entry, path_keys):
        """The winner's move at (st, side), the table to go on with, and the position after
        the move: a move that wins at once, else the table's move if its child is known
        or won, else a child already in the graph, else a won child (proven again when the
        table has lost them).  Only the table's move is played unless it fails: a winner
        node of a large proof has some twenty moves, and playing them all was most of the
        build's time."""
        graph = self.graph
        q = int(_first_won_at_once(self.T, st, side, self.cells, self.spare))
        if q >= 0:  # a finished game is never on the path
            return q, t_entry, self.child(st, side, q)
        here = path_keys + [self.path_key(st, side)]
        legal = self.legal(st, side)
        usable = None  # the children not on the path, played only when the table's move fails
        for attempt in range(2):
            tm = self.table_move(t_entry, st, side)
            if tm in legal:
                c = self.child(st, side, tm)
                if graph.pack(*c) not in self.on_path and self._holds(t_entry, c, here):
                    return tm, t_entry, c
            if usable is None:
                children = ((q, self.child(st, side, q)) for q in legal)
                usable = {q: c for q, c in children if graph.pack(*c) not in self.on_path}
            for q, c in usable.items():
                if graph.pack(*c) in graph.ids:
                    return q, t_entry, c
            for q, c in usable.items():
                if self.won(t_entry, *c) or self.settled_claim(*c, here):
                    return q, t_entry, c
            if attempt == 1:
                break
            # the table has lost this part of the proof: prove it again, avoiding the path
            p = _with_history(graph.bare(st, side), path_keys)
            # without the settled rule: a child it decided that the reference cannot
            # confirm here is then proven by the search
            again = prove(p, Limit(seconds=self.reprove_seconds, tt_mb=self.tt_mb), method="dfpn", knowledge=False)
            if again.value is not Value.WIN or again.table is None:
                raise CertificateError(f"the proof does not hold up at {p}: proven again, {again.value}")
            t_entry = again.table
            self.reproved += 1
        raise CertificateError(f"no winning move found at {graph.bare(st, side)}")

    def _holds(self, t_entry, c, here) -> bool:
        """Whether the table's move may be taken to the child ``c``: the graph has it, or
        the table, the game one move on or the settled rule has it won."""
        return (self.graph.pack(*c) in self.graph.ids or self.won(t_entry, *c)
                or self.loses_at_once(*c) or bool(self.settled_claim(*c, here)))

    def subtree(self, st, side, t_entry, path_keys: list) -> int:
        """The node of (st, side), walked from there with the proof table ``t_entry``
        (a :class:`~solver.search.result.ProofTable`; None: a finished game) unless the
        graph has it; ``path_keys``: the path's positions before it (:meth:`path_key`),
        the history of any sub-position proven again."""
        known = self.known(st, side)
        if known is not None:
            return known
        graph = self.graph
        frame = self._open_frame(st, side, t_entry, path_keys)
        stack = [frame] if frame is not None else []
        while stack:
            frame = stack[-1]
            st_, side_, key, i, t_here, children, todo, k, keys = frame
            if k == len(todo):
                self.close(i)
                stack.pop()
                continue
            q = todo[k]
            frame[7] = k + 1
            c = children[q]
            ckey = graph.pack(*c)
            if ckey in self.on_path:
                raise CertificateError(f"the proof loops: {self.names[q]} at {graph.bare(st_, side_)} repeats a "
                                       "position of the line")
            j = graph.ids.get(ckey)
            if j is None:
                opened = self._open_frame(*c, t_here, keys)
                j = graph.ids[ckey]
                if opened is not None:
                    stack.append(opened)
            graph.link(i, k, j)
        return graph.ids[graph.pack(st, side)]

    def settled_hold(self) -> bool:
        """Whether every settled leaf holds against every node, as the checker guards it;
        those that do not are added to ``refused``."""
        graph = self.graph
        if not graph.claims:
            return True
        from solver.reference import settled as S

        everyone = S.History(self.reference_of(*graph.unpack(i)) for i in range(len(graph)))
        held = True
        for i, claim in graph.claims.items():
            try:
                S.check_settled((self.root.board, *self.reference_of(*graph.unpack(i))), claim, everyone)
            except S.SettledError:
                self.refused.add(graph.keys[i])
                held = False
        return held

    def head(self, command: str = LIBRARY_COMMAND) -> dict:
        """The certificate's header (without the file's ``bytes`` and ``sha256``)."""
        return {
            "format": FORMAT, "version": VERSION_SETTLED if self.graph.claims else VERSION,
            "board": self.root.board.name, "root": str(self.root),
            "winner": self.winner, "node_count": len(self.graph),
            "reproved": self.reproved,
            # the whole stamp in one field: the header's own "version" is the format's
            "code": provenance(command),
        }


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
                      written=None, **kwargs) -> dict:
    """Build the certificate of ``position`` (see :func:`build_certificate`, which takes
    the same keyword arguments; ``header`` adds fields to its header) and write it to
    ``path``, gzip-compressed if the name ends in ``.gz``, atomically; return its header
    with the file's ``bytes`` and ``sha256``.  ``command`` (a keyword argument) names the
    command in the header's provenance stamp, ``code``; ``written(n, total)``, if given,
    is called every PROGRESS_EVERY nodes written (see :func:`write_graph`).

    The nodes go to the file one at a time as they are written out, never all as text:
    the file is the same as ``dumps(build_certificate(...))`` (through
    ``gzip.compress(..., mtime=0)``), without holding it in memory.
    """
    head, graph = _build(position, proof, **kwargs)
    return write_graph(path, {**head, **(header or {})}, graph, written=written)


def write_random_certificates(folder: str | os.PathLike, board, count: int, plies: int,
                              tt_mb: float = 64) -> list[str]:
    """The files ``folder/c0.json.gz``, ... of the certificates of ``count`` positions
    ``plies`` plies into seeded random games on ``board`` (what the benchmarks check)."""
    from solver.rules.randomgame import random_positions

    files = []
    for k, pos in enumerate(random_positions(board, count, plies)):
        files.append(os.path.join(folder, f"c{k}.json.gz"))
        write_certificate(files[-1], pos, prove(pos, Limit(tt_mb=tt_mb)), tt_mb=tt_mb)
    return files


def write_graph(path: str | os.PathLike, head: dict, graph: _Graph, written=None) -> dict:
    """Write the certificate of header ``head`` and nodes ``graph`` (a
    :class:`CertificateWalk`'s) to ``path`` as :func:`write_certificate` does; return
    ``head`` with the file's ``bytes`` and ``sha256``.  ``written(n, total)``, if given,
    is called after every PROGRESS_EVERY of the ``total`` nodes (writing millions of
    them, compressed, takes minutes)."""
    winner = head["winner"]
    total = len(graph)

    def lines():
        for i in range(total):
            if written is not None and i % PROGRESS_EVERY == 0 and i:
                written(i, total)
            yield json.dumps(graph.node(i, winner), separators=(",", ":"))

    pieces = (s.encode() for s in _text(head, lines()))
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
