"""The registry of search methods that :func:`solver.search.prove.prove` runs: one name
and a one-line description each.  It imports nothing, so the command line can list the
methods (``--method``) without loading the compiled core."""

from __future__ import annotations

from solver.util.errors import MeridiansError

__all__ = ["METHODS", "SEARCHES", "DEFAULT_METHOD", "UnknownMethodError", "check_method"]

#: The search methods of :func:`~solver.search.prove.prove`, each with a one-line
#: description (for --help).
METHODS: dict[str, str] = {
    "dfpn": "proof-number search: wins and losses under any repetition rule, re-walked "
            "before they are reported (the default)",
    "alphabeta": "alpha-beta: also draws by repetition; small boards only (its paths grow "
                 "past its ply limit on 3/4)",
    "horizon": "iterative deepening: the shortest forced win of either player, up to a "
               "number of plies",
}

DEFAULT_METHOD = "dfpn"

#: Every search of :func:`solver.search.search`: the proof methods, the engine and the
#: capture-in-N search.
SEARCHES: dict[str, str] = {
    **METHODS,
    "engine": "Monte Carlo tree search with an exact solver inside (MCTS-Solver): proven values "
              "or an estimate",
    "capture": "whether the side to move captures a target group within n moves",
}


class UnknownMethodError(MeridiansError):
    """A search method that is not one of :data:`METHODS`."""


def check_method(method: str, methods: dict[str, str] = METHODS) -> str:
    """``method`` if it is one of ``methods`` (:data:`METHODS`), else :class:`UnknownMethodError`.

    >>> check_method("dfpn")
    'dfpn'
    >>> check_method("mcts")
    Traceback (most recent call last):
    ...
    solver.search.methods.UnknownMethodError: unknown search method 'mcts' (one of dfpn, alphabeta, horizon)
    """
    if method not in methods:
        raise UnknownMethodError(f"unknown search method {method!r} (one of {', '.join(methods)})")
    return method
