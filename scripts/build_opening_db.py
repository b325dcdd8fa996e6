#!/usr/bin/env python3
"""Build the opening database of a solved board: solver/data/openings-<m>-<m+1>.npz.

Usage: python scripts/build_opening_db.py --board 2/3 --plies 10 [--max-nodes N] [--out FILE]
       python scripts/build_opening_db.py --board 3/4 --plies 1

Every position reachable in the first ``--plies`` plies (up to the board's symmetries, as
a fresh game), each with its exact value for the player to move and the effort of the
proof that gave it:

- 2/3: each position proven on its own by df-pn (alpha-beta when df-pn leaves it open);
  a position whose game is over takes the rules' value (0 nodes).
- 3/4: the empty board and the ten classes of first moves from the proofs of record in
  results/solutions/3-4.json (their expansions and seconds), and the classes of first
  pairs that results/solutions/3-4-pie.json proves by a search of their own (a class a
  first-move certificate decides adds nothing: it is a reply to a first move, and Dark's
  winning reply is in already) and, for each first move that loses and each won pie
  class, the position after the winning move its proof's line begins with (lost by that
  proof), so that every won position of the database has a proven winning move; ``--plies`` is at most 1 there.  The empty board's value is the
  negamax of its children's ("children").

Checks before writing: every entry's value is the negamax of its children's entries
(every child present: equal; some present: a child lost for its mover makes a win), and
the empty board's value and every first move's equal the board's results file.  The
proofs go to a checkpoint (opening-db-<board>.json in the user state folder,
``solver.util.files.state_dir()``; a :class:`solver.jobs.state.RunState`) as they are
found, so Ctrl-C, a kill and the same command again resume; the database is written
atomically with the command and the code's revision in its meta.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path

from solver import Board, Position
from solver.util.files import read_json, state_dir
from solver.jobs.state import RunState, StateError
from solver.app.openings.database import Entry, OpeningDatabase, database_file, position_key
from solver.util.provenance import code_revision, provenance
from solver.search.values import Value
from solver.search.limit import Limit

ROOT = Path(__file__).resolve().parent.parent

OUT = ROOT / "solver" / "data"
SOLUTIONS = ROOT / "results" / "solutions"


def fresh(position: Position) -> Position:
    """The same stones and side to move, without the game's history."""
    return Position(position.board, position.stones("L"), position.stones("D"), position.to_move)


def reachable(board: Board, plies: int) -> tuple[dict[int, Position], dict[int, int]]:
    """Canonical key -> a representative position, and key -> the first ply it is
    reached at, for every position within ``plies`` plies of the empty board."""
    start = Position.start(board)
    reps = {position_key(start): start}
    depth = {position_key(start): 0}
    layer = [start]
    for ply in range(1, plies + 1):
        nxt = []
        for p in layer:
            for m in p.legal_moves():
                c = fresh(p.play(m))
                k = position_key(c)
                if k not in reps:
                    reps[k], depth[k] = c, ply
                    nxt.append(c)
        print(f"ply {ply}: {len(nxt):,} new positions ({len(reps):,} in all)", file=sys.stderr, flush=True)
        layer = nxt
    return reps, depth


def prove_entry(position: Position, max_nodes: int) -> Entry:
    """A proof of ``position``'s value: the rules when the game is over, else df-pn,
    else alpha-beta (win or loss only)."""
    from solver.search.prove import prove
    from solver.search.solve import solve

    if position.outcome is not None:
        return Entry(Value.from_outcome(position.outcome, position.to_move), "rules", 0, 0.0)
    r = prove(position, Limit(nodes=max_nodes, tt_mb=4), method="dfpn")
    if r.value in ("win", "loss"):
        return Entry(Value(r.value), "dfpn", int(r.nodes), float(r.seconds))
    s = solve(position, Limit(tt_mb=16))
    if s.value in ("win", "loss"):
        return Entry(Value(s.value), "alphabeta", int(s.nodes), float(s.seconds))
    raise SystemExit(f"{position}: no win or loss proven (df-pn {r.value}, alpha-beta {s.value})")


#: the kind of the build's checkpoint (:class:`solver.jobs.state.RunState`)
CHECKPOINT_FORMAT = "meridians-opening-proofs/1"


def checkpoint_of(path: Path, board: Board) -> RunState:
    """The checkpoint ``path`` of a build of ``board``'s database: its proofs, as they are found."""
    return RunState(path, CHECKPOINT_FORMAT, {"board": board.name}, name="checkpoint", run="build",
                    fix="remove it or give another --checkpoint")


def load_proofs(ck: RunState) -> dict[int, Entry]:
    """The proofs of the checkpoint ({} when there is none), each of the right shape; a
    wrong value is left to :func:`check_negamax`."""
    done: dict[int, Entry] = {}
    for i, p in enumerate(ck.load_entries("proofs", list)):
        try:
            k, v, src, nodes, secs = p
            if not (type(k) is int and type(src) is str and type(nodes) is int and nodes >= 0
                    and type(secs) in (int, float) and secs >= 0):
                raise TypeError
            done[k] = Entry(Value(v), src, nodes, float(secs))
        except (ValueError, TypeError):
            raise ck.error(f"proof {i + 1} is not [key, value, source, nodes, seconds]") from None
    return done


def prove_all(reps: dict[int, Position], ck: RunState, max_nodes: int) -> dict[int, Entry]:
    """Every position's proof, resumed from ``ck`` and saved there as they are found."""
    with ck:
        done = load_proofs(ck)
        todo = [k for k in reps if k not in done]
        print(f"{len(done):,} proofs from {ck.path}, {len(todo):,} to go", file=sys.stderr, flush=True)

        def save(force: bool) -> None:
            ck.save({"proofs": [[k, e.value.value, e.source, e.nodes, round(e.seconds, 6)] for k, e in done.items()]},
                    force)

        t0 = last = time.time()
        try:
            for i, k in enumerate(todo, 1):
                done[k] = prove_entry(reps[k], max_nodes)
                save(force=False)
                if time.time() - last > 5 or i == len(todo):
                    last = time.time()
                    rate = i / (last - t0)
                    print(f"  {i:,}/{len(todo):,} proven, {rate:,.0f}/s, {(len(todo) - i) / rate:,.0f} s to go",
                          file=sys.stderr, flush=True)
        finally:
            save(force=True)  # Ctrl-C too: what was proven is kept
    return done


def check_negamax(reps: dict[int, Position], entries: dict[int, Entry]) -> int:
    """Every entry against its children's entries; returns how many entries had every
    child in the table.  Raises SystemExit on a disagreement."""
    complete = 0
    for k, p in reps.items():
        if p.outcome is not None:
            continue
        child_values = []
        for m in p.legal_moves():
            ck = position_key(fresh(p.play(m)))
            if ck in entries:
                child_values.append(entries[ck].value)
        n_moves = len(p.legal_moves())
        v = entries[k].value
        if Value.LOSS in child_values and v != Value.WIN:
            raise SystemExit(f"{p}: {v} but a move leaves the opponent lost")
        if len(child_values) == n_moves:
            complete += 1
            expect = Value.WIN if Value.LOSS in child_values else Value.LOSS
            if v != expect:
                raise SystemExit(f"{p}: {v}, the negamax of its children's entries is {expect}")
    return complete


def check_results(board: Board, entries: dict[int, Entry]) -> None:
    """The empty board's value and every first move's against the results file."""
    d = read_json(SOLUTIONS / f"{board.name.replace('/', '-')}.json", "results file", dict)
    start = Position.start(board)
    v = entries[position_key(start)].value
    if v != d["value"]:
        raise SystemExit(f"the empty board is {v} here, {d['value']} in the results file")
    for m, mv in d["moves"].items():  # for the player who plays m
        e = entries.get(position_key(fresh(start.play(m))))
        if e is not None and e.value.negated() != mv:
            raise SystemExit(f"first move {m}: {e.value.negated()} here, {mv} in the results file")


def records_3_4(board: Board) -> tuple[dict[int, Position], dict[int, Entry], list[str]]:
    """The proofs of record of 3/4: the first-move classes and the proven pie classes."""
    d = read_json(SOLUTIONS / "3-4.json", "results file", dict)
    start = Position.start(board)
    reps: dict[int, Position] = {}
    entries: dict[int, Entry] = {}
    notes = []
    replies = 0
    for c in d["classes"]:
        p = Position.parse(c["position"])
        k = position_key(p)
        for m in c["members"]:
            if position_key(fresh(start.play(m))) != k:
                raise SystemExit(f"3-4.json class {c['members'][0]}: member {m} is not the class's position")
        reps[k] = p
        # 'light' is the value for Light, who played the first move; Dark is to move
        entries[k] = Entry(Value(c["light"]).negated(), "record", int(c["expansions"]), float(c["seconds"]))
        if c["light"] == "loss" and c.get("line"):
            # the proof's line starts with Dark's winning reply: the position after it is
            # lost for Light by the same checked proof, so a won first-move position has
            # a proven winning move in the database
            after = fresh(p.play(c["line"][0]))
            reps[position_key(after)] = after
            entries[position_key(after)] = Entry(Value.LOSS, "record", int(c["expansions"]), float(c["seconds"]))
            replies += 1
    pie = read_json(SOLUTIONS / "3-4-pie.json", "results file", dict)
    extra = 0
    for c in pie["classes"]:
        if c["value"] not in ("L", "D") or not c.get("verified") or "first_move" in c:
            continue  # a class decided by a first-move class's certificate has no search of its own
        p = Position.parse(c["position"])  # Light's and Dark's first stones, Light to move
        k = position_key(p)
        reps[k] = p
        entries[k] = Entry(Value.WIN if c["value"] == p.to_move else Value.LOSS, "record", int(c["nodes"]),
                           float(c["seconds"]))
        extra += 1
        if c["value"] == p.to_move:
            if not c.get("line"):
                raise SystemExit(f"3-4-pie.json class {c['key']}: no line (collect it again: "
                                 "python scripts/solve_openings.py --board 3/4 --pie --collect)")
            # as for the first-move classes: the proof's line starts with the winning move,
            # and the position after it is lost by the same checked proof
            after = fresh(p.play(c["line"][0]))
            entries[position_key(after)] = Entry(Value.LOSS, "record", int(c["nodes"]), float(c["seconds"]))
            reps[position_key(after)] = after
            replies += 1
    notes.append(f"ply 2 in part: the {extra} classes of first pairs results/solutions/3-4-pie.json proves "
                 f"(of {len(pie['classes'])}), and the {replies} positions after the winning moves of the won "
                 "positions (the lines of the proofs of record)")
    children = [entries[position_key(fresh(start.play(m)))] for m in start.legal_moves()]
    if any(e.value == Value.LOSS for e in children):
        used = [e for e in children if e.value == Value.LOSS]
        v = Value.WIN
    else:
        used, v = children, Value.LOSS
    k0 = position_key(start)
    reps[k0] = start
    # the effort of the empty board's proof: the classes its value rests on
    distinct = {id(e): e for e in used}.values()
    entries[k0] = Entry(v, "children", sum(e.nodes for e in distinct), sum(e.seconds for e in distinct))
    return reps, entries, notes


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--board", required=True, choices=["2/3", "3/4"])
    ap.add_argument("--plies", type=int, required=True)
    ap.add_argument("--max-nodes", type=int, default=10_000_000, help="df-pn budget of one position (2/3)")
    ap.add_argument("--out", default=None, help="output file (default solver/data/openings-<board>.npz)")
    ap.add_argument("--checkpoint", default=None, help="default opening-db-<board>.json in the user state folder "
                    "($MERIDIANS_STATE_DIR or platformdirs' user_state_dir)")
    args = ap.parse_args(argv)
    command = shlex.join(["python", "scripts/build_opening_db.py", *(sys.argv[1:] if argv is None else argv)])
    revision = code_revision()
    board = Board.parse(args.board)
    t0 = time.time()
    notes: list[str] = []
    if args.board == "3/4":
        if not 0 <= args.plies <= 1:
            sys.exit("3/4: --plies 0 or 1 (ply 2, the 870 first pairs, is not solved: 3 of 228 classes)")
        reps, entries, notes = records_3_4(board)
        if args.plies == 0:
            k0 = position_key(Position.start(board))
            notes = []
            reps, entries = {k0: reps[k0]}, {k0: entries[k0]}
        depth = {k: min(len(p.stones("L")) + len(p.stones("D")), 2) for k, p in reps.items()}
    else:
        if not 0 <= args.plies <= 40:
            sys.exit("--plies from 0 to 40")
        reps, depth = reachable(board, args.plies)
        ck = Path(args.checkpoint or state_dir() / f"opening-db-{board.name.replace('/', '-')}.json")
        try:
            entries = prove_all(reps, checkpoint_of(ck, board), args.max_nodes)
        except StateError as e:  # a corrupt checkpoint, another board's, or one in use
            sys.exit(str(e))
        entries = {k: entries[k] for k in reps}
    complete = check_negamax(reps, entries)
    check_results(board, entries)
    build_seconds = time.time() - t0
    per_ply: dict[int, int] = {}
    for k in reps:
        per_ply[depth[k]] = per_ply.get(depth[k], 0) + 1
    sources: dict[str, int] = {}
    for e in entries.values():
        sources[e.source] = sources.get(e.source, 0) + 1
    meta = {
        **provenance(command, revision=revision),
        "plies": args.plies, "per_ply": {str(p): n for p, n in sorted(per_ply.items())},
        "sources": sources, "proof_nodes": sum(e.nodes for e in entries.values()),
        "proof_seconds": round(sum(e.seconds for e in entries.values()), 3),
        "build_seconds": round(build_seconds, 1), "negamax_checked": complete, "notes": notes,
    }
    db = OpeningDatabase.from_entries(board, entries, meta)
    out = Path(args.out) if args.out else OUT / database_file(board)
    db.save(out)
    OpeningDatabase.load(out)  # read back: the file as shipped
    print(f"{out}: {len(db):,} entries, {os.path.getsize(out):,} bytes, plies {args.plies}, "
          f"{complete:,} checked against all their children, built in {build_seconds:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
