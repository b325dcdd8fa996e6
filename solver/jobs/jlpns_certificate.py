"""One certificate of a JL-PNS proof (:mod:`.jlpns`): the master tree's solved part and,
below each of its solved leaves, that leaf's df-pn proof, in the format that
:mod:`solver.reference.certificate` describes and checks with the reference rules alone.

**The walk** goes down the master tree from the root: at the winner's nodes to one child
solved for the winner (one already in the certificate if there is one, else one whose
game is over, else the one with the least work below it), at the loser's nodes to the
child of every legal reply (replies that make the same position share the tree's one
child).  At a solved leaf (a job's proof, a child that a job solved and re-walked, a
finished game) the leaf is proven again here by :func:`~solver.search.prove.prove_for`
for the tree's prover, with the leaf's game history (the root's and the master path, as
its job had it), on one table kept from leaf to leaf as a worker keeps its own; that proof
is walked into the certificate by the builder of single proofs
(:class:`~solver.search.certificate.CertificateWalk`).  It is all one graph: a position
reached twice (in the tree, or below two leaves) is one node, and no position on the
walk's path becomes a child again, so the graph is acyclic as the checker demands.

**Repetitions** are treated as :func:`~solver.search.certificate.build_certificate` treats
them: the certificate's root is the position without its history, the graph holds no line
that repeats a position (so the win holds under any repetition rule), and a sub-position
proven again during the walk (its table entries evicted) has the path to it as its
history.  No settled leaves are written (the settled rule stays with single proofs).

Nothing here is trusted: the file is one ordinary certificate (the format has no
references to other files, and the checker is unchanged), so a fault here can only give a
certificate that ``meridians check`` rejects.
"""

from __future__ import annotations

import os
import time
from typing import Callable

from solver.rules import core
from solver.rules.position import Position
from solver.search.certificate import (LIBRARY_COMMAND, CertificateError, CertificateWalk, certificate_of,
                                       write_graph)
from solver.search.dfpn import new_dfpn
from solver.search.limit import Limit
from solver.search.prove import ProverAnswer, prove_for
from solver.search.result import ProofTable
from .jlpns import EXPANDED, MasterTree, Node, load_tree

__all__ = ["jlpns_certificate", "write_jlpns_certificate", "CertificateError"]


def jlpns_certificate(position: Position, tree: MasterTree | str | os.PathLike, **kwargs) -> dict:
    """The certificate (a dict, as :func:`~solver.reference.certificate.check_data` reads
    it) that JL-PNS's ``tree`` proves for ``position``: a :class:`~.jlpns.MasterTree`, or
    the path of a checkpoint that keeps one (:func:`~.jlpns.load_tree`).

    Keyword arguments: ``max_nodes`` (more raises :class:`CertificateError`),
    ``reprove_seconds`` (the time of each local proof, None: no bound), ``tt_mb`` (the
    local proofs' table), ``command`` (named in the header's ``code``), ``progress``
    (called with a dict: ``positions``, ``leaves`` proven again, their ``nodes``,
    ``seconds``).  Raises :class:`CertificateError` when the root is not decided, a leaf
    does not hold up when proven again, or the walk fails."""
    head, graph = _assemble(position, tree, **kwargs)
    return certificate_of(head, graph)


def write_jlpns_certificate(path: str | os.PathLike, position: Position, tree: MasterTree | str | os.PathLike,
                            *, header: dict | None = None, **kwargs) -> dict:
    """:func:`jlpns_certificate` written to ``path`` (gzip-compressed if it ends in
    ``.gz``) as :func:`~solver.search.certificate.write_certificate` writes; its header
    (``header`` added) with the file's ``bytes`` and ``sha256``."""
    head, graph = _assemble(position, tree, **kwargs)
    return write_graph(path, {**head, **(header or {})}, graph)


def _assemble(position: Position, tree: MasterTree | str | os.PathLike, *, max_nodes: int = 2_000_000,
              reprove_seconds: float | None = 60.0, tt_mb: float = 256,
              progress: Callable[[dict], None] | None = None, command: str = LIBRARY_COMMAND):
    """The header and graph of :func:`jlpns_certificate`'s certificate."""
    if not isinstance(tree, MasterTree):
        tree = load_tree(tree, position)
    if str(tree.root) != str(position) or [str(p) for p in tree.root.earlier()] != [str(p) for p in position.earlier()]:
        raise CertificateError(f"the master tree is of {tree.root}, not of {position} (with its history)")
    root = tree.nodes[0]
    if root.pn == 0:
        winner = tree.prover
    elif root.dn == 0 and not root.tainted:
        winner = 1 - tree.prover
    else:
        raise CertificateError(f"the master tree's root is not decided (pn {root.pn}, dn {root.dn}"
                               f"{', a disproof through a repetition' if root.tainted else ''}): nothing to certify")
    # the certificate's root is the position without its history, as build_certificate's
    bare = Position.from_arrays(position.board, position.bitboards, position.side_index, check=False)
    assembly = _Assembly(tree, bare, winner, max_nodes, reprove_seconds, tt_mb, progress)
    assembly.node(0, bare.bitboards, bare.side_index, [])
    head = assembly.walk.head(command)
    head["jlpns"] = {"master_nodes": assembly.master_nodes, "leaves": assembly.leaves,
                     "leaf_nodes": assembly.leaf_nodes}
    return head, assembly.walk.graph


class _Assembly:
    """The walk of ``tree``'s solved part for ``winner`` (0 Light, 1 Dark) into one
    certificate of ``bare``, each solved leaf proven again (see :func:`jlpns_certificate`)."""

    def __init__(self, tree: MasterTree, bare: Position, winner: int, max_nodes: int,
                 reprove_seconds: float | None, tt_mb: float, progress):
        self.tree, self.winner, self.progress = tree, winner, progress
        self.limit = Limit(seconds=reprove_seconds, tt_mb=tt_mb)
        self.walk = CertificateWalk(bare, winner, max_nodes=max_nodes, reprove_seconds=reprove_seconds,
                                    tt_mb=tt_mb, progress=(lambda _: self.report()) if progress else None)
        self.search = None  # the local df-pn, its table kept from leaf to leaf
        self.point = {name: k for k, name in enumerate(tree.root.board.names)}
        self.work = [n.work for n in tree.nodes]  # the work below each node
        for i in range(len(tree.nodes) - 1, 0, -1):
            self.work[tree.nodes[i].parent] += self.work[i]
        self.master_nodes = self.leaves = self.leaf_nodes = 0
        self.t0 = time.perf_counter()

    def report(self) -> None:
        if self.progress is not None:
            self.progress({"positions": len(self.walk.graph), "leaves": self.leaves, "nodes": self.leaf_nodes,
                           "seconds": round(time.perf_counter() - self.t0, 3)})

    def solves(self, n: Node | ProverAnswer) -> bool:
        """Whether a master node or a job's answer ``n`` is solved for the winner (a proof,
        or a clean disproof)."""
        return n.pn == 0 if self.winner == self.tree.prover else n.dn == 0 and not n.tainted

    def node(self, i: int, st, side: int, path_keys: list) -> int:
        """The certificate's node of master node ``i``, at (``st``, ``side``) after the
        path's positions ``path_keys``, with everything below it."""
        walk, n = self.walk, self.tree.nodes[i]
        if not self.solves(n):
            raise CertificateError(f"the master tree's node after {' '.join(self.tree.path(i)) or 'nothing'} "
                                   f"is not solved for {'LD'[self.winner]}")
        known = walk.known(st, side)
        if known is not None:
            return known
        self.master_nodes += 1
        if n.state != EXPANDED or walk.result(st, side) is not None:
            return walk.subtree(st, side, self.leaf_proof(i), path_keys)
        by_position = {}
        for c in n.children:
            by_position[walk.graph.pack(*walk.child(st, side, self.point[self.tree.nodes[c].move]))] = c
        if side == self.winner:
            chosen = [self.choose(n, st, side)]
        else:
            chosen = []
            for q in walk.legal(st, side):
                c = by_position.get(walk.graph.pack(*walk.child(st, side, q)))
                if c is None:
                    raise CertificateError(f"the master tree's node after {' '.join(self.tree.path(i))} "
                                           f"lacks the reply {self.tree.root.board.names[q]}")
                chosen.append((q, c))
        me = walk.open(st, side, [q for q, _ in chosen])
        here = path_keys + [walk.path_key(st, side)]
        for k, (q, c) in enumerate(chosen):
            walk.graph.link(me, k, self.node(c, *walk.child(st, side, q), here))
        walk.close(me)
        return me

    def choose(self, n: Node, st, side: int) -> tuple[int, int]:
        """The winner's move at expanded node ``n`` and its child: a child solved for the
        winner and not on the walk's path, one in the certificate already, else one whose
        game is over, else the one with the least work below it."""
        walk = self.walk
        best, best_key = None, None
        for c in n.children:
            if not self.solves(self.tree.nodes[c]):
                continue
            q = self.point[self.tree.nodes[c].move]
            child = walk.child(st, side, q)
            key = walk.graph.pack(*child)
            if key in walk.on_path:
                continue
            rank = (key not in walk.graph.ids, walk.result(*child) is None, self.work[c])
            if best_key is None or rank < best_key:
                best, best_key = (q, c), rank
        if best is None:
            raise CertificateError(f"no solving child at {walk.graph.bare(st, side)} in the master tree")
        return best

    def leaf_proof(self, i: int) -> ProofTable | None:
        """A local proof of solved leaf ``i`` with its game history (None: a finished game)."""
        pos = self.tree.position(i)
        if pos.outcome is not None:
            return None
        t = core.tables(pos.board)
        if self.search is None:
            self.search = new_dfpn(t, self.tree.prover, self.limit.tt_mb)
        answer = prove_for(pos, self.tree.prover, self.limit, search=self.search)
        self.leaves += 1
        self.leaf_nodes += answer.nodes
        if not (answer.verified and self.solves(answer)):
            raise CertificateError(f"the master tree's leaf {pos} does not hold up: proven again here, "
                                   f"{answer.status}")
        self.report()
        return ProofTable(t, self.search, self.winner)
