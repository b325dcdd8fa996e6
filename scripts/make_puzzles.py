"""Write the committed puzzle sets of results/puzzles/ (issue 5).

    python scripts/make_puzzles.py --jobs 2                 # every set below, resumable
    python scripts/make_puzzles.py --only 6/7:3 --jobs 2    # one set
    python scripts/make_puzzles.py --summary                # a table of the sets as they stand
    python scripts/make_puzzles.py --rescore --jobs 2      # lines and scores by the present verifier
    python scripts/make_puzzles.py --rerate                # ratings from the recorded scores and present cuts
    python scripts/make_puzzles.py --only-moves            # keep the dual-free puzzles only (issue 36)
    python scripts/make_puzzles.py --themes                # themes recomputed; their table and pictures
    python scripts/make_puzzles.py --doc-tables            # docs/puzzles.md's tables from the results

Each set is ``meridians puzzles generate --method sat --seed 1`` (``--method extend`` for
the sets of :data:`METHODS`) with its board, n, count and seed source (``parents``: the
committed (n-1)-movers of its board, in the order of :data:`ORDERS` where it names one), written to ``results/puzzles/<board>-c<n>.jsonl``
(progress on stderr; a killed run resumes from the ``.state.json`` file beside it).
Every puzzle records the code version that proved it.  Afterwards ``meridians puzzles audit results/puzzles/*.jsonl``
re-verifies them all.

``--rescore`` re-verifies every puzzle with the present verifier (no node budget) and
records its main line, dual-free flag, nodes, score, rating and code version, as the
generator would record them now; it refuses a set where a key no longer holds.  The
set's state file records the rewrite under ``rewrites`` (command, revision, counts), as
for every rewrite below.

``--rerate`` rewrites only each record's rating (``difficulty``): the rating of its
recorded score under :data:`puzzles.rating.CUTS` as they stand (after the cuts are
measured anew with ``python scripts/measure_ratings.py --cuts``); a record whose score
is not that of :func:`puzzles.rating.score` (the first generator's) keeps its rating.
A set none of whose ratings changes is left as it is, its state too.

``--only-moves`` rewrites each set to its dual-free puzzles (issue 36: the attacker's
move unique at every turn but the last, where every capturing move counts), each with
``last_moves``, by :func:`puzzles.generate.only_moves`; the set is written atomically
and its state file records the command, the code revision and the counts under
``rewrites``.  Ids stay; the generator numbers new puzzles after the highest.

``--themes`` recomputes each record's ``themes`` (:mod:`puzzles.themes`; a record listing
themes of an older list is read without them), every other field kept byte for byte, and
records the rewrite in the set's state file (a set whose themes are all as recorded is
left as it is, its state too); then it writes the table of theme shares
per set, ``results/puzzles/themes.json`` (with its command, version and revision), and
one picture a theme, ``docs/themes/<theme>.svg``: the first puzzle of the smallest board,
then the smallest N, that shows it.

``--doc-tables`` rewrites the two tables of docs/puzzles.md that hold these results, the
themes per set (from ``results/puzzles/themes.json``) and the ratings per set (from
``results/puzzles/ratings-attempts.json``), from those files; the rest of the page is kept.

Ctrl-C (or SIGTERM), or a worker process killed from outside, stops any of them with one
line and exit code 130: every file is written at once
(a set with the state file that records its rewrite: both or neither), so each is as it
was or wholly new, and the same command does the rest.  While a generator runs, Ctrl-C is
its own to answer: it saves what it found and says so.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import subprocess
import sys
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

#: (board, n, count, seed source), cheapest first: every set is seeded from the engine's
#: self-play games (issue 21; ``random`` is the generator's baseline source).  The counts
#: are issue 36's: 5/6, 6/7 and 7/8 with 500 puzzles for each n = 1..4, 200 for n = 5 and
#: 100 for n = 6; 4/5's capture in 1 as it was, its sets of n = 2..4 grown to 500 so that
#: each theme has 20 puzzles on every board; 6/7's capture in 5 grows on to 450, its
#: puzzles being 6/7 c6's parents, and 7/8's captures in 4 and 5 to 1,100 and 500, as 7/8
#: c5's and c6's parents.  A count is what a set grows to, resumably.
SETS = [
    ("4/5", 1, 200, "selfplay"), ("4/5", 2, 500, "selfplay"), ("4/5", 3, 500, "selfplay"),
    ("4/5", 4, 500, "selfplay"), ("6/7", 1, 500, "selfplay"), ("6/7", 2, 500, "selfplay"),
    ("6/7", 3, 500, "selfplay"), ("5/6", 1, 500, "selfplay"), ("5/6", 2, 500, "selfplay"),
    ("5/6", 3, 500, "selfplay"), ("7/8", 1, 500, "selfplay"), ("7/8", 2, 500, "selfplay"),
    ("5/6", 4, 500, "selfplay"), ("6/7", 4, 500, "selfplay"), ("7/8", 3, 500, "selfplay"),
    ("7/8", 4, 1100, "selfplay"), ("5/6", 5, 200, "selfplay"), ("6/7", 5, 450, "selfplay"),
    ("7/8", 5, 500, "parents"), ("5/6", 6, 100, "selfplay"), ("6/7", 6, 100, "parents"),
    ("7/8", 6, 100, "parents"), ("5/6", 7, 100, "parents"),
]
#: the generator of each set not made by ``sat``: the 6-movers by ``extend`` (sat's
#: 5-movers changed in one point), because sat found 1 puzzle in 722 CPU s at n = 6 on 6/7
#: (issue 21); 7/8's 5-movers by ``extend`` from the committed 4-movers (source
#: ``parents``), because sat found 22 dual-free in 3,496 CPU s there (issue 36), and its
#: 6-movers from the committed 5-movers, because sat's 5-movers cost that much as parents.
#: 6/7 c6, begun from self-play, grows from 6/7 c5's puzzles since the take-backs bench
#: found them the better source; every set is run with ``--grow``, so that a set whose
#: source changed keeps its puzzles and its state the earlier runs.  Past the issue's
#: counts, 5/6 c7 grows by ``extend`` from 5/6 c6's puzzles: as many 7-movers as they give.
METHODS = {**{(board, 6): "extend" for board in ("5/6", "6/7", "7/8")}, ("7/8", 5): "extend",
           ("5/6", 7): "extend"}
#: the sets that take their parents in another order than the file's (``--order``): 7/8
#: c6 those proven in the fewest verifier nodes first, because on 6/7 the parents below the
#: median of nodes gave 43 of the 58 kept 6-movers (docs/puzzles.md), and 7/8 c5 past its
#: first 472 parents (taken in file order) the same way, because 7/8 c4's parents by
#: quartile of nodes, fewest first, gave 76, 62, 42 and 20 of its first 118 5-movers
ORDERS = {("7/8", 5): "nodes", ("7/8", 6): "nodes"}


#: the committed sets, beside this script's checkout (whatever the current folder)
SETS_DIR = Path(__file__).resolve().parent.parent / "results" / "puzzles"


def _set_file(board: str, n: int) -> Path:
    """The committed set of ``board`` and ``n``: ``results/puzzles/6-7-c3.jsonl``."""
    return SETS_DIR / f"{board.replace('/', '-')}-c{n}.jsonl"


def main() -> int:
    args = _options()
    from solver.util.errors import WORKER_STOPPED
    from solver.util.files import interrupt_on_sigterm

    previous_term = signal.getsignal(signal.SIGTERM)
    interrupt_on_sigterm()  # a background run is stopped with a kill: as Ctrl-C, it keeps what was done
    try:
        return _run(args)
    except KeyboardInterrupt:
        # --summary, when it is the mode that runs (--themes and --only-moves go first), only reads
        done = "nothing written" if args.summary and not (args.themes or args.only_moves) else (
            "every file is as it was or wholly rewritten; the same command does the rest")
        print(f"make_puzzles: interrupted: {done}", file=sys.stderr)
        return 130
    except BrokenProcessPool:  # a worker killed from outside (kill -9, out of memory); loky's error is one
        print(f"make_puzzles: stopped: {WORKER_STOPPED}: every file is as it was or wholly rewritten; "
              "the same command does the rest", file=sys.stderr)
        return 130
    except NoStateFile as e:  # nothing of that set was written
        print(e, file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous_term)


def _options() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", action="append", default=[], help="board:n, such as 6/7:3 (repeatable)")
    ap.add_argument("--summary", action="store_true", help="print a table of the sets and stop")
    ap.add_argument("--rescore", action="store_true", help="re-verify every puzzle and record line and score anew")
    ap.add_argument("--rerate", action="store_true", help="rate every puzzle anew from its recorded score")
    ap.add_argument("--only-moves", action="store_true",
                    help="rewrite each set to its dual-free puzzles, with their last moves")
    ap.add_argument("--themes", action="store_true",
                    help="recompute every record's themes; write their table and one picture a theme")
    ap.add_argument("--doc-tables", action="store_true",
                    help="rewrite docs/puzzles.md's tables of themes and ratings from the results")
    return ap.parse_args()


def _run(args: argparse.Namespace) -> int:
    command = "python scripts/make_puzzles.py " + " ".join(sys.argv[1:])  # what a rewrite records
    if args.doc_tables:
        return write_doc_tables()
    if args.themes:
        return themes(command)
    if args.only_moves:
        return only_moves(args.only, args.jobs, command)
    if args.summary:
        return summary()
    if args.rerate:
        return rerate(args.only, command)
    if args.rescore:
        return rescore(args.only, args.jobs, command)
    for board, n, count, source in SETS:
        if args.only and f"{board}:{n}" not in args.only:
            continue
        out = _set_file(board, n)
        cmd = ["meridians", "puzzles", "generate", "--board", board, "--n", str(n), "--count", str(count),
               "--method", METHODS.get((board, n), "sat"), "--seed", "1", "--source", source, "--jobs", str(args.jobs), "--out", str(out), "--grow"]
        if source == "parents":  # the board's committed (n-1)-movers
            cmd.insert(cmd.index("parents") + 1, str(_set_file(board, n - 1)))
        if (board, n) in ORDERS:
            cmd += ["--order", ORDERS[board, n]]
        print(" ".join(cmd), flush=True)
        rc = _generator(cmd)
        if rc:
            return rc
    return 0


def _generator(cmd: list[str]) -> int:
    """Run a generator to its end; its exit code.  A Ctrl-C reaches it too (one process
    group) and it answers it (its state saved, one line, exit code 130), so this process
    lets it pass meanwhile, as ``os.system`` does.  A handler, not SIG_IGN: an ignored
    SIGINT would be inherited, and the generator would ignore Ctrl-C too.  A SIGTERM
    (how a background run is stopped) reaches only this process, so it is passed on, and
    the generator answers it as it answers Ctrl-C; left alone, the generator and its
    workers would run on without a parent."""
    previous = signal.signal(signal.SIGINT, lambda signum, frame: None)
    child: list = []  # the generator, once started
    stop: list = []   # a SIGTERM that came before it had started

    def on_term(signum, frame) -> None:
        if child:
            child[0].send_signal(signal.SIGTERM)
        else:
            stop.append(signum)

    # the handler goes in before the generator starts, so that no SIGTERM falls between
    previous_term = signal.signal(signal.SIGTERM, on_term)
    try:
        child.append(subprocess.Popen(cmd))
        if stop:
            child[0].send_signal(signal.SIGTERM)
        return child[0].wait()
    finally:
        signal.signal(signal.SIGINT, previous)
        signal.signal(signal.SIGTERM, previous_term)


def _committed(only: list[str]):
    """(board, n, file) of each committed set of :data:`SETS` (those of ``only``, if any)."""
    for board, n, *_ in SETS:
        f = _set_file(board, n)
        if (not only or f"{board}:{n}" in only) and f.exists():
            yield board, n, f


def rescore(only: list[str], jobs: int, command: str) -> int:
    """Re-verify every puzzle of the sets with the present verifier and record what it
    finds: main line, dual-free flag, nodes, score, rating and code version, and
    ``command`` in the set's state file.  A set whose puzzles are not all still sound
    with their keys is left as it was."""
    from puzzles.record import code_version, load_jsonl
    from solver.util.provenance import code_revision, provenance

    version = code_version()
    revision = code_revision()  # once, at the start: later edits do not change the code this run imported
    for board, n, f in _committed(only):
        with _held_state(f) as (st, old):
            ps = load_jsonl(f)
            new, cpu = _timed_map(_rescored, ps, version, jobs)
            bad = [p.id for p, q in zip(ps, new) if q is None]
            if bad:
                print(f"{f}: {', '.join(bad[:5])} no longer sound with their keys; set left as it was",
                      file=sys.stderr)
                return 1
            moved = sum(list(p.line) != list(q.line) for p, q in zip(ps, new))
            _rewrite(f, st, old, new, {**provenance(command, revision=revision), "what": "rescore",
                                       "puzzles": len(new), "new_lines": moved, "cpu_seconds": round(cpu, 1)})
            print(f"{f}: {len(ps)} puzzles re-verified in {cpu:.0f} CPU s, {moved} main lines "
                  f"changed, {sum(q.dual_free for q in new)} dual-free", flush=True)
    return 0


class NoStateFile(Exception):
    """A committed set without the state file a rewrite records itself in."""


@contextlib.contextmanager
def _held_state(f: Path):
    """The state of committed set ``f`` and what it holds, with no generator writing the set
    meanwhile; :class:`NoStateFile` when the set has none."""
    from puzzles.generate import run_state

    with run_state(str(f)) as st:
        old = st.load()
        if old is None:
            raise NoStateFile(f"{f}: no state file beside it")
        st.identity = {k: old[k] for k in ("board", "n", "method", "seed", "source", "playouts", "records") if k in old}
        yield st, old


def _rewrite(f: Path, st, old: dict, new: list, entry: dict) -> None:
    """Write set ``f`` as ``new`` and add ``entry`` to its state's rewrites: both or neither."""
    from puzzles.record import write_jsonl
    from solver.util.files import uninterrupted

    fields = {k: v for k, v in old.items() if k not in ("format", "version", "rules", "saved", *st.identity)}
    fields["kept"] = len(new)
    fields["rewrites"] = list(fields.get("rewrites", [])) + [entry]
    with uninterrupted():
        write_jsonl(f, new)
        st.save(fields)


def only_moves(only: list[str], jobs: int, command: str) -> int:
    """Rewrite every set to its dual-free puzzles (:func:`puzzles.generate.only_moves`),
    recording ``command`` in its state file; a table row per set on stdout."""
    from collections import Counter

    from puzzles.record import code_version, load_jsonl
    from solver.util.provenance import code_revision, provenance

    version = code_version()
    revision = code_revision()  # once, at the start: later edits do not change the code this run imported
    print("| set | before | dual-free after | removed | new lines | CPU s |")
    print("|---|---|---|---|---|---|")
    for board, n, f in _committed(only):
        with _held_state(f) as (st, old):
            ps = load_jsonl(f)
            out, cpu = _timed_map(_only_moves, ps, version, jobs)
            why = Counter(w for _, w in out)
            new = [q for q, _ in out if q is not None]
            if why["budget"] or set(why) - {"kept", "new line", "duals"}:
                print(f"{f}: {dict(why)}: set left as it was", file=sys.stderr)
                return 1
            _rewrite(f, st, old, new, {**provenance(command, revision=revision), "before": len(ps), "after": len(new),
                                       "new_lines": why["new line"], "cpu_seconds": round(cpu, 1)})
            print(f"| {board} c{n} | {len(ps)} | {len(new)} | {100 * (len(ps) - len(new)) / len(ps):.1f}% | "
                  f"{why['new line']} | {cpu:.0f} |", flush=True)
    return 0


def _only_moves(p, version):
    """(record or None, why) of :func:`puzzles.generate.only_moves`."""
    from puzzles.generate import only_moves

    return only_moves(p, version)


def _timed_map(fn, ps: list, version: str, jobs: int) -> tuple[list, float]:
    """``[fn(p, version) for p in ps]`` in ``jobs`` worker processes, and the CPU seconds
    it took: this process's and the workers' own."""
    import time

    from joblib import Parallel, delayed

    t0 = time.process_time()
    if jobs == 1:
        return [fn(p, version) for p in ps], time.process_time() - t0
    out = Parallel(n_jobs=jobs)(delayed(_timed)(fn, p, version) for p in ps)
    return [r for r, _ in out], time.process_time() - t0 + sum(c for _, c in out)


def _timed(fn, p, version):
    """(``fn(p, version)``, the CPU seconds it took), in a worker."""
    import time

    t0 = time.process_time()
    r = fn(p, version)
    return r, time.process_time() - t0


#: the table of theme shares per set, and the folder of one picture a theme
THEMES_TABLE = SETS_DIR / "themes.json"
PICTURES = Path(__file__).resolve().parent.parent / "docs" / "themes"


def themes(command: str) -> int:
    """Recompute the themes of every committed set (all of them: the table covers every
    set), rewrite each set whose themes changed and record that in its state file, and
    write the table and the pictures; the table on stdout."""
    import dataclasses
    import json
    import time

    from puzzles.record import THEMES, Puzzle, PuzzleFormatError, read_lines
    from puzzles.themes import ThemeError
    from puzzles.themes import themes as compute
    from solver.util.files import write_atomic, write_json
    from solver.util.provenance import code_revision, provenance

    revision = code_revision()
    table, examples = {}, {}
    for board, n, f in sorted(_committed([]), key=lambda r: (r[0], r[1])):
        with _held_state(f) as (st, old):
            t0 = time.process_time()
            ps, new = [], []
            changed = False
            lineno = 0  # read_lines names the file itself when it cannot be read
            try:
                for lineno, text in enumerate(read_lines(f), 1):
                    if not text.strip():
                        continue
                    d = json.loads(text)
                    if not isinstance(d, dict):
                        raise ValueError(f"a record is a JSON object, not {type(d).__name__}")
                    had = d.pop("themes", None)  # names of an older theme list: recomputed below
                    p = Puzzle.from_dict(d)
                    ps.append(p)
                    new.append(dataclasses.replace(p, themes=compute(p)))
                    written = json.loads(new[-1].to_json())
                    if written.pop("themes", None) != had:
                        changed = True
                    if written != d:  # the record's other fields must go back as they were
                        raise ValueError(f"{p.id} would not be written back as it was")
            except (PuzzleFormatError, ThemeError, ValueError) as e:
                print(f"{f}, line {lineno}: {e}" if lineno else str(e), file=sys.stderr)
                return 1
            cpu = time.process_time() - t0
            if changed:
                _rewrite(f, st, old, new, {**provenance(command, revision=revision), "what": "themes",
                                           "puzzles": len(new), "cpu_seconds": round(cpu, 1)})
        counts = {t: sum(t in q.themes for q in new) for t in THEMES}
        table[f.name] = {"board": board, "n": n, "count": len(new), "themes": counts,
                         "shares": {t: round(c / len(new), 4) for t, c in counts.items()}}
        for q in new:
            for t in q.themes:
                examples.setdefault(t, q)  # sets in board then N order: the smallest first
        print(f"{f}: themes of {len(new)} puzzles recomputed in {cpu:.0f} CPU s"
              + ("" if changed else ", none changed: the set is as it was"), file=sys.stderr, flush=True)
    boards = {}
    for row in table.values():
        b = boards.setdefault(row["board"], {"count": 0, "themes": dict.fromkeys(THEMES, 0)})
        b["count"] += row["count"]
        for t, c in row["themes"].items():
            b["themes"][t] += c
    record = {**provenance(command, revision=revision), "themes": list(THEMES),
              "largest_share": max(s for row in table.values() for s in row["shares"].values()),
              "fewest_per_board": {t: min(b["themes"][t] for b in boards.values()) for t in THEMES},
              "sets": table, "boards": boards,
              "examples": {t: examples[t].id for t in THEMES if t in examples}}
    write_json(THEMES_TABLE, record)
    PICTURES.mkdir(parents=True, exist_ok=True)
    for t, q in examples.items():  # the target marked, the key ringed; the task and line are in the docs
        write_atomic(PICTURES / f"{t}.svg",
                     q.to_position().svg(marks=[q.target], best=q.key, legend={"best": "key"},
                                         title=f"{t}: {q.id}, key {q.key}"))
    print("| set | puzzles | " + " | ".join(THEMES) + " |")
    print("|---|---|" + "---|" * len(THEMES))
    for name, row in table.items():
        print(f"| {name[:-6]} | {row['count']} | "
              + " | ".join(f"{row['themes'][t]} ({100 * row['shares'][t]:.0f}%)" for t in THEMES) + " |")
    for name, b in boards.items():
        print(f"| {name} | {b['count']} | " + " | ".join(str(b["themes"][t]) for t in THEMES) + " |")
    print(f"wrote {THEMES_TABLE} and {len(examples)} pictures in {PICTURES}", file=sys.stderr)
    return 0


#: the page whose tables :func:`doc_tables` writes, and the results it writes them from
DOC = Path(__file__).resolve().parent.parent / "docs" / "puzzles.md"
RATINGS_TABLE = SETS_DIR / "ratings-attempts.json"


def doc_tables() -> list[list[str]]:
    """The lines of docs/puzzles.md's two tables of results, each from its header: the
    themes per set and board (themes.json) and the ratings per set (ratings-attempts.json)."""
    import json

    th = json.loads(THEMES_TABLE.read_text())
    names = th["themes"]
    themes = ["| set | puzzles | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for name, row in th["sets"].items():
        cells = [f"{row['themes'][t]} ({100 * row['shares'][t]:.0f}%)" if row["themes"][t] else "0" for t in names]
        themes.append(f"| {row['board']} c{row['n']} | {row['count']} | " + " | ".join(cells) + " |")
    for board, b in th["boards"].items():
        themes.append(f"| {board} | {b['count']} | " + " | ".join(str(b["themes"][t]) for t in names) + " |")
    ra = json.loads(RATINGS_TABLE.read_text())
    ratings = ["| set | puzzles | min | median | max |", "|---|---|---|---|---|"]
    for name, row in ra["sets"].items():
        board, n = name.rsplit("-c", 1)
        ratings.append(f"| {board.replace('-', '/')} c{n} | {row['puzzles']:,} | {row['min']:,} | "
                       f"{round(row['median']):,} | {row['max']:,} |")
    return [themes, ratings]


def write_doc_tables() -> int:
    """Rewrite docs/puzzles.md's tables of results (:func:`doc_tables`) in place: each
    from its header line to the last line of the table; every other line kept."""
    from solver.util.files import write_atomic

    lines = DOC.read_text().split("\n")
    tables = doc_tables()
    for table in tables:
        start = lines.index(table[0])  # a page without the header is a page to mend by hand
        end = start
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        lines[start:end] = table
    write_atomic(DOC, "\n".join(lines))
    print(f"wrote {DOC}: {sum(len(t) - 2 for t in tables)} rows of 2 tables", file=sys.stderr)
    return 0


def rerate(only: list[str], command: str) -> int:
    """Rewrite each record's rating from its recorded score and the present cuts (no
    search: the score is what the generator recorded), recording ``command`` in the
    state file of each set it changes; see the module docstring."""
    import dataclasses
    from collections import Counter

    from puzzles.rating import RatingError, rating, record_features, score
    from puzzles.record import load_jsonl
    from solver.util.provenance import code_revision, provenance

    revision = code_revision()  # once, at the start: later edits do not change the code this run imported
    for board, n, f in _committed(only):
        with _held_state(f) as (st, old):
            ps = load_jsonl(f)
            new = []
            for p in ps:
                try:
                    ours = abs(score(record_features(p, search_late=False)) - p.score) < 5e-4
                except RatingError as e:
                    print(f"{f}: {e}", file=sys.stderr)
                    return 1
                new.append(dataclasses.replace(p, difficulty=rating(p.score, board, n)) if ours else p)
            changed = sum(p.difficulty != q.difficulty for p, q in zip(ps, new))
            if changed:
                _rewrite(f, st, old, new, {**provenance(command, revision=revision), "what": "rerate",
                                           "puzzles": len(new), "changed": changed})
            spread = Counter(q.difficulty for q in new)
            print(f"{f}: {changed} of {len(ps)} ratings "
                  f"changed; ratings 1-5: {'/'.join(str(spread.get(r, 0)) for r in range(1, 6))}", flush=True)
    return 0


def _rescored(p, version):
    """The record ``p`` as the present verifier scores it (None if not sound with its key)."""
    import dataclasses

    from puzzles.generate import proven

    q, _ = proven(p.to_position(), p.target, p.n, p.generator, version)
    if q is None or q.key != p.key:
        return None
    return dataclasses.replace(q, id=p.id)


def summary() -> int:
    """Three tables of the sets as they stand, the figures issue 36's closing note asks
    for: per set its puzzles against the count asked, dual-free ones and the generator's
    yield from its state file, summed over the runs that made the set (dual-free puzzles
    per CPU-minute of the units); its rating
    histogram (the one scale of :mod:`puzzles.attempts`); its themes."""
    from statistics import median

    from puzzles.generate import read_state, run_totals
    from puzzles.quality import RATING_BINS, measure_set, rating_histogram
    from puzzles.record import load_jsonl
    from puzzles.themes import THEMES

    sets = []  # every set asked, its puzzles and state None when it has no file
    for board, n, count, *_ in SETS:
        f = _set_file(board, n)
        made = (load_jsonl(f), read_state(str(f))) if f.exists() else (None, None)
        sets.append((f"{board} c{n}", count, *made))
    print("| set | puzzles / asked | dual-free | found (dual-free) | units (seed games or parents) | CPU s "
          "| dual-free per CPU-minute |")
    print("|---|---|---|---|---|---|---|")
    for name, count, ps, st in sets:
        if ps is None:  # asked for and not begun: a row that says so
            print(f"| {name} | 0 / {count} | - | - | - | - | - |")
            continue
        dual = sum(p.dual_free for p in ps)
        cells = ["-"] * 4
        if st:
            t = run_totals(st)
            runs = [*st.get("earlier", []), st]
            # a set made by several runs names each run's units by its source
            units = (" + ".join(f"{r['units']} {r.get('source', '?')}" for r in runs) if len(runs) > 1
                     else str(t["units"]))
            cells = [f"{t['found']} ({t['found_dual_free']})", units, f"{t['cpu_seconds']:,.0f}",
                     f"{t['found_dual_free'] / t['cpu_seconds'] * 60:.2f}" if t["cpu_seconds"] else "-"]
        print(f"| {name} | {len(ps)} / {count} | {dual} ({100 * dual / max(1, len(ps)):.0f}%) | "
              + " | ".join(cells) + " |")
    edges = [f"{lo}-{hi - 1}" for lo, hi in zip(RATING_BINS, RATING_BINS[1:])] + [f">= {RATING_BINS[-1]}"]
    print()
    print("| set | " + " | ".join(edges) + " | unrated | median |")
    print("|---|" + "---|" * (len(edges) + 2))
    begun = [x for x in sets if x[2] is not None]  # the sets with puzzles to count
    for name, _, ps, _ in begun:
        counts, unrated = rating_histogram(ps)
        rated = [p.rating for p in ps if p.rating is not None]
        print(f"| {name} | " + " | ".join(map(str, counts)) + f" | {unrated} | {round(median(rated)) if rated else '-'} |")
    print()
    print("| set | " + " | ".join(THEMES) + " |")
    print("|---|" + "---|" * len(THEMES))
    for name, _, ps, _ in begun:
        themes = measure_set(ps, compute_themes=False)["themes"]
        print(f"| {name} | " + " | ".join(str(themes.get(t, 0)) for t in THEMES) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
