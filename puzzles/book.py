"""A puzzle book: one static, self-contained ``index.html`` for a browser.

Every puzzle is a card with its id, the task ("Light to move, capture the group at c3
in 2 moves") and the board as inline SVG with the target marked.  The solution (the key,
the line, and a second board after the key, where the key carries the last-move dot) is
in the page but ``hidden`` until the card's "Show solution" button or its board is
clicked.  CSS and JavaScript are inline and a Content-Security-Policy forbids every
network request, so the page works from ``file://`` and offline.

Cards carry ``data-id``, ``data-target``, ``data-n`` and ``data-key`` so that tests and
scripts can find them; the board is ``.board-view``; the solution block ``.solution`` holds
``.solution-key``, ``.solution-line`` and the board after the key, ``.after-key`` (class
names that the SVG's own classes, such as ``line`` and ``board``, do not clash with).

>>> import tempfile
>>> p = Puzzle(id="m23-c1-0001", position="2/1D1/4/L2/2 L", target="d2", n=1, key="b3", line=("b3",))
>>> path = write_book([p], tempfile.mkdtemp(), title="Demo")
>>> page = path.read_text(encoding="utf-8")
>>> page.count('class="card"'), 'data-key="b3"' in page, "<svg" in page
(1, True, True)
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Iterable

import solver
from solver.files import write_atomic

from .record import Puzzle

__all__ = ["write_book", "book_html"]

DEFAULT_TITLE = "Meridians: capture puzzles"

_CSS = """
:root { --ink: #3b2f20; --page: #fbf8f1; --card: #fffdf8; --edge: #d8c9a8; --accent: #8a2be2; }
* { box-sizing: border-box; }
body { margin: 0; padding: 1.5rem; background: var(--page); color: var(--ink);
       font: 16px/1.45 Helvetica, Arial, sans-serif; }
header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 1rem; margin-bottom: 1rem; }
h1 { font-size: 1.6rem; margin: 0; }
.count { color: #7a6a50; }
main { display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap: 1.2rem; align-items: start; }
.card { background: var(--card); border: 1px solid var(--edge); border-radius: 10px; padding: 1rem;
        display: flex; flex-direction: column; gap: .5rem; }
.card h2 { font-size: 1.05rem; margin: 0; font-family: Menlo, Consolas, monospace; }
.task { margin: 0; font-weight: bold; }
.board-view { cursor: pointer; border-radius: 6px; }
.board-view:focus { outline: 2px solid var(--accent); }
.board-view svg, .after-key svg { display: block; width: 100%; height: auto; }
button { font: inherit; padding: .35rem .8rem; border: 1px solid var(--edge); border-radius: 6px;
         background: #f3ead7; color: var(--ink); cursor: pointer; align-self: flex-start; }
button:hover { background: #ead9b8; }
.solution { border-top: 1px dashed var(--edge); padding-top: .5rem; }
.solution p { margin: .2rem 0; }
.solution-key b { color: var(--accent); font-size: 1.1rem; }
.solution-line { font-family: Menlo, Consolas, monospace; }
footer { margin-top: 2rem; font-size: .85rem; color: #7a6a50; }
"""

# One delegated listener: a click on a button or board with data-reveal toggles its
# card; Enter or Space does the same on the focused board (it is a role=button).
_JS = """
(function () {
  "use strict";
  function toggle(card, open) {
    var sol = card.querySelector(".solution");
    var btn = card.querySelector("button.reveal");
    if (open === undefined) { open = sol.hidden; }
    sol.hidden = !open;
    btn.setAttribute("aria-expanded", open ? "true" : "false");
    btn.textContent = open ? "Hide solution" : "Show solution";
  }
  document.addEventListener("click", function (ev) {
    var el = ev.target.closest("[data-reveal]");
    if (el) { toggle(el.closest(".card")); }
  });
  document.addEventListener("keydown", function (ev) {
    var el = ev.target.closest && ev.target.closest(".board-view[data-reveal]");
    if (el && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); toggle(el.closest(".card")); }
  });
  var all = document.getElementById("toggle-all");
  all.addEventListener("click", function () {
    var open = all.getAttribute("aria-pressed") !== "true";
    all.setAttribute("aria-pressed", open ? "true" : "false");
    all.textContent = open ? "Hide all solutions" : "Show all solutions";
    document.querySelectorAll(".card").forEach(function (c) { toggle(c, open); });
  });
})();
"""

# Nothing may leave the page: inline style and script only, images only as data: URLs.
_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


def _card(i: int, p: Puzzle) -> str:
    """The HTML of one puzzle card (``i`` numbers the element ids: puzzle ids may hold
    any character but a space, a quote or ';')."""
    e = html.escape
    pos = p.to_position()
    board_svg = pos.svg(marks=[p.target])
    if p.key is not None:
        after = pos.play(p.key)
        marks = [p.target] if p.target in after.stones(p.defender) else []
        after_html = (f'<div class="after-key" aria-label="the position after the key {e(p.key)}">'
                      f'{after.svg(marks=marks)}</div>')
        key_html = f'<p class="solution-key">Key: <b>{e(p.key)}</b></p>'
    else:
        after_html = ""
        key_html = '<p class="solution-key">Key: not recorded</p>'
    line_html = f'<p class="solution-line">Line: {e(p.solution_text())}</p>' if p.line else ""
    facts = []
    if p.difficulty is not None:
        facts.append(f"difficulty {p.difficulty}/5")
    if p.dual_free:
        facts.append("dual-free")
    facts_html = f'<p class="facts">{e(", ".join(facts))}</p>' if facts else ""
    key_attr = "" if p.key is None else f' data-key="{e(p.key)}"'
    return (
        f'<article class="card" id="card-{i}" data-id="{e(p.id)}" data-target="{e(p.target)}" '
        f'data-n="{p.n}"{key_attr}>\n'
        f'<h2>{e(p.id)}</h2>\n'
        f'<p class="task">{e(p.task())}</p>\n'
        f'<div class="board-view" data-reveal role="button" tabindex="0" '
        f'aria-label="board of {e(p.id)}; click for the solution">{board_svg}</div>\n'
        f'<button type="button" class="reveal" data-reveal aria-expanded="false" '
        f'aria-controls="solution-{i}">Show solution</button>\n'
        f'<div class="solution" id="solution-{i}" hidden>\n{key_html}\n{line_html}\n{facts_html}\n{after_html}\n</div>\n'
        f'</article>'
    )


def book_html(puzzles: Iterable[Puzzle], title: str = DEFAULT_TITLE) -> str:
    """The whole page as a string (each puzzle is validated first)."""
    ps = [p.validate() for p in puzzles]
    e = html.escape
    cards = "\n".join(_card(i, p) for i, p in enumerate(ps, 1))
    count = f"{len(ps)} puzzle{'' if len(ps) == 1 else 's'}"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{e(title)}</title>
<style>{_CSS}</style>
</head>
<body>
<header>
<h1>{e(title)}</h1>
<span class="count">{count}</span>
<button type="button" id="toggle-all" aria-pressed="false">Show all solutions</button>
</header>
<main>
{cards}
</main>
<footer>Meridians (Kanare Kato, 2021). Capture in N: the player to move removes the group of the
marked stone within N of their own moves, whatever the defender plays.
Made by meridians {e(solver.__version__)}.</footer>
<script>{_JS}</script>
</body>
</html>
"""


def write_book(puzzles: Iterable[Puzzle], out_dir: str | os.PathLike, title: str = DEFAULT_TITLE) -> Path:
    """Write ``out_dir/index.html`` (the folder is made if needed; the page is written
    atomically, so a reader never sees half of it) and return its path."""
    page = book_html(puzzles, title=title)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "index.html"
    write_atomic(path, page)
    return path
