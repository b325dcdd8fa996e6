r"""Exact search over the compiled rules core, and the engine (layer 3).

Every search is called the same way, :func:`search` ``(position, limit) -> Result``:

- its budget is one :class:`.limit.Limit`, spent by one :class:`.clock.Clock`;
- its answer is one :class:`.result.Result`, whose values are :class:`.values.Value`\ s;
- the searches (:data:`.methods.SEARCHES`): df-pn proof-number search (:mod:`.dfpn`, its
  saved tables :mod:`.tablefile`), alpha-beta with a transposition table and symmetry
  reduction (:mod:`.alphabeta`, :mod:`.solve`), the horizon search (:mod:`.horizon`),
  all three through :func:`.prove.prove`; the engine (:mod:`.mcts`,
  :func:`.mcts.search`); the capture-in-N search (:mod:`.capture`,
  :func:`.capture.search`).  Their tables cost what they touch (:mod:`.memory`);
- proof certificates built from df-pn proofs (:mod:`.certificate`, through the result's
  :class:`.result.ProofTable`; they are checked by :mod:`solver.reference.certificate`,
  which needs none of this).

Nothing is imported here until :func:`search` is called: ``import solver.search.dfpn``
loads what it needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from solver.rules.position import Position
    from .limit import Limit
    from .result import Result

__all__ = ["search"]


def search(position: Position, limit: Limit | None = None, *, method: str = "dfpn", **options) -> Result:
    """``position`` searched by ``method`` (one of :data:`.methods.SEARCHES`) within
    ``limit``; ``options`` are the method's own (:func:`.prove.prove`'s, :func:`.mcts.search`'s,
    or :func:`.capture.search`'s ``target`` and ``n``).  Raises
    :class:`.methods.UnknownMethodError` for another method.

    >>> from solver import Position
    >>> from solver.search.limit import Limit
    >>> search(Position.parse("1/2/1 L"), Limit(seconds=5)).value
    <Value.LOSS: 'loss'>
    """
    from .methods import SEARCHES, check_method

    check_method(method, SEARCHES)
    if method == "engine":
        from .limit import Limit
        from .mcts import search as engine_search

        return engine_search(position, limit if limit is not None else Limit(), **options)
    if method == "capture":
        from .capture import search as capture_search

        return capture_search(position, limit, **options)
    from .prove import prove

    return prove(position, limit, method=method, **options)
