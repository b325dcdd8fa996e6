"""A puzzle book: one static, self-contained ``index.html`` for a browser.

Every puzzle is a card with its id, the task ("Light to move, capture the group at c3
in 2 moves") and its board, on which the reader solves it by clicking points: the key
is answered "right" and played, the defender answers with the line's next move, the
reader plays the line's next move, and so on to the capture; any other point is
answered "wrong" at once.  Once solved, or after "Show solution", the reader steps
through the whole line (first, back, forward, last).  The target's whole group is
marked, dead groups carry the red cross of :mod:`solver.app.svg` and captured stones leave
the board as the line is played.  Filters (N, theme, rating) and paging (20 a page) sit
at the top.

The page stays small (0.73 MB for 500 puzzles on 6/7, where 1,000 inline SVGs took
30.8 MB): the board's picture (:func:`solver.app.svg.position_svg` of the empty board) and one
stone, mark, dead cross and last-move dot are drawn once per board size in an SVG
``<defs>``; each board is a few ``<use>`` elements written by a small inline script
from the puzzle's data, for the cards of the page shown only.  That data is computed
here with the rules (:class:`solver.Position`), so the script needs none: the start
position as one character a point, and for every move of the line the point, the stones
it removed, the dead stones and the target's group after it, and the legal points where
the attacker is to move.  The points' coordinates are those :mod:`solver.app.svg` draws,
read from its picture of the board, once per board; the script writes the row letters
and point numbers over the stones, on a halo of the page's colour, at least 11.5 px high
however small the board is drawn (as the web board does).  CSS and script are inline and a
Content-Security-Policy forbids every network request, so the page works from
``file://`` and offline.

Lines: every committed puzzle is sound (one key), so any other first point is wrong.
Later in the line the attacker's move is unique, but for the last, in a ``dual_free``
puzzle (every committed one, issue 36); in the others a point off the recorded line is
answered "not the recorded line" (another move may win there too; the records keep one
line).  At the attacker's last turn every move of the record's ``last_moves`` (every
move that captures there) is right: the card says so, plays it and a defender reply,
and the solution lists them.  The defender's last reply is shown as
"any" when every legal reply loses the group (the record may say ``any`` itself, or
name one of them); the board then shows one of those replies.

Cards carry ``data-id``, ``data-target``, ``data-n``, ``data-key``, ``data-difficulty``,
``data-rating`` (the record's rating from attempts, when it has one) and ``data-themes``;
the board is drawn in ``.board-view``, the answers go to ``.status``; the solution block
``.solution`` holds ``.solution-key`` and ``.solution-line``.  Themes come from an
optional ``themes`` field of the record (a tuple of names; none when the records have no
such field).

>>> import tempfile
>>> p = Puzzle(id="m23-c1-0001", position="2/1D1/4/L2/2 L", target="d2", n=1, key="b3", line=("b3",))
>>> path = write_book([p], tempfile.mkdtemp(), title="Demo")
>>> page = path.read_text(encoding="utf-8")
>>> page.count('class="card"'), 'data-key="b3"' in page, page.count('<g id="lattice-')
(1, True, 1)
"""

from __future__ import annotations

import html
import json
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import solver
from solver import Position
from solver.rules.board import Board
from solver.util.files import write_atomic
from solver.app.svg import SPACING, position_svg

from .record import Puzzle

__all__ = ["write_book", "book_html", "book_data", "board_drawing", "puzzle_data", "PER_PAGE", "ANY"]

DEFAULT_TITLE = "Meridians: capture puzzles"

#: cards on one page of the book
PER_PAGE = 20

#: how a line writes a defender move where any legal move would do
ANY = "any"

_CSS = """
:root { --ink: #3b2f20; --page: #fbf8f1; --card: #fffdf8; --edge: #d8c9a8; --accent: #8a2be2; }
* { box-sizing: border-box; }
body { margin: 0; padding: 1.5rem; background: var(--page); color: var(--ink);
       font: 16px/1.45 Helvetica, Arial, sans-serif; }
header { display: flex; flex-wrap: wrap; align-items: baseline; gap: .6rem 1rem; margin-bottom: 1rem; }
h1 { font-size: 1.6rem; margin: 0; }
.count, .page-info { color: #7a6a50; }
.filters, .pager { display: flex; flex-wrap: wrap; gap: .5rem; align-items: baseline; }
select { font: inherit; padding: .2rem; border: 1px solid var(--edge); border-radius: 6px; background: var(--card); color: var(--ink); }
main { display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap: 1.2rem; align-items: start; }
.card { background: var(--card); border: 1px solid var(--edge); border-radius: 10px; padding: 1rem;
        display: flex; flex-direction: column; gap: .5rem; }
.card[hidden] { display: none; }
.card h2 { font-size: 1.05rem; margin: 0; font-family: Menlo, Consolas, monospace; }
.task { margin: 0; font-weight: bold; }
.board-view { border-radius: 6px; aspect-ratio: var(--ar, 1.1); }
.board-view svg { display: block; width: 100%; height: auto; }
.board-view .hit { fill: transparent; cursor: pointer; }
.board-view .coords text { font-family: Helvetica, Arial, sans-serif; }
.solved .board-view .hit, .revealed .board-view .hit { cursor: default; }
.status { margin: 0; min-height: 1.45em; }
.status.right { color: #2a7a3a; font-weight: bold; }
.status.wrong { color: #c0241b; font-weight: bold; }
button { font: inherit; padding: .35rem .8rem; border: 1px solid var(--edge); border-radius: 6px;
         background: #f3ead7; color: var(--ink); cursor: pointer; }
button:hover { background: #ead9b8; }
button:disabled { opacity: .45; cursor: default; }
.card > button { align-self: flex-start; }
.stepper { display: flex; gap: .3rem; align-items: center; flex-wrap: wrap; }
.stepper[hidden] { display: none; }
.stepper button { padding: .2rem .55rem; }
.ply { font-family: Menlo, Consolas, monospace; font-size: .9rem; }
.solution { border-top: 1px dashed var(--edge); padding-top: .5rem; }
.solution p { margin: .2rem 0; }
.solution-key b { color: var(--accent); font-size: 1.1rem; }
.solution-line { font-family: Menlo, Consolas, monospace; }
.card.current { outline: 2px solid #0072b2; outline-offset: 2px; }
.keys-help { font-size: .9rem; }
.keys-help summary { cursor: pointer; }
.keys { display: grid; grid-template-columns: auto 1fr; gap: .1rem .7rem; margin: .3rem 0; }
.keys dd { margin: 0; }
kbd { font: .85rem Menlo, Consolas, monospace; padding: 0 .3rem; border: 1px solid var(--edge); border-radius: 4px; }
footer { margin-top: 2rem; font-size: .85rem; color: #7a6a50; }
@media (max-width: 600px) { body { padding: .6rem .7rem; } .card { padding: .6rem; } }  /* a phone: the room to the board */
"""

# The book's script.  DATA.boards[b]: w, h (the viewBox), xy (x0, y0, x1, ...), names,
# hit (the radius of a point's click area).  DATA.puzzles[i] (card i): b, s (one
# character a point: . L D), x (the attacker), t (the target's index), g (the target's
# group), dead, legal (hex, 4 points a digit, lowest first), df (dual-free), k (key
# index or -1), line: [point, any, removed, dead, group, legal] a move; fin: the line's
# index of the attacker's last turn (-1: none recorded), alt: for each other move that
# captures there, its entry and the defender's reply's (the line's end when played).  No rules here:
# every position and every legal point was computed by the rules in Python.
_JS = """
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("book-data").textContent);
  var B = DATA.boards, P = DATA.puzzles, PER = DATA.perPage;
  var NAME = { L: "Light", D: "Dark" }, OTHER = { L: "D", D: "L" };
  var cards = Array.prototype.slice.call(document.querySelectorAll("article.card"));
  var st = cards.map(function () { return { view: 0, done: 0, busy: false, solved: false, open: false, pos: null, line: null }; });
  var page = 0, shown = [];

  function isLegal(hex, p) { return hex && ((parseInt(hex.charAt(p >> 2), 16) >> (p & 3)) & 1) === 1; }
  // the line played: the recorded one, or its end after another capturing last move
  function lineOf(i) { return st[i].line || P[i].line; }
  // positions[j]: the stones after j moves of the line (arrays of '.', 'L', 'D')
  function positions(i) {
    if (st[i].pos) { return st[i].pos; }
    var q = P[i], cur = q.s.split(""), out = [cur.slice()], side = q.x;
    lineOf(i).forEach(function (mv) {
      cur[mv[0]] = side;
      mv[2].forEach(function (r) { cur[r] = "."; });
      out.push(cur.slice());
      side = OTHER[side];
    });
    st[i].pos = out;
    return out;
  }
  function info(i, j) {  // dead, group, legal after j moves
    var q = P[i];
    if (j === 0) { return { dead: q.dead, g: q.g, legal: q.legal }; }
    var mv = lineOf(i)[j - 1];
    return { dead: mv[3], g: mv[4], legal: mv[5] };
  }
  function use(id, cls, b, p) {
    return '<use href="#' + id + '" class="' + cls + '" data-point="' + b.names[p] +
      '" x="' + b.xy[2 * p] + '" y="' + b.xy[2 * p + 1] + '"/>';
  }
  function draw(i) {
    var q = P[i], b = B[q.b], s = st[i], j = s.view, stones = positions(i)[j], f = info(i, j), out = [], ln = lineOf(i);
    out.push('<svg xmlns="http://www.w3.org/2000/svg" class="meridians position" viewBox="0 0 ' + b.w + " " + b.h + '">');
    out.push('<use href="#lattice-' + q.b + '"/>');
    stones.forEach(function (c, p) {
      if (c !== ".") { out.push(use("stone-" + c + "-" + q.b, c === "L" ? "stone light" : "stone dark", b, p)); }
    });
    f.g.forEach(function (p) { out.push(use("mark-" + q.b, "mark", b, p)); });
    f.dead.forEach(function (p) { out.push(use("dead-" + q.b, "dead", b, p)); });
    if (j > 0) { out.push(use("last-" + q.b, "last", b, ln[j - 1][0])); }
    out.push(MeridiansCoords.coordinates(b));  // as the web board draws them (coords.js, before this script)
    for (var p = 0; p < b.names.length; p++) {
      out.push('<circle class="hit" data-point="' + b.names[p] + '" cx="' + b.xy[2 * p] + '" cy="' +
               b.xy[2 * p + 1] + '" r="' + b.hit + '"/>');
    }
    out.push("</svg>");
    cards[i].querySelector(".board-view").innerHTML = out.join("");
    MeridiansCoords.fit(cards[i].querySelector(".board-view svg"));
    var stepper = cards[i].querySelector(".stepper");
    stepper.hidden = !(s.solved || s.open) || ln.length === 0;
    stepper.querySelector('[data-step="first"]').disabled = stepper.querySelector('[data-step="back"]').disabled = j === 0;
    stepper.querySelector('[data-step="last"]').disabled = stepper.querySelector('[data-step="fwd"]').disabled = j >= ln.length;
    stepper.querySelector(".ply").textContent = plyText(i, j);
  }
  window.addEventListener("resize", function () {
    Array.prototype.forEach.call(document.querySelectorAll("article.card:not([hidden]) .board-view svg"), MeridiansCoords.fit);
  });
  function moveText(i, j, verb) {  // move j (0-based) of the line, in words
    var q = P[i], mv = lineOf(i)[j], who = NAME[j % 2 === 0 ? q.x : OTHER[q.x]], name = B[q.b].names[mv[0]];
    var t = who + " " + (mv[1] ? (verb || "plays") + " any move (" + name + " shown)"
                                : (verb ? verb + " " : "") + name);
    if (mv[2].indexOf(q.t) >= 0) { t += ": the group at " + B[q.b].names[q.t] + " is captured"; }
    else if (mv[2].length) { t += ": " + mv[2].length + " stone" + (mv[2].length > 1 ? "s" : "") + " removed"; }
    return t;
  }
  function plyText(i, j) {
    var n = lineOf(i).length;
    if (j === 0) { return "start (0 of " + n + ")"; }
    return (Math.floor((j - 1) / 2) + 1) + (j % 2 ? ". " : "... ") + moveText(i, j - 1) + " (" + j + " of " + n + ")";
  }
  function say(i, text, cls) {
    var el = cards[i].querySelector(".status");
    el.textContent = text;
    el.className = "status" + (cls ? " " + cls : "");
  }
  function finish(i) {
    var s = st[i];
    s.solved = true;
    cards[i].classList.add("solved");
  }
  function click(i, point) {
    var q = P[i], s = st[i], b = B[q.b], p = b.names.indexOf(point), j = s.done;
    if (s.busy || s.solved || s.open || q.k < 0 || s.view !== j || j >= q.line.length) { return; }
    if (positions(i)[j][p] !== ".") { say(i, point + " is taken: click an empty point.", "wrong"); return; }
    if (!isLegal(info(i, j).legal, p)) { say(i, point + " is not a legal move here.", "wrong"); return; }
    var other = null;
    if (p !== q.line[j][0] && j === q.fin) {
      q.alt.forEach(function (a) { if (a[0][0] === p) { other = a; } });
    }
    if (p !== q.line[j][0] && !other) {
      if (j === 0) { say(i, "Wrong: " + point + " is not the key.", "wrong"); }
      else if (q.df) { say(i, "Wrong: " + point + " does not capture in time.", "wrong"); }
      else { say(i, "Not the recorded line: " + point + " may win too (this puzzle has duals), but the book follows its line.", "wrong"); }
      return;
    }
    if (other) { s.line = q.line.slice(0, j).concat(other); s.pos = null; }
    s.done = s.view = j + 1;
    var right = j === 0 ? "Right: " + point + " is the key." :
      other ? "Right: " + point + " captures too (at the last move any move that captures counts; the line plays " +
              B[q.b].names[q.line[j][0]] + ")." : "Right: " + point + ".";
    var ln = lineOf(i);
    if (s.done >= ln.length) { finish(i); say(i, right + " Solved.", "right"); draw(i); return; }
    say(i, right, "right");
    draw(i);
    s.busy = true;
    setTimeout(function () {
      s.busy = false;
      if (s.open || s.done !== j + 1) { return; }
      s.done = s.view = j + 2;
      var t = right + " " + moveText(i, j + 1, "answers") + ".";
      if (s.done >= ln.length) { finish(i); say(i, t + " Solved.", "right"); }
      else { say(i, t + " Your move.", "right"); }
      draw(i);
    }, DATA.replyMs);
  }
  function reveal(i, open) {
    var card = cards[i], s = st[i], sol = card.querySelector(".solution"), btn = card.querySelector("button.reveal");
    if (open === undefined) { open = sol.hidden; }
    sol.hidden = !open;
    btn.setAttribute("aria-expanded", open ? "true" : "false");
    btn.textContent = open ? "Hide solution" : "Show solution";
    if (open === s.open) { return; }
    s.open = open;
    card.classList.toggle("revealed", open);
    if (open) { s.view = lineOf(i).length ? 1 : 0; }
    else if (!s.solved) { s.view = s.done = 0; s.line = s.pos = null; say(i, startText(i), ""); }
    if (!card.hidden) { draw(i); }
  }
  function startText(i) { return P[i].k < 0 ? "No key recorded: nothing to solve." : "Click the key."; }
  function step(i, how) {
    var s = st[i], n = lineOf(i).length;
    s.view = how === "first" ? 0 : how === "last" ? n : Math.max(0, Math.min(n, s.view + (how === "fwd" ? 1 : -1)));
    draw(i);
  }

  // -- filters and paging
  var fN = document.getElementById("filter-n"), fT = document.getElementById("filter-theme"), fR = document.getElementById("filter-rating");
  function matches(i) {
    var q = P[i];
    return (fN.value === "" || String(q.n) === fN.value) &&
      (fT.value === "" || q.th.indexOf(fT.value) >= 0) &&
      (fR.value === "" || String(q.r === null ? "none" : q.r) === fR.value);
  }
  function render() {
    var sel = [];
    for (var i = 0; i < P.length; i++) { if (matches(i)) { sel.push(i); } }
    var pages = Math.max(1, Math.ceil(sel.length / PER));
    page = Math.max(0, Math.min(page, pages - 1));
    var from = page * PER, now = sel.slice(from, from + PER), on = {};
    now.forEach(function (i) { on[i] = true; });
    cards.forEach(function (c, i) { c.hidden = !on[i]; });
    now.forEach(draw);
    shown = now;
    document.getElementById("page-info").textContent = sel.length ?
      "puzzles " + (from + 1) + "\\u2013" + (from + now.length) + " of " + sel.length + ", page " + (page + 1) + " of " + pages :
      "no puzzle matches";
    document.getElementById("prev").disabled = page === 0;
    document.getElementById("next").disabled = page >= pages - 1;
  }
  [fN, fT, fR].forEach(function (f) { f.addEventListener("change", function () { page = 0; render(); }); });
  document.getElementById("prev").addEventListener("click", function () { page -= 1; render(); window.scrollTo(0, 0); });
  document.getElementById("next").addEventListener("click", function () { page += 1; render(); window.scrollTo(0, 0); });

  document.addEventListener("click", function (ev) {
    var t = ev.target, card = t.closest && t.closest("article.card");
    if (!card) { return; }
    var i = cards.indexOf(card);
    setCurrent(i, false);
    if (t.closest(".hit")) { click(i, t.getAttribute("data-point")); }
    else if (t.closest("button.reveal")) { reveal(i); }
    else if (t.closest("[data-step]")) { step(i, t.closest("[data-step]").getAttribute("data-step")); }
  });
  var all = document.getElementById("toggle-all");
  all.addEventListener("click", function () {
    var open = all.getAttribute("aria-pressed") !== "true";
    all.setAttribute("aria-pressed", open ? "true" : "false");
    all.textContent = open ? "Hide all solutions" : "Show all solutions";
    cards.forEach(function (c, i) { reveal(i, open); });
  });

  // -- keys: they act on the current card (the last one clicked or focused, else the
  // page's first); the same keys as the trainer's (meridians serve)
  var cur = -1;
  function current() { return shown.indexOf(cur) >= 0 ? cur : (shown.length ? shown[0] : -1); }
  function setCurrent(i, scroll) {
    if (cur >= 0) { cards[cur].classList.remove("current"); }
    cur = i;
    if (i < 0) { return; }
    cards[i].classList.add("current");
    if (scroll) { cards[i].scrollIntoView({ block: "nearest" }); }
  }
  function hint(i) {  // first the key's row, then its point; once solved or shown, nothing to hint
    var q = P[i], s = st[i], j = s.done;
    if (q.k < 0 || s.solved || s.open || j >= q.line.length) { return; }
    var name = B[q.b].names[q.line[j][0]];
    s.hints = s.hints === j + 0.5 ? j + 1 : j + 0.5;
    say(i, s.hints === j + 0.5 ? "Hint: the move is on row " + name.charAt(0) + "." : "Hint: play " + name + ".", "");
  }
  function nextCard(i) {
    var k = shown.indexOf(i);
    if (k >= 0 && k + 1 < shown.length) { setCurrent(shown[k + 1], true); return; }
    if (!document.getElementById("next").disabled) { page += 1; render(); setCurrent(shown[0], true); }
  }
  document.addEventListener("focusin", function (ev) {
    var card = ev.target.closest && ev.target.closest("article.card");
    if (card) { setCurrent(cards.indexOf(card), false); }
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) { return; }
    var tag = ev.target && ev.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") {
      if (ev.key === "Escape") { ev.target.blur(); }
      return;
    }
    var i = current(), key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
    if (i < 0) { return; }
    var moving = st[i].solved || st[i].open;  // the line is browsed once solved or shown
    var act = { h: function () { hint(i); }, s: function () { reveal(i); }, n: function () { nextCard(i); },
                ArrowLeft: moving && function () { step(i, "back"); }, ArrowRight: moving && function () { step(i, "fwd"); },
                Home: moving && function () { step(i, "first"); }, End: moving && function () { step(i, "last"); } }[key];
    if (act) { ev.preventDefault(); setCurrent(i, false); act(); }
  });
  cards.forEach(function (c, i) { say(i, startText(i), ""); });
  render();
})();
"""

# Nothing may leave the page: inline style and script only, images only as data: URLs.
_CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

_VIEWBOX = re.compile(r'viewBox="0 0 ([0-9.]+) ([0-9.]+)"')
_POINT = re.compile(r'<circle class="point" cx="([-0-9.]+)" cy="([-0-9.]+)"')
_DATA_POINT = re.compile(r' data-point="[^"]*"')
_COORDINATES = re.compile(r'<g class="coordinates"[^>]*>.*?</g>', re.S)


def _board_drawing(b: Board, k: int) -> tuple[str, dict[str, Any]]:
    """The ``<defs>`` of board ``b`` (number ``k`` in the book) and its geometry.

    Everything is taken from :func:`solver.app.svg.position_svg`, so the book looks like
    our other pictures: the empty board (``lattice-k``), and a Light stone, a Dark
    stone, a mark, a dead cross and a last-move dot drawn at point 0 and moved to the
    origin (``stone-L-k``, ...), which the script places with ``<use x= y=>``; the
    point coordinates are the centres of the picture's point dots.
    """
    empty = position_svg(b).strip().split("\n")
    assert empty[0].startswith("<svg") and empty[-1] == "</svg>"
    w, h = _VIEWBOX.search(empty[0]).groups()
    xy = [float(v) for m in _POINT.finditer("\n".join(empty)) for v in m.groups()]
    assert len(xy) == 2 * b.size
    proto = position_svg(b, light=[0], dark=[1], marks=[0], dead=[0], last=0).strip().split("\n")
    x0, y0 = xy[0], xy[1]
    parts = {}
    for name, start in (("stone-L", '<circle class="stone light"'), ("stone-D", '<circle class="stone dark"'),
                        ("mark", '<circle class="mark"'), ("dead", '<g class="dead"'), ("last", '<circle class="last"')):
        el = [line for line in proto if line.startswith(start)]
        assert len(el) == 1, name
        # the dark prototype stands on point 1: move it by that point's offset instead
        dx, dy = (xy[2], xy[3]) if name == "stone-D" else (x0, y0)
        parts[name] = (f'<g id="{name}-{k}" transform="translate({-dx:.2f},{-dy:.2f})">'
                       f'{_DATA_POINT.sub("", el[0])}</g>')
    defs = f'<g id="lattice-{k}">' + "".join(empty[1:-1]) + "</g>" + "".join(parts.values())
    geometry = {"name": b.name, "w": float(w), "h": float(h), "xy": [round(v, 2) for v in xy],
                "names": list(b.names), "hit": round(0.5 * SPACING, 2)}
    return defs, geometry


def board_drawing(b: Board, k: int) -> tuple[str, dict[str, Any]]:
    """The ``<defs>`` (ids ending in ``-k``) and the geometry of board ``b``, as the book
    draws them (:func:`_board_drawing`), for other pages that draw boards the same way
    (``meridians serve``)."""
    return _board_drawing(b, k)


def puzzle_data(p: Puzzle, k: int) -> dict[str, Any]:
    """The book script's data of one puzzle (validated first) on board number ``k``:
    the start, and for every move of the line to show the point, the stones removed,
    the dead stones, the target's group and the attacker's legal points (see ``_JS``)."""
    p = p.validate()
    return _puzzle_data(p, k, _moves(p))


def _legal_hex(b: Board, pos: Position) -> str:
    """The legal points as hex digits, four points a digit, lowest point first."""
    bits = [0] * ((b.size + 3) // 4)
    for m in pos.legal_moves():
        i = b.index(m)
        bits[i >> 2] |= 1 << (i & 3)
    return "".join(f"{v:x}" for v in bits)


def _group(pos: Position, colour: str, point: str) -> frozenset[str]:
    """The group of ``colour`` holding ``point`` (empty when the point holds none)."""
    for g in pos.groups(colour):
        if point in g:
            return g
    return frozenset()


def _line_moves(p: Puzzle, pos: Position) -> list[tuple[str, bool]]:
    """The line as (point, any): a move written ``any`` gets a legal point for which the
    rest of the line stays legal (the first in board order); the defender's last reply
    counts as ``any`` when every legal reply removes the target.  A line that cannot be
    played to its end is cut where it fails."""
    out: list[tuple[str, bool]] = []
    cur = pos
    line = list(p.line) or [p.key]
    for j, mv in enumerate(line):
        legal = cur.legal_moves()
        last_reply = j == len(line) - 1 and j % 2 == 1
        if mv == ANY:
            chosen = None
            for m in legal:
                try:
                    q = cur.play(m)
                    for later in line[j + 1:]:
                        if later == ANY:
                            break
                        q = q.play(later)
                except ValueError:
                    continue
                chosen = m
                break
            if chosen is None:
                return out
            out.append((chosen, True))
        else:
            if mv not in legal:
                return out
            anyway = last_reply and bool(legal) and all(p.target in cur.play(m).removed for m in legal)
            if anyway and mv in cur.play(mv).removed:
                # show a reply whose stone stays on the board, if there is one
                mv = next((m for m in legal if m not in cur.play(m).removed), mv)
            out.append((mv, anyway))
        cur = cur.play(out[-1][0])
    return out


def _line_text(p: Puzzle, moves: list[tuple[str, bool]]) -> str:
    """:meth:`Puzzle.solution_text`, with ``any`` for a defender move where any legal
    move would do (``moves`` from :func:`_line_moves`): ``'1. d4 e2 2. c5 any'``."""
    if len(moves) < len(p.line):
        return p.solution_text()
    return " ".join((f"{i // 2 + 1}. " if i % 2 == 0 else "") + (ANY if anyway else m)
                    for i, (m, anyway) in enumerate(moves))


def _moves(p: Puzzle) -> list[tuple[str, bool]]:
    """The line to show (:func:`_line_moves`); none without a key."""
    return _line_moves(p, p.to_position()) if p.key is not None else []


def _puzzle_data(p: Puzzle, k: int, moves: list[tuple[str, bool]]) -> dict[str, Any]:
    """What the script needs of one puzzle on board number ``k`` (see ``_JS``), whose
    line is ``moves`` (:func:`_moves`)."""
    pos = p.to_position()
    b = pos.board
    ix = b.index
    light, dark = pos.stones("L"), pos.stones("D")
    s = "".join("L" if n in light else "D" if n in dark else "." for n in b.names)
    y = p.defender


    def entry(before: Position, mv: str, anyway: bool) -> tuple[list, Position]:
        cur = before.play(mv)
        removed = sorted(ix(n) for n in cur.removed)
        # the script places the stone and takes the removed ones off: check it gets cur
        assert (before.stones("L") | before.stones("D") | {mv}) - cur.removed == cur.stones("L") | cur.stones("D")
        attacker_next = cur.to_move == p.attacker and cur.outcome is None
        return [ix(mv), int(anyway), removed, sorted(ix(n) for n in cur.marked_dead()),
                sorted(ix(n) for n in _group(cur, y, p.target)),
                _legal_hex(b, cur) if attacker_next else ""], cur

    line = []
    cur = pos
    at = []  # the position before each move
    for mv, anyway in moves:
        at.append(cur)
        e, cur = entry(cur, mv, anyway)
        line.append(e)
    # the other moves that capture at the attacker's last turn, each with a defender reply
    # (one whose stone stays, if any: every reply loses the target there)
    fin, alt = 2 * p.n - 2, []
    if p.last_moves and len(moves) > fin:
        for m in p.last_moves:
            if m == moves[fin][0]:
                continue
            x, after = entry(at[fin], m, False)
            legal = after.legal_moves() if after.outcome is None else []
            if not legal:
                alt.append([x])
                continue
            reply = next((r for r in legal if r not in after.play(r).removed), legal[0])
            anyway = all(p.target in after.play(r).removed for r in legal)
            alt.append([x, entry(after, reply, anyway)[0]])
    themes = getattr(p, "themes", ()) or ()
    return {"b": k, "s": s, "x": p.attacker, "t": ix(p.target), "n": p.n,
            "g": sorted(ix(n) for n in _group(pos, y, p.target)),
            "dead": sorted(ix(n) for n in pos.marked_dead()), "legal": _legal_hex(b, pos),
            "df": int(bool(p.dual_free)), "k": -1 if p.key is None else ix(p.key), "line": line,
            "fin": fin if p.last_moves and len(moves) > fin else -1, "alt": alt,
            "r": p.difficulty, "th": [str(t) for t in themes]}


def book_data(puzzles: Iterable[Puzzle], lines: list[list[tuple[str, bool]]] | None = None
              ) -> tuple[str, dict[str, Any]]:
    """The ``<defs>`` of the boards and the script's data for these (validated) puzzles,
    whose lines to show are ``lines`` (default: :func:`_moves` of each)."""
    puzzles = list(puzzles)
    if lines is None:
        lines = [_moves(p) for p in puzzles]
    boards: dict[str, int] = {}
    defs: list[str] = []
    geometry: list[dict[str, Any]] = []
    data = []
    for p, moves in zip(puzzles, lines):
        b = p.to_position().board
        if b.name not in boards:
            boards[b.name] = len(geometry)
            d, g = _board_drawing(b, len(geometry))
            defs.append(_COORDINATES.sub("", d))  # the script draws them, over the stones and sized to the board shown
            geometry.append(g)
        data.append(_puzzle_data(p, boards[b.name], moves))
    return "".join(defs), {"boards": geometry, "puzzles": data, "perPage": PER_PAGE, "replyMs": 350}


def _card(i: int, p: Puzzle, hidden: bool, moves: list[tuple[str, bool]]) -> str:
    """The HTML of one puzzle card (``i`` numbers the element ids: puzzle ids may hold
    any character but a space, a quote or ';'); the script draws its board."""
    e = html.escape
    if p.key is not None:
        key_html = f'<p class="solution-key">Key: <b>{e(p.key)}</b></p>'
    else:
        key_html = '<p class="solution-key">Key: not recorded</p>'
    line_html = f'<p class="solution-line">Line: {e(_line_text(p, moves))}</p>' if p.line else ""
    themes = [str(t) for t in (getattr(p, "themes", ()) or ())]
    facts = []
    if p.rating is not None:  # from solvers' attempts, one scale across boards and N
        facts.append(f"rating {p.rating}")
    if p.difficulty is not None:  # the older band within the set's board and N
        facts.append(f"difficulty {p.difficulty}/5")
    facts.append("dual-free" if p.dual_free else "with duals (later moves may have alternatives)")
    if p.last_moves and len(p.last_moves) > 1:
        facts.append(f"last move: any that captures ({', '.join(p.last_moves)})")
    if themes:
        facts.append("themes: " + ", ".join(themes))
    facts_html = f'<p class="facts">{e("; ".join(facts))}</p>'
    key_attr = "" if p.key is None else f' data-key="{e(p.key)}"'
    diff_attr = "" if p.difficulty is None else f' data-difficulty="{p.difficulty}"'
    if p.rating is not None:
        diff_attr += f' data-rating="{p.rating}"'
    m = p.to_position().board.m
    return (
        f'<article class="card" id="card-{i}" data-id="{e(p.id)}" data-target="{e(p.target)}" '
        f'data-n="{p.n}"{key_attr}{diff_attr} data-themes="{e(" ".join(themes))}"{" hidden" if hidden else ""}>\n'
        f'<h2>{e(p.id)}</h2>\n'
        f'<p class="task">{e(p.task())}</p>\n'
        f'<div class="board-view" style="--ar:{_aspect(m)}" aria-label="board of {e(p.id)}: click a point to play it"></div>\n'
        f'<p class="status" aria-live="polite"></p>\n'
        f'<div class="stepper" hidden><button type="button" data-step="first" aria-label="start">|&lt;</button>'
        f'<button type="button" data-step="back" aria-label="back">&lt;</button>'
        f'<button type="button" data-step="fwd" aria-label="forward">&gt;</button>'
        f'<button type="button" data-step="last" aria-label="end">&gt;|</button> <span class="ply"></span></div>\n'
        f'<button type="button" class="reveal" aria-expanded="false" '
        f'aria-controls="solution-{i}">Show solution</button>\n'
        f'<div class="solution" id="solution-{i}" hidden>\n{key_html}\n{line_html}\n{facts_html}\n</div>\n'
        f'</article>'
    )


@lru_cache(maxsize=None)
def _aspect(m: int) -> str:
    """Width over height of the board picture (reserves the board's room before it is
    drawn, so the page does not jump)."""
    w, h = _VIEWBOX.search(position_svg(Board.get(m)).split("\n", 1)[0]).groups()
    return f"{float(w) / float(h):.4f}"


def _options(values: list[tuple[str, str]], everything: str) -> str:
    e = html.escape
    return f'<option value="">{e(everything)}</option>' + "".join(
        f'<option value="{e(v)}">{e(label)}</option>' for v, label in values)


@lru_cache(maxsize=1)
def _coords_js() -> str:
    """The web board's coordinates script (solver/app/web/static/coords.js), which the
    book's script draws its coordinates with."""
    from importlib import resources

    return resources.files("solver.app.web").joinpath("static", "coords.js").read_text(encoding="utf-8")


def book_html(puzzles: Iterable[Puzzle], title: str = DEFAULT_TITLE) -> str:
    """The whole page as a string (each puzzle is validated first)."""
    ps = [p.validate() for p in puzzles]
    e = html.escape
    lines = [_moves(p) for p in ps]
    defs, data = book_data(ps, lines)
    cards = "\n".join(_card(i, p, i > PER_PAGE, m) for i, (p, m) in enumerate(zip(ps, lines), 1))
    count = f"{len(ps)} puzzle{'' if len(ps) == 1 else 's'}"
    ns = sorted({p.n for p in ps})
    themes = sorted({str(t) for p in ps for t in (getattr(p, "themes", ()) or ())})
    ratings = sorted({p.difficulty for p in ps if p.difficulty is not None})
    rating_options = [(str(r), f"rating {r}") for r in ratings]
    if any(p.difficulty is None for p in ps):
        rating_options.append(("none", "no rating"))
    # "<" never appears raw inside the script element, so no "</script>" can end it early
    blob = json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
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
<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" style="position:absolute" aria-hidden="true"><defs>{defs}</defs></svg>
<header>
<h1>{e(title)}</h1>
<span class="count">{count}</span>
<div class="filters">
<label>N <select id="filter-n">{_options([(str(n), f"capture in {n}") for n in ns], "every N")}</select></label>
<label>Theme <select id="filter-theme">{_options([(t, t) for t in themes], "every theme")}</select></label>
<label>Rating <select id="filter-rating">{_options(rating_options, "every rating")}</select></label>
</div>
<div class="pager"><button type="button" id="prev">Previous page</button>
<button type="button" id="next">Next page</button>
<span class="page-info" id="page-info"></span></div>
<button type="button" id="toggle-all" aria-pressed="false">Show all solutions</button>
<details class="keys-help" id="keys"><summary>Keys</summary><dl class="keys">
<dt><kbd>h</kbd></dt><dd>hint: first the move's row, then the move</dd>
<dt><kbd>s</kbd></dt><dd>show or hide the solution</dd>
<dt><kbd>n</kbd></dt><dd>the next puzzle (the next page after the last)</dd>
<dt><kbd>&larr;</kbd> <kbd>&rarr;</kbd></dt><dd>step back and forward through the line, once solved or shown</dd>
<dt><kbd>Home</kbd> <kbd>End</kbd></dt><dd>the line's start and end</dd>
</dl><p>They act on the puzzle last clicked (outlined), else the page's first; not while a list has the focus (Esc leaves it).</p></details>
</header>
<main>
{cards}
</main>
<footer>Meridians (Kanare Kato, 2021). Capture in N: the player to move removes the group of the
marked stones within N of their own moves, whatever the defender plays. Click a point to play it.
Made by meridians {e(solver.__version__)}.</footer>
<script type="application/json" id="book-data">{blob}</script>
<script>{_coords_js()}
{_JS}</script>
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
