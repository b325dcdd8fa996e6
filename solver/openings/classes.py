#!/usr/bin/env python3
"""Prove the first-move classes of a board one at a time, each to the end, and collect
them into the board's opening table.

Usage: python scripts/solve_openings.py [--board 3/4] [--classes a1,b2] [--time S]
                                        [--tt-mb M] [--collect] [--certificates DIR]
                                        [--tables DIR]

Each class of first moves (the moves the board's symmetries map onto each other; a class
is named by its first member, as ``meridians solve`` lists them) is one df-pn search from
the position after the move, Dark to move, with ``--time`` seconds (default: no limit).
A finished class is written at once to ``results/solutions/<board>-<hash>-value.json``
(the format of ``scripts/prove_position.py``, so either script continues the other's
work); a class already decided there is skipped, so the same command resumes after an
interruption and two commands with different ``--classes`` share the work of two cores.
A class whose budget runs out is written as ``unknown`` with its effort; its df-pn table
is saved to ``--tables DIR/<board>-<class>.table`` (default ``~/.cache/meridians/tables``;
a 9,000 MiB search writes a 7.2 GB file), and so it is when Ctrl-C or SIGTERM stops the
search: the next run of the class loads it and goes on where the search stopped, with the
same ``--tt-mb``.  Its record's expansions and seconds then count every run.  The table
file is removed once the class is decided (and its certificate checked, when asked for).
With ``--certificates DIR``, each decided class's proof is also written out as a
certificate, ``DIR/<board>-<class>.json.gz`` (the format ``meridians check`` reads), and
checked at once; the class record keeps its size, SHA-256, positions and the checker's
result, so a certificate too large to commit can be regenerated and compared.  A class
already decided without a certificate gets one: if its file is already in DIR (a run
stopped while checking it), that file is checked and recorded; else the class is proven
again (its record is replaced by the new search's, with the certificate).
While a process works on a class, ``<board>-<hash>-value.running`` beside its file holds
the process id, and other processes pass over that class.

After each class (and with ``--collect`` alone, without searching), writes
``results/solutions/<board>.json``: Light's value after each first move, per class its
value, expansions, seconds, command, revision and checked certificate (its file name,
positions, size, SHA-256), and the first player's value (a win if one class wins, a loss if
every class loses, else unknown), with the map ``<board>-map.svg``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import sys
import time
from pathlib import Path

from solver import RULES_VERSION, Board, Position, __version__
from solver.certificate import CertificateError, check_data, read_certificate, write_certificate
from solver.files import claim, interrupt_on_sigterm, write_atomic
from solver.openings import opening_jobs
from solver.search.prove import prove
from solver.search.tablefile import TableFileError, read_header, save_table
from solver.svg import map_svg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from solve_boards import OUT, code_revision  # noqa: E402

LIGHT = {"win": "loss", "loss": "win", "unknown": "unknown", "draw": "draw"}  # Dark's value -> Light's


def value_path(pos: Position) -> Path:
    """Where ``scripts/prove_position.py`` and this script keep one position's result."""
    return OUT / f"{pos.board.name.replace('/', '-')}-{hashlib.sha1(str(pos).encode()).hexdigest()[:8]}-value.json"


def read_value(path: Path) -> dict | None:
    """The record at ``path``, or None if there is none (a corrupt file is an error)."""
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as e:
        sys.exit(f"solve_openings: {path} is corrupt ({e}); move it away to search that class again")


def table_path(tables: str, board: Board, key: str) -> Path | None:
    """Where class ``key``'s df-pn table is saved (None: ``--tables none``)."""
    if tables.lower() == "none":
        return None
    return Path(tables) / f"{board.name.replace('/', '-')}-{key}.table"


def certificate_path(folder: Path, board: Board, key: str) -> Path:
    """Where class ``key``'s certificate is written."""
    return folder / f"{board.name.replace('/', '-')}-{key}.json.gz"


def _certify_record(old: dict, pos: Position, path: Path, cert: Path, name: str,
                    args: argparse.Namespace) -> bool:
    """Check the certificate file ``cert`` of a decided class and, if it proves the
    class record ``old``'s value, add it to the record (and drop the saved table)."""
    print(f"{name}: checking the certificate already written, {cert}", file=sys.stderr, flush=True)
    try:
        entry = _checked(cert, pos, old["value"], name, args)
    except CertificateError as e:
        print(f"{name}: {cert.name} is refused: {e}", file=sys.stderr, flush=True)
        return False
    write_atomic(path, json.dumps({**old, "certificate": entry}, indent=1) + "\n")
    table = table_path(args.tables, pos.board, name)
    if table is not None:
        table.unlink(missing_ok=True)
    return True


def _summary(cert: dict | None) -> dict | None:
    """What the opening table keeps of a class's checked certificate."""
    if not cert or cert.get("checked_positions") != cert.get("positions"):
        return None
    return {k: cert[k] for k in ("file", "positions", "bytes", "sha256", "check_seconds")}


def status(board: Board, tables: str) -> str:
    """One line per class: its value for Light, effort, certificate, saved table."""
    lines = [f"{'class':<6} {'moves':<16} {'Light':<8} {'expansions':>14} {'seconds':>8}  certificate / table"]
    for job in opening_jobs(Position.start(board)):
        path = value_path(Position.parse(job.position))
        rec = read_value(path) or {}
        decided = rec.get("value") in ("win", "loss") and rec.get("verified")
        light = LIGHT[rec["value"]] if decided else ("unknown" if rec else "-")
        notes = []
        cert = rec.get("certificate")
        if cert:
            notes.append(f"certificate {cert['positions']:,} positions, checked {cert['checked_positions']:,}")
        elif decided:
            notes.append("no certificate")
        table = table_path(tables, board, job.key)
        if table is not None and table.exists():
            try:
                done = read_header(table)["nodes"]
                notes.append(f"table saved at {done:,} expansions ({table.stat().st_size / 1e9:.1f} GB)")
            except TableFileError as e:
                notes.append(f"unreadable table: {e}")
        if path.with_suffix(".running").exists():
            notes.append("claimed by a process")
        nodes = f"{rec['nodes']:,}" if "nodes" in rec else "-"
        secs = f"{rec['seconds']:.0f}" if "seconds" in rec else "-"
        lines.append(f"{job.key:<6} {','.join(job.members):<16} {light:<8} {nodes:>14} {secs:>8}  {'; '.join(notes)}")
    return "\n".join(lines)


def collect(board: Board) -> dict:
    """Write ``<board>.json`` and ``<board>-map.svg`` from the class files; return the record.
    A ``<board>.json`` another script wrote (such as 2/3's, by alpha-beta) is left alone."""
    stem = board.name.replace("/", "-")
    mine = read_value(OUT / f"{stem}.json")
    if mine is not None and not str(mine.get("command", "")).startswith("python scripts/solve_openings.py"):
        sys.exit(f"solve_openings: {OUT / stem}.json was written by {mine.get('command')!r}; not replacing it")
    classes, moves = [], {}
    for job in opening_jobs(Position.start(board)):
        rec = read_value(value_path(Position.parse(job.position))) or {}
        decided = rec.get("value") in ("win", "loss") and rec.get("verified")
        dark = rec.get("value", "unknown") if decided else "unknown"
        light = LIGHT[dark]
        classes.append({
            "members": list(job.members), "position": job.position, "light": light,
            "expansions": rec.get("nodes"), "seconds": rec.get("seconds"),
            "command": rec.get("command"), "revision": rec.get("revision"),
            "line": rec.get("line", []) if decided else [],
            # what the reference checker accepted (the file itself is regenerated by the
            # record's command where it is too large to commit)
            "certificate": _summary(rec.get("certificate")) if decided else None,
        })
        for m in job.members:
            moves[m] = light
    values = set(moves.values())
    first = "win" if "win" in values else ("loss" if values == {"loss"} else "unknown")
    record = {
        "board": board.name,
        "command": f"python scripts/solve_openings.py --board {board.name} --collect",
        "version": __version__, "revision": code_revision(), "rules": RULES_VERSION,
        "python": platform.python_version(),
        "method": "df-pn per class of first moves (scripts/solve_openings.py or "
                  "scripts/prove_position.py), each proof re-walked",
        "value": first,
        "decided": f"{sum(v != 'unknown' for v in moves.values())} of {len(moves)} first moves",
        "certified": f"{sum(c['certificate'] is not None for c in classes)} of {len(classes)} classes",
        "moves": dict(sorted(moves.items())),
        "classes": classes,
    }
    write_atomic(OUT / f"{stem}.json", json.dumps(record, indent=1) + "\n")
    shown = {"win": "Light wins", "loss": "Light loses", "unknown": "not yet known"}[first]
    title = f"{board.name}: Light's first move ({shown}; {record['decided']} decided)"
    write_atomic(OUT / f"{stem}-map.svg", map_svg(board, {board.index(m): v for m, v in moves.items()}, title=title))
    return record


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--board", default="3/4")
    ap.add_argument("--classes", default="", help="comma-separated class names (default: all)")
    ap.add_argument("--time", type=float, default=None, help="seconds per class (default: no limit)")
    ap.add_argument("--tt-mb", type=float, default=4096.0)
    ap.add_argument("--collect", action="store_true", help="only write the opening table")
    ap.add_argument("--status", action="store_true",
                    help="only print each class's value, effort, certificate and saved table")
    ap.add_argument("--certificates", default=None, metavar="DIR",
                    help="write each decided class's certificate (gzip) to DIR and check it")
    ap.add_argument("--certificate-nodes", type=int, default=50_000_000,
                    help="largest certificate to build (positions)")
    ap.add_argument("--check-jobs", type=int, default=1, metavar="N",
                    help="processes checking a certificate (default 1: another search may "
                    "hold the other core)")
    ap.add_argument("--tables", default=str(Path("~/.cache/meridians/tables").expanduser()),
                    metavar="DIR", help="where a stopped class's table is saved and resumed "
                    "from ('none': nowhere; default: %(default)s)")
    args = ap.parse_args()
    try:
        board = Board.parse(args.board)
    except ValueError as e:
        sys.exit(f"solve_openings: {e}")
    jobs = opening_jobs(Position.start(board))
    names = {j.key: j for j in jobs}
    wanted = [c for c in args.classes.split(",") if c]
    for c in wanted:
        if c not in names:
            sys.exit(f"solve_openings: no class {c!r} on {board.name} (classes: {', '.join(names)})")
    # the revision of the code this process runs, taken once at its start: the solver
    # is imported now, so later commits do not change what it runs (a revision taken at
    # each class's start would name them)
    args.revision = code_revision()
    # a background run is stopped with SIGTERM: let it save its table as Ctrl-C does
    interrupt_on_sigterm()
    if args.status:
        print(status(board, args.tables))
        return
    if args.collect:
        rec = collect(board)
        print(f"{board.name}: {rec['value']} for Light; {rec['decided']} decided", file=sys.stderr)
        return
    for job in (names[c] for c in wanted) if wanted else jobs:
        pos = Position.parse(job.position)
        path = value_path(pos)
        old = read_value(path)
        if old and old.get("value") in ("win", "loss") and old.get("verified"):
            if not args.certificates or "certificate" in old:
                print(f"{job.key}: already {old['value']} for Dark to move ({path.name})", file=sys.stderr)
                continue
        lock = path.with_suffix(".running")
        if not claim(lock):
            print(f"{job.key}: another process is on it ({lock.name})", file=sys.stderr)
            continue
        try:
            if old and old.get("value") in ("win", "loss") and old.get("verified"):
                cert = certificate_path(Path(args.certificates), board, job.key)
                # a certificate written by a run stopped while checking it is checked,
                # not written again: it proves the claim whichever search wrote it
                if not (cert.exists() and _certify_record(old, pos, path, cert, job.key, args)):
                    print(f"{job.key}: decided, without a certificate: proving it again to write one",
                          file=sys.stderr)
                    _prove_class(board, job, pos, path, args)
            else:
                _prove_class(board, job, pos, path, args)
        finally:
            lock.unlink(missing_ok=True)
        collect(board)


def _prove_class(board: Board, job, pos: Position, path: Path, args: argparse.Namespace) -> None:
    """Search one class and write its record."""
    last = [0.0]

    def progress(info: dict) -> None:
        if info["seconds"] - last[0] >= 60:
            last[0] = info["seconds"]
            print(f"{job.key}: {info['seconds']:7.0f} s {info['nodes']:>14,} expansions "
                  f"{info['nodes'] / max(info['seconds'], 1e-9):>9,.0f}/s", file=sys.stderr, flush=True)

    t0 = time.time()
    revision = args.revision
    table = table_path(args.tables, board, job.key)
    if table is not None and table.exists():
        print(f"{job.key}: resuming from {table} ({table.stat().st_size / 1e9:.1f} GB)",
              file=sys.stderr, flush=True)
    try:
        p = prove(pos, method="dfpn", seconds=args.time, tt_mb=args.tt_mb, progress=progress,
                  table_file=table)
    except KeyboardInterrupt:
        kept = f"its table is in {table}: run again to resume" if table else "nothing kept"
        sys.exit(f"solve_openings: interrupted in class {job.key}; {kept}")
    except TableFileError as e:
        sys.exit(f"solve_openings: {e}")
    command = (f"python scripts/solve_openings.py --board {board.name} --classes {job.key}"
               + (f" --time {args.time:g}" if args.time else "") + f" --tt-mb {args.tt_mb:g}"
               + (f" --certificates {args.certificates}" if args.certificates else ""))
    record = {
        "position": str(pos), "board": board.name, "to_move": pos.to_move,
        "class": list(job.members), "command": command, "version": __version__,
        "revision": revision, "rules": RULES_VERSION, "python": platform.python_version(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t0)), **p.as_dict(),
    }
    # the value is written before the certificate is built and checked, which takes longer
    # than the search did: an interruption then loses only the certificate
    write_atomic(path, json.dumps(record, indent=1) + "\n")
    print(f"{job.key}: {p.value} for Dark to move (re-walked: {p.verified}); {p.nodes:,} "
          f"expansions in {p.seconds:.0f} s; wrote {path.name}", file=sys.stderr, flush=True)
    decided = p.value in ("win", "loss") and p.verified
    if args.certificates and decided:
        if table is not None:
            # the table holds the proof: should the certificate fail or be stopped, the
            # next run finds the class proven in it at once instead of searching again
            save_table(table, *p.search[:2], str(pos), stage=p.stats["stage"], seconds=p.seconds,
                       runs=p.stats["runs"], tt_mb=args.tt_mb)
        try:
            record["certificate"] = _certificate(pos, p, Path(args.certificates), job.key, args)
        except KeyboardInterrupt:
            sys.exit(f"solve_openings: interrupted while writing the certificate of {job.key}; "
                     f"its value is kept in {path.name}, the certificate is not")
        except CertificateError as e:
            # the value stands (re-walked); the next run with --certificates proves it again
            print(f"{job.key}: no certificate: {e}", file=sys.stderr, flush=True)
            return
        write_atomic(path, json.dumps(record, indent=1) + "\n")
    if table is not None and decided:
        table.unlink(missing_ok=True)


def _certificate(pos: Position, proof, folder: Path, name: str, args: argparse.Namespace) -> dict:
    """Write the certificate of ``proof`` (gzip-compressed) to ``folder`` and check it with
    ``meridians check``'s checker; return what the class record keeps of it."""
    t0 = time.perf_counter()

    def built(n: int) -> None:
        print(f"{name}: certificate {n:>12,} positions {time.perf_counter() - t0:8.0f} s",
              file=sys.stderr, flush=True)

    folder.mkdir(parents=True, exist_ok=True)
    out = certificate_path(folder, pos.board, name)
    # streamed to the file: the nodes as text would not fit beside the table
    head = write_certificate(out, pos, proof, max_nodes=args.certificate_nodes, tt_mb=256, progress=built)
    proof.search = None  # the table is no longer needed: free it before checking
    seconds = time.perf_counter() - t0
    print(f"{name}: certificate of {head['node_count']:,} positions, {head['bytes']:,} bytes, "
          f"in {seconds:.0f} s; checking", file=sys.stderr, flush=True)
    return {**_checked(out, pos, proof.value, name, args), "build_seconds": round(seconds, 1)}


def _checked(cert: Path, pos: Position, value: str, name: str, args: argparse.Namespace) -> dict:
    """Check the certificate file ``cert`` with ``meridians check``'s checker, and that it
    claims ``value`` for the player to move at ``pos``; what the class record keeps of it.
    Raises CertificateError."""
    t1 = time.perf_counter()

    def checking(stage: str, n: int, total: int) -> None:
        print(f"{name}: check {stage} {n:>12,} of {total:,} {time.perf_counter() - t1:8.0f} s",
              file=sys.stderr, flush=True)

    data = read_certificate(cert)
    if not isinstance(data, dict) or data.get("root") != str(pos):
        raise CertificateError(f"its root is not {pos}")
    winner = pos.to_move if value == "win" else ("L" if pos.to_move == "D" else "D")
    if data.get("winner") != winner:
        raise CertificateError(f"it claims a win for {data.get('winner')}, the class record for {winner}")
    reproved = data.get("reproved")
    checked = check_data(data, checking, jobs=args.check_jobs)
    del data
    digest = hashlib.sha256()
    with open(cert, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return {
        "file": cert.name, "bytes": cert.stat().st_size, "sha256": digest.hexdigest(),
        "positions": checked, "reproved": reproved, "build_seconds": None,
        "checked_positions": checked, "check_seconds": round(time.perf_counter() - t1, 1),
        "check": f"meridians check {cert.name}",
    }


if __name__ == "__main__":
    main()
