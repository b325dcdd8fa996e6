"""Rate the committed puzzle sets with puzzles.rating and check the rating against the
engine's effort to find the key (issue 21).

    python scripts/measure_ratings.py                     # every set; check 40 of each of 6/7, 4/5 c1..c4
    python scripts/measure_ratings.py --sample 10 --max-playouts 2048
    python scripts/measure_ratings.py --cuts              # the quantile cuts of puzzles.rating.CUTS
    python scripts/measure_ratings.py --attempts --per-set 40   # ratings from solvers' attempts (issue 36)
    python scripts/measure_ratings.py --attempts --all --write --jobs 2   # ... of every committed puzzle, written
    python scripts/measure_ratings.py --attempts --add --write --jobs 2   # ... of the puzzles without a rating

Reads every ``results/puzzles/*.jsonl`` and computes each puzzle's new score and rating
(:func:`puzzles.rating.record_features`: the record's nodes, its late-failing tries read
back from its recorded score, the rest from the rules); the records are not rewritten.
Per set: the ratings' spread (puzzles per rating, the largest share at one rating) and
the recorded ratings' largest share.  For the checked sets (``--check``), ``--sample``
puzzles evenly spread over the file are given to the engine
(:func:`puzzles.rating.key_found_at`: the first budget of 16, 32, ... ``--max-playouts``
playouts, fixed seed, from which the engine's best move is the key and stays; a key not
found counts as twice the largest budget), and the share of the engine's visits at the
largest budget that went to other moves (``missed``); Spearman's correlation of the
rating and of the score with each is reported per set and over all the checked puzzles
(positive: a higher rating, more engine effort).  Writes
``results/puzzles/ratings.json`` (atomically, with its command and provenance) and
prints a table.  Ctrl-C stops the check and writes what was measured
(``"interrupted": true``).

``--attempts`` (issue 36) rates from attempts instead (:mod:`puzzles.attempts`):
``--per-set`` puzzles evenly spread over each set, split alternately into a rating half
and a held-out half; every solver of ``--rating-solvers`` and ``--held-solvers`` tries
every sampled puzzle (the drawn solvers with :data:`DRAWN_SEEDS` seeds), and the engine's
effort (as above, up to ``--max-playouts``) and the capture-goal solver's effort (the
nodes the model-ordered exact capture search, :func:`puzzles.attempts.key_effort`,
spends before the key is proven, up to ``--read-budget``; not found counts as twice it)
are measured on the held-out half.  Each attempt is appended to ``--log`` as it ends
(``results/puzzles/attempts/log.jsonl``, not committed), so a run resumes where it
stopped; ``--jobs`` workers run them.  The rating solvers are fitted with the rating
half (:func:`puzzles.attempts.rate`), the held-out puzzles rated against them
(:func:`puzzles.attempts.rate_against`), and Spearman's correlation of those ratings with
the held-out solvers' failure rate, with the engine's effort, with its missed share and
with the capture-goal solver's effort is reported over all held-out puzzles and per board
and N (the recorded ``score`` beside it).  With ``--all`` the rating solvers also try
every other committed puzzle, which joins the fit (a puzzle is rated only when all its
rating attempts have run; the held-out half stays out of the fit and is rated against
the fitted solvers); ``--write`` then puts each rating into the ``rating`` field of its
record, for the sets whose every puzzle is rated (no other byte of a record changes; an
interrupted run writes no record): every such set or none (:func:`write_ratings`), and
none when a rated id now names another puzzle (position, target or n changed: the set was
rebuilt since the run read it) or another run holds a set.  Writes
``results/puzzles/ratings-attempts.json`` with the ratings per set (count, range,
histogram), the per-attempt CPU seconds by board and N, the sets written, and the fit
(its shift and each rating solver's rating, deviation and volatility, unrounded).

``--add`` rates only the committed puzzles that have no rating (a set grown since the
full run), against that recorded fit: the rating solvers' attempts at them run (logged
as above), and each is rated against the fitted solvers (:func:`puzzles.attempts.rate_against`,
as the full run rates its held-out puzzles), as Lichess rates a new puzzle against its
players without rating the old ones again.  With ``--write`` the ratings go into the
records (every set whose puzzles are then all rated) and ratings-attempts.json's
per-set figures are brought up to date, the run listed under ``added``; its fit and
held-out validation are the full run's.  A full run rates every puzzle again.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
import zlib
from collections import Counter
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from puzzles.rating import RatingError, find_key, quantile_cuts, rating, record_features, score, spearman
from puzzles.record import Puzzle, PuzzleFormatError, load_jsonl
from solver.jobs.progress import counter_line
from solver.util.errors import WORKER_STOPPED
from solver.util.files import write_atomic_all, write_json
from solver.util.provenance import code_revision, provenance

#: the folder of the committed sets, where ratings.json is written
OUT = Path(__file__).resolve().parent.parent / "results" / "puzzles"
#: the sets checked against the engine by default
CHECK = ("6-7-c1", "6-7-c2", "6-7-c3", "6-7-c4", "4-5-c1", "4-5-c2", "4-5-c3", "4-5-c4")


def _rhos(found: list[dict], max_playouts: int) -> dict:
    """Spearman's correlation of the rating and of the score with the engine's effort:
    the budget at which it found the key (twice ``max_playouts``: not found) and the
    share of its visits at the largest budget that went to other moves."""
    effort = [2 * max_playouts if x["found_at"] is None else x["found_at"] for x in found]
    missed = [1 - x["share"] for x in found]
    return {f"spearman_{what}{vs}": spearman([x[what] for x in found], ys)
            for what in ("rating", "score") for vs, ys in (("", effort), ("_missed", missed))}


# -- ratings from attempts (issue 36) ---------------------------------------------------------

#: the solvers whose attempts rate the puzzles, weakest kinds first: the engine's solvers
#: are held out only (they play to win the game, not to capture, and rated 837-864 in the
#: first run, no stronger than the policy at t = 1, for most of the attempts' CPU time)
RATING_SOLVERS = ("policy-t2", "policy-t1", "policy-t0.5", "policy-t0",
                  "look-w2-n20", "look-w3-n100", "look-w5-n500", "look-w10-n5000",
                  "read-n300", "read-n1000", "read-n3000", "read-n10000", "read-n30000", "read-n100000",
                  "read-n300000", "read-n1000000")
#: the held-out solvers: their failure rate is what the ratings are checked against
HELD_SOLVERS = ("policy-t1.5", "policy-t0.7", "engine-p128", "engine-p1024",
                "look-w2-n50", "look-w4-n200", "look-w8-n2000", "read-n2000", "read-n20000", "read-n200000")
#: the budget of the capture-goal solver whose effort to find the key is measured
READ_BUDGET = 2**22
#: the seeds of a solver whose moves are drawn (policy at t > 0); the others play one seed
DRAWN_SEEDS = 4


def _seeds(solver) -> range:
    return range(1, DRAWN_SEEDS + 1) if solver.kind == "policy" and solver.t > 0 else range(1, 2)


def _fp(p) -> str:
    """The puzzle's fingerprint in the log: a rebuilt set may give an id to another puzzle,
    whose attempts must then run again."""
    what = f"{p.position}|{p.target}|{p.n}|{p.key}|{' '.join(p.line)}|{' '.join(p.last_moves or ())}"
    return f"{zlib.crc32(what.encode()):08x}"


def _work(task):
    """One task in a worker: ('attempt', solver name, puzzle, seed), ('effort', puzzle, max
    playouts) or ('read', puzzle, budget)."""
    from puzzles.attempts import attempt, parse_solver
    t0 = time.process_time()
    if task[0] == "attempt":
        _, name, p, seed = task
        a = attempt(parse_solver(name), p, seed)
        return {"kind": "attempt", "solver": name, "puzzle": p.id, "fp": _fp(p), "seed": seed, "solved": a.solved,
                "failed_at": a.failed_at, "cpu": round(time.process_time() - t0, 4)}
    if task[0] == "read":
        from puzzles.attempts import key_effort
        _, p, budget = task
        return {"kind": "read", "puzzle": p.id, "fp": _fp(p), "budget": budget, "found_at": key_effort(p, budget),
                "cpu": round(time.process_time() - t0, 4)}
    _, p, mp = task
    fk = find_key(p.to_position(), p.key, mp)
    return {"kind": "effort", "puzzle": p.id, "fp": _fp(p), "max_playouts": mp, "found_at": fk.at,
            "share": fk.share, "cpu": round(time.process_time() - t0, 4)}


def _rows(todo: list, jobs: int, work=_work):
    """The rows of ``work`` on each task of ``todo``, as the tasks end: in this process, or
    in ``jobs`` worker processes, which stop when the iterator is closed.  A worker
    stopped from outside raises BrokenProcessPool."""
    if jobs == 1:
        return map(work, todo)
    from joblib import Parallel, delayed

    return Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered")(delayed(work)(t) for t in todo)


def _done_key(row: dict) -> tuple:
    if row["kind"] == "attempt":
        return ("attempt", row["solver"], row["puzzle"], row["fp"], row["seed"])
    if row["kind"] == "read":
        return ("read", row["puzzle"], row["fp"], row["budget"])
    return ("effort", row["puzzle"], row["fp"], row["max_playouts"])


def _task_key(t: tuple) -> tuple:
    """A task's key in the log (:func:`_done_key` of the row it gives)."""
    if t[0] == "attempt":
        return ("attempt", t[1], t[2].id, _fp(t[2]), t[3])
    return (t[0], t[1].id, _fp(t[1]), t[2])


def _read_log(log: Path, rated: dict) -> dict[tuple, dict]:
    """The rows of the attempts log, by key, of the puzzles as they are now (an id a
    rebuilt set gave to another puzzle runs again); exits in one line on a bad log."""
    done: dict[tuple, dict] = {}
    i = 0
    try:
        for i, line in enumerate(log.read_text().splitlines() if log.exists() else ()):
            if line.strip():
                row = json.loads(line)
                done[_done_key(row)] = row
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"measure_ratings: {log}: not a log of attempts (line {i + 1}: {e})")
    now = {p.id: _fp(p) for rows in rated.values() for p, _, _ in rows}
    return {k: r for k, r in done.items() if now.get(r["puzzle"]) == r["fp"]}


def _run(todo: list, jobs: int, log: Path, done: dict) -> bool:
    """Run ``todo`` in ``jobs`` workers, each row appended to ``log`` and put in ``done``
    as it ends; True when Ctrl-C stopped it (what ran is kept)."""
    from puzzles.attempts import AttemptError

    try:
        log.parent.mkdir(parents=True, exist_ok=True)
        out = log.open("a")
    except OSError as e:
        sys.exit(f"measure_ratings: cannot write the log {log}: {e.strerror or e}")
    interrupted = False
    try:
        with out:
            results = _rows(todo, jobs)
            try:
                for i, row in enumerate(results):
                    done[_done_key(row)] = row
                    out.write(json.dumps(row) + "\n")
                    out.flush()
                    if i % 50 == 0 or i + 1 == len(todo):
                        counter_line(f"{i + 1}/{len(todo)} attempts run", done=i + 1 == len(todo))
            finally:
                if hasattr(results, "close"):
                    results.close()  # the workers stop with it
    except KeyboardInterrupt:
        interrupted = True
        print("\nmeasure_ratings: interrupted; rating what was run", file=sys.stderr)
    except BrokenProcessPool:  # a worker killed from outside (kill -9, out of memory); loky's error is one
        sys.exit(f"\nmeasure_ratings: stopped: {WORKER_STOPPED}; the attempts run so far are in the log, "
                 "and the same command goes on from there")
    except AttemptError as e:  # a puzzle that cannot be attempted (no last_moves): the runs so far are logged
        sys.exit(f"\nmeasure_ratings: {e}")
    return interrupted


def _set_figures(rated: dict, ratings: dict) -> tuple[dict, dict]:
    """Per set its count, rated count, range and histogram (by 100), and the histogram of
    every rating: of ``ratings`` (id -> rating)."""
    sets: dict[str, dict] = {}
    for name, prs in rated.items():
        rs = sorted(ratings[p.id] for p, _, _ in prs if p.id in ratings)
        h = Counter(100 * int(r // 100) for r in rs)
        sets[name] = {"puzzles": len(prs), "rated": len(rs),
                      **({"min": round(rs[0]), "median": round(rs[len(rs) // 2]), "max": round(rs[-1]),
                          "histogram": {str(k): h[k] for k in sorted(h)}} if rs else {})}
    hist = Counter(100 * int(r // 100) for r in ratings.values())
    return sets, {str(k): hist[k] for k in sorted(hist)}


def attempts_main(args, rated: dict) -> None:
    """--attempts: run the solvers' attempts on a sample (resumable), rate, validate."""
    from statistics import mean

    from puzzles.attempts import Attempt, AttemptError, parse_solver, rate, rate_against

    try:
        rating_s = [parse_solver(x) for x in args.rating_solvers.split(",")]
        held_s = [parse_solver(x) for x in args.held_solvers.split(",")]
    except AttemptError as e:
        sys.exit(f"measure_ratings: {e}")
    # a solver twice runs its attempts twice and no puzzle then has the count it wants; one in
    # both lists would be checked against its own fit
    for opt, ss in (("--rating-solvers", rating_s), ("--held-solvers", held_s)):
        twice = sorted({s.name for s in ss if [t.name for t in ss].count(s.name) > 1})
        if twice:
            sys.exit(f"measure_ratings: {opt} names {', '.join(twice)} more than once")
    both = sorted({s.name for s in rating_s} & {s.name for s in held_s})
    if both:
        sys.exit(f"measure_ratings: {', '.join(both)}: both a rating and a held-out solver")
    sample: list = []
    for name, rows in rated.items():
        k = min(args.per_set, len(rows))
        sample += [(name, rows[i * len(rows) // k][0], rows[i * len(rows) // k][1]) for i in range(k)]
    # the halves alternate within each set, so each set and N is in both
    held = {p.id for i, (_, p, _) in enumerate(sample) if i % 2 == 1}
    log = Path(args.log)
    done = _read_log(log, rated)
    sample_ids = {p.id for _, p, _ in sample}
    tasks = [("attempt", s.name, p, seed) for _, p, _ in sample for s in rating_s + held_s for seed in _seeds(s)]
    tasks += [("effort", p, args.max_playouts) for _, p, _ in sample if p.id in held]
    tasks += [("read", p, args.read_budget) for _, p, _ in sample if p.id in held]
    if args.all:  # every other committed puzzle: the rating solvers only, set by set
        tasks += [("attempt", s.name, p, seed) for rows in rated.values() for p, _, _ in rows
                  if p.id not in sample_ids for s in rating_s for seed in _seeds(s)]

    todo = [t for t in tasks if _task_key(t) not in done]
    print(f"measure_ratings: {len(sample)} puzzles, {len(tasks)} tasks, {len(todo)} to run", file=sys.stderr)
    interrupted = _run(todo, args.jobs, log, done)
    by_id = {p.id: (name, p, s) for name, p, s in sample}
    every = {p.id: (name, p, s) for name, rows in rated.items() for p, s, _ in rows}
    atts = [Attempt(r["solver"], r["puzzle"], r["seed"], r["solved"], r["failed_at"])
            for r in done.values() if r["kind"] == "attempt" and r["puzzle"] in every]
    rnames = {s.name for s in rating_s}
    hnames = {s.name for s in held_s}
    # a puzzle is rated only when every rating solver's every attempt at it has run
    want = sum(len(_seeds(s)) for s in rating_s)
    got = Counter(a.puzzle for a in atts if a.solver in rnames)
    complete = {i for i in every if got[i] == want}
    # the solvers are fitted with every rated puzzle but the held-out ones (--all: the
    # committed sets' own mix; else the sample's rating half)
    fit_ids = (complete if args.all else {i for i in by_id if got[i] == want}) - held
    try:
        fit = rate([a for a in atts if a.solver in rnames and a.puzzle in fit_ids])
    except AttemptError as e:
        sys.exit(f"measure_ratings: {e}")
    outside = rate_against([a for a in atts if a.puzzle not in fit.puzzles and a.puzzle in complete], fit)
    ratings = {**{i: r for i, r in fit.puzzles.items() if i in complete}, **outside}
    held_r = {i: r for i, r in outside.items() if i in held}
    fails: dict[str, list] = {}
    for a in atts:
        if a.solver in hnames and a.puzzle in held:
            fails.setdefault(a.puzzle, []).append(0.0 if a.solved else 1.0)
    effort = {r["puzzle"]: r for r in done.values() if r["kind"] == "effort" and r["max_playouts"] == args.max_playouts}
    reads = {r["puzzle"]: r for r in done.values() if r["kind"] == "read" and r["budget"] == args.read_budget}
    ids = sorted(i for i in held_r if i in fails)
    rows = [{"id": i, "set": by_id[i][0], "board": by_id[i][1].to_position().board.name, "n": by_id[i][1].n,
             "rating": round(held_r[i].r), "rd": round(held_r[i].rd), "score": by_id[i][2],
             "held_fail": round(mean(fails[i]), 3),
             "found_at": effort[i]["found_at"] if i in effort else None,
             "share": effort[i]["share"] if i in effort else None, "effort": i in effort,
             "read_at": reads[i]["found_at"] if i in reads else None, "read": i in reads} for i in ids]

    def effort_of(r: dict, what: str):
        if what == "effort":
            return 2 * args.max_playouts if r["found_at"] is None else r["found_at"]
        if what == "read_effort":
            return 2 * args.read_budget if r["read_at"] is None else r["read_at"]
        return 1 - r["share"]

    def rho(rs: list, what: str, by: str = "rating"):
        if what == "fail":
            xs = [(r[by], r["held_fail"]) for r in rs]
        else:
            xs = [(r[by], effort_of(r, what)) for r in rs if r["read" if what == "read_effort" else "effort"]]
        return spearman([x for x, _ in xs], [y for _, y in xs]) if len(xs) > 1 else None

    def figures(rs: list) -> dict:
        return {"puzzles": len(rs), "engine_found": sum(r["effort"] and r["found_at"] is not None for r in rs),
                "read_found": sum(r["read"] and r["read_at"] is not None for r in rs),
                **{f"spearman_{by}_{what}": rho(rs, what, by) for by in ("rating", "score")
                   for what in ("fail", "effort", "missed", "read_effort")}}

    groups: dict[tuple, list] = {}
    for r in rows:
        groups.setdefault((r["board"], r["n"]), []).append(r)
    within = {f"{b} c{n}": figures(rs) for (b, n), rs in sorted(groups.items())}
    cpu: dict[str, dict] = {}
    for r in done.values():
        if r["puzzle"] in every:
            p = every[r["puzzle"]][1]
            kind = (r["solver"].split("-")[0] if r["kind"] == "attempt" else
                    f"effort-{r['max_playouts']}" if r["kind"] == "effort" else f"read-effort-{r['budget']}")
            cpu.setdefault(f"{p.to_position().board.name} c{p.n}", {}).setdefault(kind, []).append(r["cpu"])
    cpu_mean = {g: {k: round(mean(v), 4) for k, v in sorted(d.items())} for g, d in sorted(cpu.items())}
    cpu_total = round(sum(r["cpu"] for r in done.values() if r["puzzle"] in every))
    sets, hist = _set_figures(rated, {i: r.r for i, r in ratings.items()})
    command = (f"python scripts/measure_ratings.py --attempts --per-set {args.per_set}"
               + (f" --max-playouts {args.max_playouts}" if args.max_playouts != 8192 else "")
               + (f" --read-budget {args.read_budget}" if args.read_budget != READ_BUDGET else "")
               + "".join(f" {opt} {','.join(s.name for s in ss)}" for opt, ss, default in
                         (("--rating-solvers", rating_s, RATING_SOLVERS), ("--held-solvers", held_s, HELD_SOLVERS))
                         if tuple(s.name for s in ss) != default)
               + (" --all" if args.all else "") + (" --write" if args.write else "")
               + (f" --jobs {args.jobs}" if args.jobs > 1 else ""))
    written = []
    if args.write and not interrupted:
        complete = [name for name, prs in rated.items() if all(p.id in ratings for p, _, _ in prs)]
        try:
            write_ratings({Path(OUT) / f"{name}.jsonl": {p.id: (p, round(ratings[p.id].r)) for p, _, _ in rated[name]}
                           for name in complete})
        except (OSError, ValueError) as e:
            sys.exit(f"measure_ratings: cannot write the ratings: {e}; no set written")
        written = complete
    solvers = sorted(fit.solvers.items(), key=lambda kv: kv[1].r)
    record = {**provenance(command, revision=args.revision), "interrupted": interrupted, "per_set": args.per_set,
              "rating_puzzles": len(fit.puzzles), "held_out_puzzles": len(rows), "rated_puzzles": len(ratings),
              "committed_puzzles": len(every), "attempts": len(atts), "cpu_seconds": cpu_total,
              "written": written,
              "rating_solvers": {k: {"r": round(v.r), "rd": round(v.rd)} for k, v in solvers},
              "held_solvers": sorted(hnames), "drawn_seeds": DRAWN_SEEDS, "max_playouts": args.max_playouts,
              "read_budget": args.read_budget,
              "overall": figures(rows), "within_board_and_n": within,
              "histogram": hist, "sets": sets, "cpu_seconds_mean": cpu_mean,
              # the fit as it is, unrounded: --add rates later puzzles against these solvers
              "fit": {"shift": fit.shift, "solvers": {k: list(v) for k, v in fit.solvers.items()}},
              "added": [],
              "puzzles": rows}
    out_path = Path(OUT) / "ratings-attempts.json"
    try:
        write_json(out_path, record)
    except OSError as e:
        sys.exit(f"measure_ratings: cannot write {out_path}: {e.strerror or e}")
    print("solvers: " + ", ".join(f"{k} {v['r']}" for k, v in record["rating_solvers"].items()))
    print("| puzzles | held-out | rho rating~held fail | rho rating~engine effort | rho rating~engine missed | "
          "rho rating~read effort | rho score~held fail | rho score~engine effort | rho score~read effort |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, f in [("all", record["overall"])] + list(within.items()):
        print(f"| {name} | {f['puzzles']} | {f['spearman_rating_fail']} | {f['spearman_rating_effort']} | "
              f"{f['spearman_rating_missed']} | {f['spearman_rating_read_effort']} | {f['spearman_score_fail']} | "
              f"{f['spearman_score_effort']} | {f['spearman_score_read_effort']} |")
    print("| set | puzzles | rated | min | median | max |")
    print("|---|---|---|---|---|---|")
    for name, m in sets.items():
        print(f"| {name} | {m['puzzles']} | {m['rated']} | {m.get('min', '-')} | {m.get('median', '-')} | "
              f"{m.get('max', '-')} |")
    print("histogram: " + ", ".join(f"{k}: {v}" for k, v in record["histogram"].items()))
    print(f"rated {len(ratings)} of {len(every)} puzzles; ratings written into: {', '.join(written) or 'none'}")
    print(f"wrote {out_path}", file=sys.stderr)
    if interrupted:
        sys.exit(130)


def add_main(args, rated: dict) -> None:
    """--attempts --add: rate the committed puzzles that have no rating against the solvers
    of the fit the last full run recorded (ratings-attempts.json), as Lichess rates a new
    puzzle against its players; that fit and its validation stay as they were."""
    from puzzles.attempts import Attempt, AttemptError, Fit, parse_solver, rate_against
    from puzzles.glicko import Rating

    if args.all or args.rating_solvers != ",".join(RATING_SOLVERS) or args.held_solvers != ",".join(HELD_SOLVERS):
        sys.exit("measure_ratings: --add rates against the recorded fit's own solvers; "
                 "--all, --rating-solvers and --held-solvers belong to a full run")
    path = Path(OUT) / "ratings-attempts.json"
    try:
        full = json.loads(path.read_text())
        fit = Fit({}, {k: Rating(*(float(x) for x in v)) for k, v in full["fit"]["solvers"].items()},
                  float(full["fit"]["shift"]))
        solvers = [parse_solver(k) for k in fit.solvers]
    except FileNotFoundError:
        sys.exit(f"measure_ratings: --add rates against a full run's solvers, and there is no {path}: "
                 "run --attempts --all --write first")
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttemptError) as e:
        sys.exit(f"measure_ratings: {path} records no fit to rate against ({type(e).__name__}: {e}): "
                 "run --attempts --all --write first")
    new = {p.id: (name, p) for name, rows in rated.items() for p, _, _ in rows if p.rating is None}
    if not new:
        print("measure_ratings: every committed puzzle has a rating; nothing to add", file=sys.stderr)
        return
    log = Path(args.log)
    done = _read_log(log, rated)
    tasks = [("attempt", s.name, p, seed) for _, p in new.values() for s in solvers for seed in _seeds(s)]
    todo = [t for t in tasks if _task_key(t) not in done]
    print(f"measure_ratings: {len(new)} puzzles without a rating, {len(tasks)} attempts, {len(todo)} to run",
          file=sys.stderr)
    interrupted = _run(todo, args.jobs, log, done)
    rows = [r for r in done.values() if r["kind"] == "attempt" and r["puzzle"] in new and r["solver"] in fit.solvers]
    atts = [Attempt(r["solver"], r["puzzle"], r["seed"], r["solved"], r["failed_at"]) for r in rows]
    want = sum(len(_seeds(s)) for s in solvers)
    got = Counter(a.puzzle for a in atts)
    added = rate_against([a for a in atts if got[a.puzzle] == want], fit)
    ratings = {p.id: p.rating for rs in rated.values() for p, _, _ in rs if p.rating is not None}
    ratings.update({i: round(r.r) for i, r in added.items()})
    names = sorted({name for name, _ in new.values()})
    print("| set | added | rated | ratings |")
    print("|---|---|---|---|")
    for name in names:
        mine = sorted(ratings[p.id] for p, _, _ in rated[name] if p.id in added)
        print(f"| {name} | {sum(n == name for n, _ in new.values())} | {len(mine)} | "
              f"{', '.join(map(str, mine)) if len(mine) <= 12 else f'{mine[0]} to {mine[-1]}'} |")
    if interrupted or not args.write:
        print(f"rated {len(added)} of {len(new)} puzzles without a rating; "
              + ("interrupted: " if interrupted else "") + "no record written (--write writes them)")
        sys.exit(130 if interrupted else 0)
    complete = [name for name in names if all(p.id in ratings for p, _, _ in rated[name])]
    try:
        write_ratings({Path(OUT) / f"{name}.jsonl": {p.id: (p, ratings[p.id]) for p, _, _ in rated[name]}
                       for name in complete})
    except (OSError, ValueError) as e:
        sys.exit(f"measure_ratings: cannot write the ratings: {e}; no set written")
    command = "python scripts/measure_ratings.py --attempts --add --write" + (
        f" --jobs {args.jobs}" if args.jobs > 1 else "")
    full["sets"], full["histogram"] = _set_figures(rated, ratings)
    full["rated_puzzles"], full["committed_puzzles"] = len(ratings), sum(len(rs) for rs in rated.values())
    full["added"] = full.get("added", []) + [
        {**provenance(command, revision=args.revision), "puzzles": len(added), "attempts": len(atts),
         "cpu_seconds": round(sum(r["cpu"] for r in rows)), "written": complete,
         "ratings": {i: round(r.r) for i, r in sorted(added.items())}}]
    try:
        write_json(path, full)
    except OSError as e:
        sys.exit(f"measure_ratings: cannot write {path}: {e.strerror or e}")
    print(f"rated {len(added)} of {len(new)} puzzles without a rating; ratings written into: "
          f"{', '.join(complete) or 'none'}")
    print(f"wrote {path}", file=sys.stderr)


def write_ratings(sets: dict[Path, dict]) -> None:
    """Put the ratings of each set (its file -> {id: (the puzzle rated, its rating)}) into
    the ``rating`` field of its records, every other byte of a record as it was.  Every
    set or none (:func:`solver.util.files.write_atomic_all`: all are written to temporary
    files, then renamed with Ctrl-C held back; only a crash during the renames can leave
    some sets new and others old), each set's lock held meanwhile, so that no generator
    writes it.  ValueError, no set written, when a set is locked by another run or a
    record has no rating, is not the puzzle that was rated (the set changed since the
    run read it) or would not be written back as it reads."""
    from puzzles.generate import run_state

    with contextlib.ExitStack() as held:
        for path in sets:
            held.enter_context(run_state(str(path)))
        write_atomic_all({path: _with_ratings(path, ratings) for path, ratings in sets.items()})


def _with_ratings(path: Path, ratings: dict) -> str:
    """The text of ``path`` with the ratings of :func:`write_ratings` put in; ValueError
    for a record it refuses."""
    out = []
    for i, line in enumerate(path.read_text("utf-8").splitlines()):
        if not line.strip():
            out.append(line)
            continue
        where = f"{path.name}, line {i + 1}"
        d = json.loads(line)
        if json.dumps(d, ensure_ascii=False) != line:
            raise ValueError(f"{where}: the record would not be written back as it reads")
        if d.get("id") not in ratings:
            raise ValueError(f"{where}: no rating for {d.get('id')!r}")
        rated, r = ratings[d["id"]]
        try:
            q = Puzzle.from_dict(d)
        except PuzzleFormatError as e:
            raise ValueError(f"{where}: {e}") from None
        # the id alone is not the puzzle: a set rebuilt since the run read it may give it to another
        if (q.position, q.target, q.n) != (rated.position, rated.target, rated.n):
            raise ValueError(f"{where}: {q.id} is not the puzzle that was rated (its position, target or n "
                             "differ: the set changed since the run read it)")
        d["rating"] = r
        out.append(json.dumps(d, ensure_ascii=False))
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=40, help="puzzles checked per set (default 40; 0: no check)")
    ap.add_argument("--max-playouts", type=int, default=8192, help="the largest engine budget (default 8192)")
    ap.add_argument("--check", default=",".join(CHECK), help="the sets checked, by name (default: %(default)s)")
    ap.add_argument("--cuts", action="store_true", help="print the quantile cuts per board and n, write nothing")
    ap.add_argument("--attempts", action="store_true",
                    help="rate from solvers' attempts (issue 36) on --per-set puzzles a set and validate")
    ap.add_argument("--per-set", type=int, default=40, help="--attempts: puzzles a set (default 40)")
    ap.add_argument("--jobs", type=int, default=1, help="--attempts: worker processes (default 1)")
    ap.add_argument("--rating-solvers", default=",".join(RATING_SOLVERS), help="--attempts: the rating solvers")
    ap.add_argument("--held-solvers", default=",".join(HELD_SOLVERS), help="--attempts: the held-out solvers")
    ap.add_argument("--all", action="store_true",
                    help="--attempts: also run the rating solvers on every other committed puzzle and rate it")
    ap.add_argument("--write", action="store_true",
                    help="--attempts --all: write each rating into its record's rating field (complete sets only)")
    ap.add_argument("--add", action="store_true",
                    help="--attempts: rate only the puzzles without a rating, against the solvers of the "
                         "fit ratings-attempts.json records (--write writes them)")
    ap.add_argument("--read-budget", type=int, default=READ_BUDGET,
                    help="--attempts: the capture-goal solver's node budget for its effort to find the key "
                         "(default %(default)s)")
    ap.add_argument("--log", default=str(OUT / "attempts" / "log.jsonl"),
                    help="--attempts: the attempts run so far, appended to (default: %(default)s)")
    args = ap.parse_args()
    args.revision = code_revision()  # once, at the start: a commit during a long run is not the code it ran
    if args.add and not args.attempts:
        sys.exit("measure_ratings: --add goes with --attempts")
    if not 1 <= args.per_set <= 10_000 or not 1 <= args.jobs <= 64:
        sys.exit("measure_ratings: --per-set must be from 1 to 10000 and --jobs from 1 to 64")
    if not 0 <= args.sample <= 10_000:
        sys.exit(f"measure_ratings: --sample must be from 0 to 10000, not {args.sample}")
    if not 16 <= args.max_playouts <= 1_000_000:
        sys.exit(f"measure_ratings: --max-playouts must be from 16 to 1000000, not {args.max_playouts}")
    if not 1 <= args.read_budget <= 10**9:  # as a read solver's nodes; 0 would be "no limit" to the search
        sys.exit(f"measure_ratings: --read-budget must be from 1 to 1000000000, not {args.read_budget}")
    files = sorted(Path(OUT).glob("*.jsonl"))
    if not files:
        sys.exit(f"measure_ratings: no puzzle sets (*.jsonl) in {OUT}")
    checked = [c.strip().removesuffix(".jsonl") for c in args.check.split(",") if c.strip()]
    rated: dict[str, list] = {}
    for f in files:
        try:
            ps = load_jsonl(f)
            rows = []
            for p in ps:
                if args.attempts:  # the recorded score is the baseline there: no search
                    rows.append((p, p.score, None))
                    continue
                s = score(record_features(p))
                rows.append((p, s, rating(s, p.to_position().board.name, p.n)))
        except (PuzzleFormatError, RatingError) as e:
            sys.exit(f"measure_ratings: {f.name}: {e}")
        except KeyboardInterrupt:
            print("measure_ratings: interrupted while rating; nothing written", file=sys.stderr)
            sys.exit(130)
        rated[f.stem] = rows
        print(f"{f.name}: {len(ps)} puzzles rated", file=sys.stderr, flush=True)
    if args.attempts:
        (add_main if args.add else attempts_main)(args, rated)
        return
    if args.cuts:
        by: dict[tuple[str, int], list] = {}
        for rows in rated.values():
            for p, s, _ in rows:
                by.setdefault((p.to_position().board.name, p.n), []).append(s)
        for key in sorted(by):
            print(f"    {key!r}: {quantile_cuts(by[key])!r},")
        return
    unknown = [c for c in checked if c not in rated]
    if unknown:
        sys.exit(f"measure_ratings: --check names no set {unknown[0]!r} in {OUT}")
    command = "python scripts/measure_ratings.py" + "".join(
        f" {opt} {val}" for opt, val, default in (("--sample", args.sample, 40),
                                                  ("--max-playouts", args.max_playouts, 8192),
                                                  ("--check", ",".join(checked), ",".join(CHECK)))
        if val != default)
    sets = {}
    for name, rows in rated.items():
        c = Counter(r for _, _, r in rows)
        old = Counter(p.difficulty for p, _, _ in rows)
        sets[name] = {"count": len(rows), "ratings": {str(k): c[k] for k in sorted(c)},
                      "top_rating_share": max(c.values()) / len(rows) if rows else 0.0,
                      "recorded_top_rating_share": max(old.values()) / len(rows) if rows else 0.0}
    interrupted = False
    pooled: list = []
    t0 = time.process_time()
    try:
        for name in checked if args.sample else []:
            rows = rated[name]
            k = min(args.sample, len(rows))
            sample = [rows[i * len(rows) // k] for i in range(k)]
            found = []
            for i, (p, s, r) in enumerate(sample):
                fk = find_key(p.to_position(), p.key, args.max_playouts)
                found.append({"id": p.id, "score": s, "rating": r, "found_at": fk.at, "share": fk.share})
                counter_line(f"{name}: {i + 1}/{k}")
            sets[name]["check"] = {"sample": k, "found": sum(x["found_at"] is not None for x in found),
                                   **_rhos(found, args.max_playouts), "puzzles": found}
            pooled += found
            counter_line(f"{name}: {k} puzzles checked, rho {sets[name]['check']['spearman_rating']}", done=True)
    except KeyboardInterrupt:
        interrupted = True
        print("measure_ratings: interrupted; writing what was measured", file=sys.stderr)
    overall = {"puzzles": len(pooled), **_rhos(pooled, args.max_playouts)}
    record = {**provenance(command, revision=args.revision), "sample": args.sample, "max_playouts": args.max_playouts, "seed": 1,
              "check_cpu_seconds": round(time.process_time() - t0, 1), "interrupted": interrupted,
              "overall": overall, "sets": sets}
    out = Path(OUT) / "ratings.json"
    try:
        write_json(out, record)
    except OSError as e:
        sys.exit(f"measure_ratings: cannot write {out}: {e.strerror or e}")
    print("| set | puzzles | ratings 1/2/3/4/5 | top rating (recorded) | checked | key found | "
          "rho rating | rho score | rho rating (missed share) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, m in sets.items():
        ch = m.get("check")
        spread = "/".join(str(m["ratings"].get(str(r), 0)) for r in range(1, 6))
        extra = (f"{ch['sample']} | {ch['found']} | {ch['spearman_rating']} | {ch['spearman_score']} | "
                 f"{ch['spearman_rating_missed']}" if ch else "- | - | - | - | -")
        print(f"| {name} | {m['count']} | {spread} | {100 * m['top_rating_share']:.0f}% "
              f"({100 * m['recorded_top_rating_share']:.0f}%) | {extra} |")
    print(f"| all checked | | | | {overall['puzzles']} | {sum(x['found_at'] is not None for x in pooled)} | "
          f"{overall['spearman_rating']} | {overall['spearman_score']} | {overall['spearman_rating_missed']} |")
    print(f"wrote {out}", file=sys.stderr)
    if interrupted:
        sys.exit(130)


if __name__ == "__main__":
    main()
