"""Proof certificates and their checker: the file format, and :func:`check`, which
verifies a certificate with **only** the networkx reference rules.

A certificate shows that the **winner** wins a position (the *root*) whatever the other
player does: at the winner's turns it gives exactly one move, at the loser's turns every
legal reply, and every branch ends in a finished game that the winner has won.  Positions
reached along several paths (transpositions) are one node.  The graph is acyclic and each
position is one node, so no line of play in it repeats a position: the win holds under any
repetition rule.

This module is layer 2 of the package (the reference and the checker): it imports only
:mod:`solver.reference` (the networkx rules), :mod:`solver.rules.board` and
:mod:`solver.rules.notation` (geometry and the position parser), numpy and the standard
library; no search code, no compiled core, no numba, so that its verdict does not depend
on the fast engine or its install (``tests/test_layers.py`` holds it to that).  Run it
alone as ``python -m solver.reference.certificate FILE`` or as ``meridians check FILE``.
Certificates are *built* from df-pn proofs by :mod:`solver.search.certificate`.

File format (JSON, one object; each node on a line of its own)::

    {"format": "meridians-certificate", "version": 2, "board": "2/3",
     "root": "2/3/4/3/2 L", "winner": "L", "node_count": 1234,
     "code": "meridians 0.1.0 (rules 2026-11-30)", "reproved": 0,
     "nodes": [
      {"id": 0, "position": "2/3/4/3/2 L", "move": "c2", "next": 1},
      {"id": 1, "position": "2/3/1L2/3/2 D", "replies": {"a1": 2, "a2": 7, ...}},
      ...
      {"id": 9, "position": "...", "won": "L"},
      {"id": 10, "position": "...", "settled": {"owner": "L", "supply": 5, "bound": 3}}
     ]}

Node 0 is the root.  A node is one of: a **winner node** (the winner to move: ``move``,
the point played, and ``next``, the id of the position after it), a **loser node** (the
other player to move: ``replies``, every legal point mapped to the id of the position
after it), a **leaf** (a finished game: ``won``, the winner), a **settled leaf** (a game
that the winner wins by the settled rule of :mod:`solver.reference.settled`: ``settled``, the claim
``{"owner", "supply", "bound"}``; the owner must be the winner, and
:func:`solver.reference.settled.check_settled` must recompute exactly that supply and bound, the
decision must hold, and no node of the certificate but the leaf itself may be a position
that the leaf's continuation could repeat).  Positions are in the position notation,
"after removal".

Versions: a certificate with settled leaves is version 2; one without is version 1, as
before settled leaves existed (:data:`VERSION`, what the builder writes then).  The checker
reads both; a settled leaf in a version 1 file is refused.

Two kinds of failure: :class:`CertificateFileError` (the file is not a certificate file:
it cannot be read, is not JSON, or is not a ``meridians-certificate`` object of a known
version; ``meridians check`` exits 2) and :class:`CertificateError` (a certificate that
does not prove its claim, the first problem named; exit 1).
"""

from __future__ import annotations

import gc
import gzip
import json
import multiprocessing
import os
import reprlib
import signal
import sys
import zlib
from array import array

import numpy

from solver.reference import rules as ref
from solver.rules.board import Board, BoardError
from solver.util.errors import MeridiansError
from solver.rules.notation import parse_position
from .settled import SettledError, check_settled

__all__ = ["CertificateError", "CertificateFileError", "CheckerProcessError",
           "FORMAT", "VERSION", "VERSION_SETTLED", "VERSIONS", "check", "check_data",
           "check_file", "read_certificate", "summary", "main"]

FORMAT = "meridians-certificate"
#: the version of a certificate without settled leaves (every certificate before them)
VERSION = 1
#: the version of a certificate with settled leaves
VERSION_SETTLED = 2
#: the versions this checker reads
VERSIONS = (VERSION, VERSION_SETTLED)
#: the greatest supply or bound a settled leaf may claim (a board has at most 154 points;
#: anything near this is a malformed number, not a claim)
MAX_SETTLED = 1 << 20


class CertificateError(MeridiansError):
    """A certificate that does not prove its claim (or cannot be built); the message
    names the first problem found."""


class CertificateFileError(CertificateError):
    """A file that is not a certificate file: unreadable, not (whole) JSON, too deeply
    nested, or not a certificate object of a known format version.  Bad input, not a
    rejected proof."""


class CheckerProcessError(MeridiansError, RuntimeError):
    """A checking process (``jobs`` > 1) ended without an answer, killed from outside
    (for example for memory): the certificate was neither accepted nor rejected."""


_SHOW = reprlib.Repr()
_SHOW.maxstring = _SHOW.maxother = 40
_SHOW.maxlevel = 2


def _show(value: object) -> str:
    """``repr(value)``, short: file contents in a message must keep it to one line, and
    a deeply nested value must not recurse."""
    return "an object with a position" if value is _NODE else _SHOW.repr(value)


def check(path: str | os.PathLike, progress=None, jobs: int = 1) -> int:
    """Verify the certificate in the file ``path`` (gzip-compressed if its name ends in
    ``.gz``); return the number of positions checked.  ``jobs`` > 1 checks the positions
    in that many processes (the positions are independent; the graph is checked whole).

    Raises :class:`CertificateFileError` if the file is not a certificate file, else
    :class:`CertificateError` naming the first problem.  Uses only
    :mod:`solver.reference`, :mod:`solver.rules.board` and :mod:`solver.rules.notation`.
    """
    return check_file(path, progress, jobs)[1]


def check_file(path: str | os.PathLike, progress=None, jobs: int = 1) -> tuple[dict, int]:
    """``(header, positions)``: :func:`check`, returning also the certificate's header
    (without its nodes); what ``meridians check`` runs.  Every error names ``path``."""
    data = read_certificate(path)
    try:
        n = check_data(data, progress, jobs)
    except CertificateError as e:
        raise type(e)(f"{path}: {e}") from None
    except MemoryError:
        raise CertificateFileError(f"{path}: not enough memory to check it") from None
    return {k: v for k, v in data.items() if k != "nodes"}, n


def summary(head: dict, n: int, seconds: float) -> str:
    """The line that reports an accepted certificate."""
    colour = {"L": "Light", "D": "Dark"}[head["winner"]]
    return f"{n} positions checked: {colour} wins {head['root']} ({seconds:.2f} s)"


def main(argv: list[str] | None = None) -> None:
    """``python -m solver.reference.certificate FILE [--jobs N]``: ``meridians check``
    without the rest of the command (and so without numba).  Exit code 0 accepted,
    1 rejected, 2 not a certificate file."""
    import argparse
    import time

    ap = argparse.ArgumentParser(prog="python -m solver.reference.certificate",
                                 description="Check a proof certificate with the reference rules only.")
    ap.add_argument("file")
    ap.add_argument("--jobs", type=int, default=1, help="processes checking positions at once (default 1)")
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error("--jobs must be at least 1")
    t0 = time.perf_counter()
    try:
        head, n = check_file(args.file, jobs=args.jobs)
    except CertificateFileError as e:
        print(f"certificate_check: error: {e}", file=sys.stderr)
        sys.exit(2)
    except CertificateError as e:
        print(f"certificate_check: certificate rejected: {e}", file=sys.stderr)
        sys.exit(1)
    except CheckerProcessError as e:
        print(f"certificate_check: error: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    print(summary(head, n, time.perf_counter() - t0))


def _kind(value: object) -> str:
    """What a JSON value is, for a message: 'a list', 'a string', ..."""
    if value is _NODE:
        return "an object with a position"
    names = {dict: "an object", list: "a list", str: "a string", bool: "true or false",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def read_certificate(path: str | os.PathLike) -> object:
    """The JSON of the certificate file ``path`` (gzip-compressed if its name ends in
    ``.gz``), not yet checked: the header as a dict, its ``nodes`` stored compactly as
    they are read (a node takes about 90 bytes, not the 620 of a dict).  Raises
    :class:`CertificateFileError`, naming ``path``, if it cannot be read as JSON."""
    opener = gzip.open if str(path).endswith(".gz") else open
    nodes = _Nodes()
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            data = json.load(f, object_pairs_hook=nodes.hook, parse_constant=_no_constant)
    except (gzip.BadGzipFile, EOFError, zlib.error) as e:
        raise CertificateFileError(f"{path} is not a whole gzip file: {e}") from None
    except OSError as e:
        raise CertificateFileError(f"cannot read {path}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        if bytes(e.object[:2]) == b"\x1f\x8b":
            raise CertificateFileError(f"{path} is gzip-compressed: name it {path}.gz") from None
        raise CertificateFileError(f"{path} is not a text file (not UTF-8): not a certificate") from None
    except json.JSONDecodeError as e:
        if not e.doc.strip():
            raise CertificateFileError(f"{path} is empty: not a certificate") from None
        raise CertificateFileError(f"{path} is not JSON: {e}") from None
    except RecursionError:
        raise CertificateFileError(f"{path} is nested too deeply to be a certificate") from None
    except MemoryError:
        raise CertificateFileError(f"{path} is too large to read into memory") from None
    except ValueError as e:  # NaN or Infinity, a number of thousands of digits
        raise CertificateFileError(f"{path} is not JSON: {e}") from None
    if isinstance(data, dict) and isinstance(data.get("nodes"), list):
        data["nodes"] = nodes.claim(data["nodes"])
    return data


#: positions between two calls of a progress callback
PROGRESS_EVERY = 50_000

_NODE = object()  # what a node object of the file becomes once _Nodes has stored it
MOVE, REPLIES, WON_L, WON_D, ODD, SETTLED = range(6)  # a node's kind; ODD: malformed


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
        self.settled: dict[int, dict] = {}  # the claim of each settled leaf, by node

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
        # a lone surrogate (JSON's "\ud800") cannot be encoded as it is; escaped, it is
        # refused with the position's other faults
        self.texts += text.encode("utf-8", "backslashreplace") if isinstance(text, str) else b"?"
        self.text_end.append(len(self.texts))
        problem = None  # the first thing malformed in the node
        if not isinstance(text, str):
            problem = f"node {i}: a position must be a string"
        elif node.get("id", i) != i or type(node.get("id", i)) is not int:
            problem = f"node {i} has id {_show(node.get('id'))}"
        kinds = [k for k in ("move", "replies", "won", "settled") if k in node]
        edges: list = []
        kind = ODD
        if len(kinds) != 1:
            problem = problem or "must have exactly one of move, replies, won, settled"
        elif "settled" in node:
            why = _malformed_claim(node["settled"])
            if why is None:
                kind = SETTLED
                self.settled[i] = dict(node["settled"])
            else:
                problem = problem or why
        elif "won" in node:
            won = node["won"]
            kind = WON_L if won == "L" else WON_D if won == "D" else ODD
            if kind == ODD:
                problem = problem or f"a leaf is won by 'L' or 'D', not {_show(won)}"
        elif "move" in node:
            kind = MOVE
            edges = [(node["move"], node.get("next"))]
        elif isinstance(node["replies"], dict):
            kind = REPLIES
            edges = node["replies"].items()
        else:
            problem = problem or "replies must be an object"
        for point, j in edges:
            number = type(j) is int and -1 <= j < 1 << 62
            if not isinstance(point, str):
                problem = problem or f"a move is a point name, not {_show(point)}"
            elif not number:
                label = "move" if kind == MOVE else "reply"
                problem = problem or f"{label} {_show(point)[1:-1]} leads to no node ({_show(j)})"
            self.points.append(self._names.setdefault(point, point) if isinstance(point, str) else None)
            self.targets.append(j if number else -1)
        self.edge_end.append(len(self.targets))
        if problem is not None:
            self.odd[i] = problem
        self.kind.append(kind if problem is None else ODD)


def _malformed_claim(claim: object) -> str | None:
    """What is wrong with a settled leaf's claim as data, or None."""
    if not isinstance(claim, dict):
        return f"settled must be an object {{owner, supply, bound}}, not {_kind(claim)}"
    keys = set(claim)
    if keys != {"owner", "supply", "bound"}:
        missing, extra = sorted({"owner", "supply", "bound"} - keys), sorted(keys - {"owner", "supply", "bound"})
        return (f"settled has no {missing[0]!r}" if missing else
                f"settled has the unknown key {_show(extra[0])}")
    if claim["owner"] not in ("L", "D"):
        return f"a settled owner is 'L' or 'D', not {_show(claim['owner'])}"
    for key in ("supply", "bound"):
        n = claim[key]
        if type(n) is not int or not 0 <= n <= MAX_SETTLED:
            return f"a settled {key} is a number from 0 to {MAX_SETTLED}, not {_show(n)}"
    return None


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
        self.loser_index: _LoserIndex | None = None  # built when a settled leaf needs it

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


class _LoserIndex:
    """Every node of a certificate indexed by the loser's stones: the history that the
    settled rule's repetition guard reads at a settled leaf (see
    :class:`solver.reference.settled.History`).  A hash of the loser's stones per node, sorted, in a
    numpy array: 16 bytes a node, one binary search a lookup."""

    def __init__(self, c: _Certificate):
        self.c = c
        n = c.board.size
        shift = n if c.loser == "D" else 0
        full = (1 << n) - 1
        hashes = numpy.fromiter((hash(c.key(i) >> shift & full) for i in range(len(c.nodes))),
                                dtype=numpy.int64, count=len(c.nodes))
        self.order = numpy.argsort(hashes, kind="stable")
        self.hashes = hashes[self.order]

    def at(self, leaf: int) -> "_LeafHistory":
        return _LeafHistory(self, leaf)


class _LeafHistory:
    """The certificate's nodes but the settled leaf ``leaf`` itself, for the guard."""

    def __init__(self, index: _LoserIndex, leaf: int):
        self.index, self.leaf = index, leaf

    def x_stones_with(self, owner: str, y_stones: frozenset) -> list[frozenset]:
        index, c = self.index, self.index.c
        if owner != c.winner:
            return []
        h = hash(sum(1 << p for p in y_stones))
        lo = int(numpy.searchsorted(index.hashes, h, side="left"))
        hi = int(numpy.searchsorted(index.hashes, h, side="right"))
        out = []
        for j in index.order[lo:hi]:
            j = int(j)
            if j == self.leaf:
                continue
            light, dark, _ = _unpacked(c.board, c.key(j))
            x, y = (light, dark) if owner == "L" else (dark, light)
            if y == y_stones:
                out.append(x)
        return out


_SHARED: _Certificate | None = None  # the certificate forked worker processes check
_CHUNK = 2_000  # positions a worker process checks at a time


def check_data(data: object, progress=None, jobs: int = 1) -> int:
    """:func:`check` on a certificate already read (by :func:`read_certificate`, or a
    dict with a list of node dicts).  ``progress``, if given, is called as
    ``progress(stage, done, total)`` every few ten thousand positions (stages ``'read'``
    and ``'checked'``)."""
    # not a certificate file at all: bad input rather than a rejected proof
    if not isinstance(data, dict):
        raise CertificateFileError(f"not a certificate: the file holds {_kind(data)}, not a JSON object")
    if data.get("format") != FORMAT:
        raise CertificateFileError(f"not a certificate: format is {_show(data.get('format'))}, not {FORMAT!r}")
    if type(data.get("version")) is not int or data["version"] not in VERSIONS:
        raise CertificateFileError(f"format version {_show(data.get('version'))} is not one of "
                                   f"{', '.join(map(str, VERSIONS))}, the versions this checker reads")
    for key in ("board", "root", "winner", "nodes"):
        if key not in data:
            raise CertificateError(f"the header has no {key!r}")
    if not isinstance(data["board"], str) or len(data["board"]) > 20:
        raise CertificateError(f"board: {_show(data['board'])} is not a board name such as '2/3'")
    try:
        board = Board.parse(data["board"])
    except ValueError as e:  # BoardError
        raise CertificateError(f"board: {e}") from None
    winner = data["winner"]
    if winner not in ("L", "D"):
        raise CertificateError(f"winner must be 'L' or 'D', not {_show(winner)}")
    nodes = data["nodes"]
    if isinstance(nodes, list):
        nodes = _Nodes.of(nodes)
    if not isinstance(nodes, _Nodes) or not len(nodes):
        raise CertificateError(f"nodes must be a non-empty list, not {_kind(data['nodes'])}")
    count = data.get("node_count", len(nodes))
    if type(count) is not int or count != len(nodes):
        raise CertificateError(f"the header says {_show(count)} nodes, the file has {len(nodes)}")
    if nodes.settled and data["version"] < VERSION_SETTLED:
        i = min(nodes.settled)
        raise CertificateError(f"node {i} is a settled leaf: a certificate with settled leaves is "
                               f"version {VERSION_SETTLED}, not {data['version']}")
    c = _Certificate(board, winner, nodes)

    # every node well formed and listed once; the root's position valid (_parse_range: why
    # the others need not be checked)
    for lo, keys in _in_chunks(c, _parse_range, jobs, progress, "read"):
        c.store(lo, keys)
    repeat = c.first_repeat()
    if repeat is not None:
        i, j = repeat
        raise CertificateError(f"node {i} repeats the position of node {j}: {nodes.text(i)}")
    if c.key(0) != _packed(board, *_parse(c, data["root"], "root")):
        raise CertificateError(f"node 0 is {nodes.text(0)}, not the root {data['root']}")

    if nodes.settled:  # before the checkers fork: they share it
        c.loser_index = _LoserIndex(c)
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
            for (lo, hi), part in zip(ranges, _forked(work, ranges, min(jobs, len(ranges)))):
                report(hi)
                yield lo, part
        finally:
            _SHARED = None
            gc.unfreeze()
        return
    for lo, hi in ranges:
        yield lo, work(c, lo, hi)
        report(hi)


def _forked(work, ranges: list[tuple[int, int]], jobs: int):
    """``work(_SHARED, lo, hi)`` for each range, in order, from ``jobs`` forked processes:
    process k takes ranges k, k + jobs, ... in turn and sends each result, or the error
    that stops it, down a pipe of its own, which is read when that range's turn comes.
    Every process has ended when the generator ends, is closed or raises.

    (Not multiprocessing.Pool: leaving its ``with`` block calls ``terminate``, which can
    deadlock, CPython issues 73945, 78178 and 96995; a CI run hung there for 90 minutes.)"""
    ctx = multiprocessing.get_context("fork")
    pipes, procs = [], []
    try:
        for k in range(jobs):
            receive, send = ctx.Pipe(duplex=False)
            p = ctx.Process(target=_serve, args=(work, ranges[k::jobs], send), daemon=True)
            p.start()
            send.close()  # the worker's end: when the worker ends, reading gives EOFError
            pipes.append(receive)
            procs.append(p)
        for i in range(len(ranges)):
            try:
                ok, value = pipes[i % jobs].recv()
            except EOFError:
                p = procs[i % jobs]
                p.join(1.0)
                raise CheckerProcessError(f"a checking process ended without an answer (exit code {p.exitcode}); "
                                          f"try fewer --jobs") from None
            if not ok:
                raise value
            yield value
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
            p.join()
        for receive in pipes:
            receive.close()


def _serve(work, ranges: list[tuple[int, int]], send) -> None:
    """A checking process: each range's result down ``send``, or the first error and stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the parent, which ends us
    for lo, hi in ranges:
        try:
            result = (True, work(_SHARED, lo, hi))
        except Exception as e:  # a CertificateError, in the order a single process finds it
            send.send((False, e))
            return
        send.send(result)


#: longer than any position of the largest board (7/8: 15 rows of at most 15 characters)
_MAX_POSITION_TEXT = 300


def _parse(c: _Certificate, text: object, what: str, valid: bool = True) -> tuple:
    """The position ``text``, on the certificate's board; with ``valid``, one that
    :func:`~solver.reference.rules.is_valid` accepts."""
    if not isinstance(text, str):
        raise CertificateError(f"{what}: a position must be a string")
    if len(text) > _MAX_POSITION_TEXT:
        raise CertificateError(f"{what}: {_show(text)} is too long to be a position ({len(text):,} characters)")
    try:
        b, light, dark, side = parse_position(text)
    except ValueError as e:  # NotationError, or a count Python will not convert
        raise CertificateError(f"{what}: {e}") from None
    if b.name != c.board.name:
        raise CertificateError(f"{what}: {text!r} is on board {b.name}, not {c.board.name}")
    why = ref.is_valid(c.board, light, dark, side) if valid else None
    if why is not None:
        raise CertificateError(f"{what}: {text!r} is not a valid position: {why}")
    return light, dark, side


def _packed(board: Board, light: frozenset, dark: frozenset, side: str) -> int:
    """A position as one number (see :class:`_Certificate`)."""
    n = board.size
    return sum(1 << p for p in light) | sum(1 << p for p in dark) << n | (side == "D") << 2 * n


def _unpacked(board: Board, key: int) -> tuple[frozenset, frozenset, str]:
    """:func:`_packed`'s position back."""
    n = board.size
    mask = (1 << n) - 1
    return _points(key & mask), _points(key >> n & mask), "D" if key >> 2 * n else "L"


def _points(bits: int) -> frozenset:
    """The indices of the set bits of ``bits``."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return frozenset(out)


def _parse_range(c: _Certificate, lo: int, hi: int) -> list[int]:
    """The positions of nodes ``lo`` to ``hi - 1``, each node well formed.

    Only the root's position is held to :func:`~solver.reference.rules.is_valid` (by
    :func:`check_data`): every other node must be reached from the root, and every edge
    must lead to the position that :func:`~solver.reference.rules.place` makes from its
    node, which is valid when that node is (the mover's dead groups are removed and its
    other groups keep their paths; the stone goes on an empty point).  So a node of an
    accepted certificate is valid, and checking it again would cost a fifth of the
    checker's time.
    """
    out = []
    for i in range(lo, hi):
        problem = c.nodes.odd.get(i)
        if problem is not None and problem.startswith(f"node {i}"):
            raise CertificateError(problem)
        out.append(_packed(c.board, *_parse(c, c.nodes.text(i), f"node {i}", valid=False)))
        if problem is not None:
            raise CertificateError(f"node {i} ({c.nodes.text(i)}): {problem}")
    return out


def _target(c: _Certificate, i: int, value: int, kind: str, point: str) -> int:
    if not 0 <= value < len(c.nodes):
        raise CertificateError(f"node {i} ({c.nodes.text(i)}): {kind} {_point(point)} leads to no node ({value!r})")
    return value


def _point(name: str) -> str:
    """A point name from the file, for a message (cut short if it is no point name)."""
    return name if len(name) <= 8 else _show(name)


def _child(c: _Certificate, i: int, point: str, legal: list[int]) -> int:
    """The position after ``point`` at node ``i``, whose legal moves are ``legal``."""
    light, dark, side = _unpacked(c.board, c.key(i))
    try:
        p = c.board.index(point)
    except BoardError as e:
        reason = e if len(point) <= 8 else f"{_show(point)} is not a point of {c.board.name}"
        raise CertificateError(f"node {i} ({c.nodes.text(i)}): {reason}") from None
    if p not in legal:
        raise CertificateError(f"node {i} ({c.nodes.text(i)}): {_point(point)} is not a legal move")
    return _packed(c.board, *ref.place(c.board, light, dark, side, p))  # legal: checked just above


def _check_range(c: _Certificate, lo: int, hi: int) -> None:
    """Check nodes ``lo`` to ``hi - 1`` against the rules."""
    board, winner, nodes = c.board, c.winner, c.nodes
    for i in range(lo, hi):
        light, dark, side = _unpacked(board, c.key(i))
        moves = ref.legal_moves(board, light, dark, side)
        result = ref.outcome(board, light, dark, side, moves)
        kind = nodes.kind[i]
        if kind == SETTLED:
            claim = nodes.settled[i]
            if claim["owner"] != winner:
                raise CertificateError(
                    f"node {i} ({nodes.text(i)}) is settled for {claim['owner']}, not for the claimed winner {winner}")
            try:
                check_settled((board, light, dark, side), claim, c.loser_index.at(i))
            except SettledError as e:
                raise CertificateError(f"node {i} ({nodes.text(i)}): the settled claim fails: {e}") from None
            continue
        if kind in (WON_L, WON_D):
            if result is None:
                raise CertificateError(f"node {i} ({nodes.text(i)}) is a leaf, but the game is not over")
            won = "L" if kind == WON_L else "D"
            if result != winner:
                raise CertificateError(
                    f"node {i} ({nodes.text(i)}) is a leaf won by {result}, not by the claimed winner {winner}")
            # the game is the winner's, but the file names the other player: a corrupt leaf
            if won != winner:
                raise CertificateError(
                    f"node {i} ({nodes.text(i)}) is a leaf marked won by {won}, but {winner} has won it")
            continue
        if result is not None:
            raise CertificateError(f"node {i} ({nodes.text(i)}): the game is over ({result} won), it must be a leaf")
        edges = nodes.edges(i)
        if kind == MOVE:
            if side != winner:
                raise CertificateError(f"node {i} ({nodes.text(i)}) gives a move, but {side}, the loser, is to move")
            point = nodes.points[edges.start]
            j = _target(c, i, nodes.targets[edges.start], "move", point)
            if _child(c, i, point, moves) != c.key(j):
                raise CertificateError(
                    f"node {i} ({nodes.text(i)}): {point} does not lead to node {j} ({nodes.text(j)})")
            continue
        if side != c.loser:
            raise CertificateError(f"node {i} ({nodes.text(i)}) lists replies, but {side}, the winner, is to move")
        legal = {board.name_of(p) for p in moves}
        given = {nodes.points[e] for e in edges}
        missing = sorted(legal - given)
        if missing:
            raise CertificateError(f"node {i} ({nodes.text(i)}): the reply {missing[0]} is missing")
        extra = sorted(given - legal)
        if extra:
            raise CertificateError(f"node {i} ({nodes.text(i)}): {_point(extra[0])} is not a legal reply")
        for e in edges:
            point = nodes.points[e]
            j = _target(c, i, nodes.targets[e], "reply", point)
            if _child(c, i, point, moves) != c.key(j):
                raise CertificateError(
                    f"node {i} ({nodes.text(i)}): {point} does not lead to node {j} ({nodes.text(j)})")


if __name__ == "__main__":  # pragma: no cover
    # run the module as imported, not as __main__: the worker processes find the functions
    # they are sent by the module's name
    from solver.reference.certificate import main as _main

    _main()
