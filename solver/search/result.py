"""What every search returns: one :class:`Result`, its moves :class:`MoveResult`, and
for a df-pn proof the typed handle to its table, :class:`ProofTable`.

A result's ``value`` is a :class:`~solver.search.values.Value` for the player to move:
decided only when proven (by the rules, a proof or the engine's tree), else ``UNKNOWN``,
with the engine's playout ``win_rate`` as an estimate beside it, never in its place.
``seconds`` is search time: loading (on first use, compiling) the kernels is not in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .values import Value

if TYPE_CHECKING:
    from solver.rules.core import Tables
    from .dfpn import Dfpn

__all__ = ["Result", "MoveResult", "ProofTable", "SOURCES"]

#: what decided a result's value, or estimated it: the rules (the game is over), a proof
#: by one of the proof methods, the engine's tree, or its playouts (an estimate); none
#: when the budget ran out with neither
SOURCES = ("rules", "dfpn", "alphabeta", "horizon", "capture", "tree", "estimate", "none")


@dataclass
class MoveResult:
    """One legal move of the searched position, valued for the player who plays it;
    ``visits``, ``share`` of the root's visits and ``win_rate`` (playouts won, draws
    half; only for a move not proven) are the engine's; ``line`` the engine's principal
    line from the move (starting with it; empty where the search gives none)."""

    move: str
    value: Value = Value.UNKNOWN
    visits: int = 0
    share: float = 0.0
    win_rate: float | None = None
    line: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.value = Value(self.value)


@dataclass(frozen=True)
class ProofTable:
    """A df-pn table that holds a checked proof, for the certificate builder: the board's
    ``tables``, the ``search`` whose table it is, and the ``winner``'s colour (0 Light)."""

    tables: Tables
    search: Dfpn
    winner: int


@dataclass
class Result:
    """The answer of a search (see the module's text).  ``method`` is the search that was
    run, ``source`` what gave the value (one of :data:`SOURCES`); ``line`` the principal
    line from the position; ``best`` the move to play (None when the search names none);
    ``nodes`` the search's nodes (proofs' expansions and re-walked nodes, the engine's tree
    nodes), ``playouts`` the engine's; ``verified``: a proof re-walked before it was
    reported; ``horizon``: the plies the horizon search reached; ``table``: df-pn's table
    after a checked proof (else None; not in :meth:`as_dict`)."""

    position: str
    value: Value
    method: str
    source: str = ""
    nodes: int = 0
    seconds: float = 0.0
    line: list[str] = field(default_factory=list)
    best: str | None = None
    moves: list[MoveResult] = field(default_factory=list)
    win_rate: float | None = None
    playouts: int = 0
    verified: bool = False
    horizon: int = 0
    notes: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    table: ProofTable | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.value = Value(self.value)
        if not self.source:
            self.source = self.method if self.value.decided else "none"

    @property
    def move_values(self) -> dict[str, Value]:
        """Each move's value for the player who plays it, by move."""
        return {m.move: m.value for m in self.moves}

    @property
    def proven(self) -> bool:
        """Whether the value is decided (never an estimate)."""
        return self.value.decided

    def shown(self) -> str:
        """The value in words: ``'win (proven by dfpn)'``, ``'loss (the game is over)'``,
        ``'estimated 0.63 (win rate)'``."""
        if self.proven:
            how = {"rules": "the game is over", "tree": "proven by the tree"}.get(self.source, f"proven by {self.source}")
            return f"{self.value} ({how})"
        if self.win_rate is None:
            return "unknown (no playouts)" if self.method == "engine" else "unknown"
        return f"estimated {self.win_rate:.2f} (win rate)"

    def as_dict(self) -> dict:
        """The result as JSON-ready values (the table left out): a proof's fields, or the
        engine's with its moves."""
        d = {"position": self.position, "value": self.value.value, "nodes": self.nodes, "seconds": self.seconds,
             "method": self.method, "line": list(self.line), "notes": list(self.notes), "stats": dict(self.stats)}
        if self.method != "engine":
            return {**d, "verified": self.verified, "horizon": self.horizon}
        moves = [{"move": m.move, "visits": m.visits, "share": m.share, "win_rate": m.win_rate,
                  "value": m.value.value} for m in self.moves]
        return {**d, "best": self.best, "source": self.source, "proven": self.proven, "win_rate": self.win_rate,
                "playouts": self.playouts, "moves": moves}

    def svg(self, **kwargs) -> str:
        """A small SVG picture of the position with its value in the title and, for a win
        with a move, the winning move marked with the win triangle (the maps' and the web
        board's mark).  ``kwargs`` go to :meth:`Position.svg` (``size``, say).

        >>> r = Result("1/2/1 L", Value.WIN, "dfpn", line=["b1"], best="b1")
        >>> import xml.etree.ElementTree as ET
        >>> root = ET.fromstring(r._repr_svg_())
        >>> [e.get("data-point") for e in root.iter() if e.get("class") == "value win"]
        ['b1']
        >>> [e.text for e in root.iter() if e.get("class") == "title"]
        ['Light to move: win by b1 (dfpn)']
        """
        from solver.rules.position import Position

        pos = Position.parse(self.position)
        side = {"L": "Light", "D": "Dark"}[pos.to_move]
        move = self.best if self.value is Value.WIN else None
        title = f"{side} to move: {self.value}" + (f" by {move}" if move else "") + f" ({self.source})"
        marks = {"values": {move: "win"}, "legend": {"win": "winning move"}} if move else {}
        return pos.svg(**{"title": title, "size": 320, **marks, **kwargs})

    def _repr_svg_(self) -> str:
        """Jupyter shows a result as its picture (:meth:`svg`)."""
        return self.svg()
