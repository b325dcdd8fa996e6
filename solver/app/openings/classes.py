"""Proving the first-move classes of a board one at a time, each to the end, and the
board's opening table collected from them (``scripts/solve_openings.py`` is the command);
the same for the classes of pairs of first stones of the pie variant.

Each class of first moves (:func:`~solver.app.openings.solution.opening_jobs`; a class is
named by its first member) is one df-pn search from the position after the move, Dark to
move.  Its *record*, ``<folder>/<board>-<hash>-value.json`` (:func:`value_path`; the
format ``scripts/prove_position.py`` writes too), is written as soon as the search ends:
the value for Dark to move, whether the proof survived its re-walk, a principal line, the
effort of every run, and the provenance stamp.  A decided class is never searched again;
a class whose budget ran out is written ``unknown`` with its effort, and its df-pn table
is saved (:func:`table_path`) so that the next run goes on where the search stopped.
While a process works on a class, ``<record>.running`` holds its process id
(:func:`solver.util.files.claim`) and other processes pass over that class.

A class may also get a *certificate* (:func:`certify_class`): its proof written out in
the format ``meridians check`` reads and checked at once by the reference checker; the
record keeps the file's size, SHA-256, positions and the checker's result.

:func:`collect` writes the opening table ``<folder>/<board>.json`` (Light's value after
each first move, per class its value, effort, provenance and checked certificate) and its
map ``<board>-map.svg``; :func:`status` is a one-line-per-class summary.

Under the pie variant (``ClassSettings.pie``) a class is a class of pairs of first stones
(:func:`~solver.app.openings.solution.pie_jobs`: Light's stone, Dark's stone, Light to
move), its record is in ``<folder>/<board>-pie/`` (:func:`records_folder`), and
:func:`collect` writes ``<board>-pie.json`` (who wins after each pair, per class its
value, effort and checked certificate) and its map ``<board>-pie-map.svg``.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from solver.rules.board import Board
from solver.util.errors import Interrupted, MeridiansError
from solver.util.files import claim, write_atomic
from solver.rules.position import Position
from solver.util.provenance import code_revision, provenance
from solver.jobs.runner import Job
from solver.search.limit import Limit
from solver.search.values import Value
from .solution import opening_jobs, pie_jobs

__all__ = [
    "COMMAND", "ClassError", "ClassSettings", "class_jobs", "records_folder", "value_path", "read_record",
    "table_path", "certificate_path", "prove_classes", "prove_class", "certify_class",
    "check_class_certificate", "collect", "collect_pie", "first_move_proof", "status", "PIE_VARIANT",
]

#: the command whose records these are: a table another command wrote is not replaced
COMMAND = "python scripts/solve_openings.py"


class ClassError(MeridiansError):
    """A class record or opening table that cannot be used (corrupt, or another command's)."""


_NAME = {"L": "Light", "D": "Dark"}


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


@dataclass
class ClassSettings:
    """How classes are proven: ``folder`` holds the records and the opening table;
    ``seconds`` per class (None: no limit) and ``nodes``, its expansions (0: no limit: a
    budget a loaded machine does not shrink); ``tt_mb`` the df-pn table; ``tables`` where
    a stopped class's table is saved (None: nowhere); ``certificates`` where each decided
    class's certificate is written and checked (None: no certificates), at most
    ``certificate_nodes`` positions, checked by ``check_jobs`` processes.  ``revision``
    is the code's revision, taken once when the run starts; ``say`` shows progress;
    ``pie``: the classes are the pie variant's pairs of first stones; ``plant``: before a
    pie class is searched, the certificates of the decided classes with the same Light
    stone are put in the table (:func:`solver.search.prove.plant_certificate`)."""

    folder: Path
    seconds: float | None = None
    nodes: int = 0
    tt_mb: float = 4096.0
    tables: Path | None = None
    certificates: Path | None = None
    certificate_nodes: int = 50_000_000
    check_jobs: int = 1
    revision: str = field(default_factory=code_revision)
    say: Callable[[str], None] = _stderr
    pie: bool = False
    plant: bool = False

    def __post_init__(self) -> None:
        self.folder = Path(self.folder)
        self.tables = None if self.tables is None else Path(self.tables)
        self.certificates = None if self.certificates is None else Path(self.certificates)

    def limit(self) -> Limit:
        """The budget of one class's proof (checked now: LimitError when the table does
        not fit in the memory available)."""
        return Limit(seconds=self.seconds, nodes=self.nodes, tt_mb=self.tt_mb)

    def command(self, board: Board, key: str) -> str:
        """The command that proves class ``key`` with these settings."""
        return (f"{COMMAND} --board {board.name}{' --pie' if self.pie else ''} --classes {key}"
                + (f" --time {self.seconds:g}" if self.seconds else "")
                + (f" --max-nodes {self.nodes}" if self.nodes else "") + f" --tt-mb {self.tt_mb:g}"
                + (f" --certificates {self.certificates}" if self.certificates else "")
                + (f" --certificate-nodes {self.certificate_nodes}"
                   if self.certificates and self.certificate_nodes != ClassSettings.certificate_nodes else "")
                + (" --plant" if self.plant else ""))


# -- where things are --------------------------------------------------------------------
def class_jobs(board: Board, pie: bool = False) -> list[Job]:
    """The classes of ``board``'s first moves, or with ``pie`` of its pairs of first stones."""
    start = Position.start(board)
    return pie_jobs(start) if pie else opening_jobs(start)


def records_folder(folder: Path, board: Board, pie: bool = False) -> Path:
    """Where the class records are: ``folder`` itself, or ``folder/<board>-pie`` for the pie."""
    return Path(folder) / f"{board.name.replace('/', '-')}-pie" if pie else Path(folder)


def value_path(folder: Path, pos: Position) -> Path:
    """Where ``scripts/prove_position.py`` and the class search keep one position's record."""
    digest = hashlib.sha1(str(pos).encode()).hexdigest()[:8]
    return Path(folder) / f"{pos.board.name.replace('/', '-')}-{digest}-value.json"


def read_record(path: Path) -> dict | None:
    """The record at ``path``, or None if there is none.  Raises ClassError for a file
    that is not a JSON object."""
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, RecursionError, json.JSONDecodeError) as e:
        raise ClassError(f"{path} is corrupt ({e}); move it away to search that class again") from None
    if not isinstance(data, dict):
        raise ClassError(f"{path} is corrupt (not a JSON object); move it away to search that class again")
    return data


def table_path(tables: Path | None, board: Board, key: str) -> Path | None:
    """Where class ``key``'s df-pn table is saved (None: tables are not saved)."""
    if tables is None:
        return None
    return Path(tables) / f"{board.name.replace('/', '-')}-{key}.table"


def certificate_path(folder: Path, board: Board, key: str) -> Path:
    """Where class ``key``'s certificate is written."""
    return Path(folder) / f"{board.name.replace('/', '-')}-{key}.json.gz"


def _decided(rec: dict | None) -> bool:
    """A record of a win or loss whose proof survived its re-walk."""
    return bool(rec) and rec.get("value") in ("win", "loss") and bool(rec.get("verified"))


def first_move_proof(folder: Path, board: Board, job: Job) -> dict | None:
    """What decides pie class ``job`` without a search of its own, or None: the
    first-move class of Light's first stone, when its record in ``folder`` is decided
    with a checked certificate and the pair is one of that certificate's moves below
    its root (Dark to move).  When Light wins after the stone, the root lists every
    reply of Dark, so every pair with that Light stone is Light's; when Dark wins, the
    root's one move (the first move of the proof's line: the builder and the line both
    take the table's move) is Dark's winning reply, and that pair alone is Dark's.
    Returns ``{"class", "reply", "winner", "record"}``: the first-move class, the move
    at its root whose position is the pair's (up to a symmetry of the board), who wins
    the pair and the record."""
    pos = Position.parse(job.position)
    (light,) = pos.stones("L")
    first = next(j for j in opening_jobs(Position.start(board)) if light in j.members)
    parent = Position.parse(first.position)
    rec = read_record(value_path(folder, parent))
    if not (_decided(rec) and _summary(rec.get("certificate"))):
        return None  # undecided, or no checked certificate says so
    legal = parent.legal_moves()
    if rec["value"] == "loss":
        replies, winner = legal, "L"
    else:
        replies, winner = [m for m in (rec.get("line") or [])[:1] if m in legal], "D"
    wanted = {str(pos.transform(s)) for s in range(len(board.symmetries))}
    reply = next((m for m in replies if str(parent.play(m)) in wanted), None)
    if reply is None:
        return None  # Dark's winning reply is another pair
    return {"class": first.key, "reply": reply, "winner": winner, "record": rec}


# -- proving -----------------------------------------------------------------------------
def prove_classes(board: Board, keys: list[str], settings: ClassSettings) -> None:
    """Prove the classes named ``keys`` (all when empty), one at a time, and collect the
    opening table after each class worked on.  A decided class is passed over (one
    without a certificate, when certificates are asked for, gets one: its certificate
    file left by a stopped run is checked, else it is proven again), and so is a class
    another live process holds.  Raises ClassError (an unknown class, a corrupt record),
    :class:`~solver.search.tablefile.TableFileError` and :class:`~solver.util.errors.Interrupted`
    (Ctrl-C or SIGTERM; the message says what was kept)."""
    jobs = class_jobs(board, settings.pie)
    names = {j.key: j for j in jobs}
    records = records_folder(settings.folder, board, settings.pie)
    for k in keys:
        if k not in names:
            raise ClassError(f"no class {k!r} on {board.name} (classes: {', '.join(names)})")
    say = settings.say
    search = None  # one df-pn table for every class this process proves
    after: list[str] = []  # the classes proven in it since it was new or emptied
    planted: list[str] = []  # the classes whose certificates were put in it since then
    for job in (names[k] for k in keys) if keys else jobs:
        pos = Position.parse(job.position)
        path = value_path(records, pos)
        old = read_record(path)
        if _decided(old) and (settings.certificates is None or "certificate" in old):
            say(f"{job.key}: already {old['value']} for {_NAME[pos.to_move]} to move ({path.name})")
            continue
        by = first_move_proof(settings.folder, board, job) if settings.pie and not _decided(old) else None
        if by is not None:
            say(f"{job.key}: {_NAME[by['winner']]} wins it by the certificate of first-move class "
                f"{by['class']} (its root's reply {by['reply']} is this pair)")
            continue
        lock = path.with_suffix(".running")
        if not claim(lock):
            say(f"{job.key}: another process is on it ({lock.name})")
            continue
        try:
            if _decided(old):
                cert = certificate_path(settings.certificates, board, job.key)
                # a certificate written by a run stopped while checking it is checked,
                # not written again: it proves the claim whichever search wrote it
                certified = cert.exists() and _certify_record(old, pos, path, cert, job.key, settings)
                if not certified:
                    say(f"{job.key}: decided, without a certificate: proving it again to write one")
            if not (_decided(old) and certified):
                search = _shared_table(search, board, settings, after, planted)
                if settings.plant:
                    _plant_row(search, board, job, jobs, settings, planted)
                prove_class(board, job, settings, search, after, planted)
                after.append(job.key)
        finally:
            lock.unlink(missing_ok=True)
        collect(settings.folder, board, pie=settings.pie, say=say)


#: a table the classes share is emptied before a class when more than this share of its
#: slots hold solved positions: a proof's open entries lose every contest for a slot with
#: a solved one, so past it the table the new proof works in shrinks
SHARED_SOLVED_SHARE = 0.5


def _plant_row(search, board: Board, job: Job, jobs: list[Job], settings: ClassSettings,
               planted: list[str]) -> None:
    """Put in ``search`` the certificates of the decided classes with ``job``'s Light
    stone that are not in it yet (``planted`` lists those that are), unless ``job``
    resumes from a saved table, which holds them already."""
    from solver.reference.certificate import CertificateError
    from solver.search.prove import plant_certificate

    table = table_path(settings.tables, board, job.key)
    if settings.certificates is None or (table is not None and table.exists()):
        return
    records = records_folder(settings.folder, board, settings.pie)
    stone = job.key.split("-")[0]
    for other in jobs:
        if other.key == job.key or other.key in planted or other.key.split("-")[0] != stone:
            continue
        rec = read_record(value_path(records, Position.parse(other.position)))
        cert = certificate_path(settings.certificates, board, other.key)
        if not (_decided(rec) and "certificate" in rec and cert.exists()):
            continue
        t0 = time.perf_counter()
        try:
            n = plant_certificate(search, board, cert)
        except CertificateError as e:  # a spoilt file
            settings.say(f"{job.key}: {other.key}'s certificate not planted: {e}")
            continue
        planted.append(other.key)
        settings.say(f"{job.key}: planted {other.key}'s certificate, {n:,} positions in "
                     f"{time.perf_counter() - t0:.0f} s")


def _shared_table(search, board: Board, settings: ClassSettings, after: list[str], planted: list[str]):
    """The table the next class goes on with: ``search``, emptied (and ``after`` and
    ``planted`` with it) when it is full of solved positions, or a new one.  Classes transpose into each other (the pie's pairs of one
    stone after two more moves), so a class proven after its neighbours finds part of its
    proof in the table."""
    from solver.search.prove import clear_search, new_search, table_use

    settings.limit()  # LimitError before allocating a table that does not fit
    if search is None:
        return new_search(board, settings.tt_mb)
    used, solved = table_use(search)
    if solved > SHARED_SOLVED_SHARE:
        settings.say(f"the shared table: {solved:.0%} of its slots hold solved positions; emptied")
        clear_search(search)
        after.clear()
        planted.clear()
    return search


def prove_class(board: Board, job: Job, settings: ClassSettings, search=None, after: list[str] = (),
                planted: list[str] = ()) -> dict:
    """Search one class, write its record (and, when asked, its checked certificate);
    return the record.  ``search``: a table from :func:`solver.search.prove.new_search`
    to go on with, holding the proofs of the classes ``after`` and the certificates of
    the classes ``planted`` (the value is the same; the work may be less, and the record
    says after which classes)."""
    from solver.reference.certificate import CertificateError
    from solver.search.prove import prove
    from solver.search.tablefile import save_table

    say = settings.say
    pos = Position.parse(job.position)
    records = records_folder(settings.folder, board, settings.pie)
    path = value_path(records, pos)
    every_minute = _every_minute(say)

    def progress(info: dict) -> None:
        every_minute(lambda: f"{job.key}: {info['seconds']:7.0f} s {info['nodes']:>14,} expansions "
                             f"{info['nodes'] / max(info['seconds'], 1e-9):>9,.0f}/s")

    t0 = time.time()
    table = table_path(settings.tables, board, job.key)
    if table is not None and table.exists():
        say(f"{job.key}: resuming from {table} ({table.stat().st_size / 1e9:.1f} GB)")
    try:
        p = prove(pos, method="dfpn", limit=settings.limit(), progress=progress, table_file=table, search=search)
    except KeyboardInterrupt:
        kept = f"its table is in {table}: run again to resume" if table else "nothing kept"
        raise Interrupted(f"interrupted in class {job.key}; {kept}", table) from None
    record = {
        "position": str(pos), "board": board.name, "to_move": pos.to_move,
        "class": list(job.members), **provenance(settings.command(board, job.key), revision=settings.revision),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t0)), **p.as_dict(),
    }
    if search is not None:
        record["table_after"] = list(after)  # its effort depends on them
    if planted:
        record["planted"] = list(planted)
    # the value is written before the certificate is built and checked, which takes longer
    # than the search did: an interruption then loses only the certificate
    records.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(record, indent=1) + "\n")
    say(f"{job.key}: {p.value} for {_NAME[pos.to_move]} to move (re-walked: {p.verified}); {p.nodes:,} "
        f"expansions in {p.seconds:.0f} s; wrote {path.name}")
    decided = p.value in (Value.WIN, Value.LOSS) and p.verified
    if settings.certificates is not None and decided:
        if table is not None:
            # the table holds the proof: should the certificate fail or be stopped, the
            # next run finds the class proven in it at once instead of searching again
            save_table(table, p.table.tables, p.table.search, str(pos), stage=p.stats["stage"], seconds=p.seconds,
                       runs=p.stats["runs"], tt_mb=settings.tt_mb)
        try:
            record["certificate"] = certify_class(pos, p, job.key, settings)
        except KeyboardInterrupt:
            raise Interrupted(f"interrupted while writing the certificate of {job.key}; "
                              f"its value is kept in {path.name}, the certificate is not", path) from None
        except CertificateError as e:
            # the value stands (re-walked); the next run with certificates proves it again
            say(f"{job.key}: no certificate: {e}")
            return record
        write_atomic(path, json.dumps(record, indent=1) + "\n")
    if table is not None and decided:
        table.unlink(missing_ok=True)
    return record


def _every_minute(say, clock=time.perf_counter):
    """A function that passes the text of ``line()`` to ``say`` at most once a minute of
    ``clock``: the searches and the certificate's builder call back far more often than a
    log can take."""
    last = clock()

    def maybe(line) -> None:
        nonlocal last
        if clock() - last >= 60:
            last = clock()
            say(line())

    return maybe


# -- certificates ------------------------------------------------------------------------
def _certify_record(old: dict, pos: Position, path: Path, cert: Path, name: str,
                    settings: ClassSettings) -> bool:
    """Check the certificate file ``cert`` of a decided class and, if it proves the
    class record ``old``'s value, add it to the record (and drop the saved table)."""
    from solver.reference.certificate import CertificateError

    settings.say(f"{name}: checking the certificate already written, {cert}")
    try:
        entry = check_class_certificate(cert, pos, old["value"], name, settings)
    except CertificateError as e:
        settings.say(f"{name}: {cert.name} is refused: {e}")
        return False
    write_atomic(path, json.dumps({**old, "certificate": entry}, indent=1) + "\n")
    table = table_path(settings.tables, pos.board, name)
    if table is not None:
        table.unlink(missing_ok=True)
    return True


def certify_class(pos: Position, proof, name: str, settings: ClassSettings) -> dict:
    """Write the certificate of ``proof`` (gzip-compressed) to ``settings.certificates``
    and check it with ``meridians check``'s checker; return what the class record keeps
    of it.  Raises CertificateError."""
    from solver.search.certificate import write_certificate

    t0 = time.perf_counter()
    every_minute = _every_minute(settings.say)

    def built(n: int) -> None:
        every_minute(lambda: f"{name}: certificate {n:>12,} positions built {time.perf_counter() - t0:8.0f} s")

    def written(n: int, total: int) -> None:
        every_minute(lambda: f"{name}: certificate {n:>12,} of {total:,} positions written "
                             f"{time.perf_counter() - t0:8.0f} s")

    folder = Path(settings.certificates)
    folder.mkdir(parents=True, exist_ok=True)
    out = certificate_path(folder, pos.board, name)
    # streamed to the file: the nodes as text would not fit beside the table
    head = write_certificate(out, pos, proof, max_nodes=settings.certificate_nodes, tt_mb=256, progress=built,
                             written=written)
    proof.table = None  # the table is no longer needed: free it before checking
    seconds = time.perf_counter() - t0
    settings.say(f"{name}: certificate of {head['node_count']:,} positions, {head['bytes']:,} bytes, "
                 f"in {seconds:.0f} s; checking")
    return {**check_class_certificate(out, pos, proof.value, name, settings),
            "build_seconds": round(seconds, 1)}


def check_class_certificate(cert: Path, pos: Position, value: str, name: str,
                            settings: ClassSettings) -> dict:
    """Check the certificate file ``cert`` with ``meridians check``'s checker, and that it
    claims ``value`` for the player to move at ``pos``; what the class record keeps of it.
    Raises CertificateError."""
    from solver.reference.certificate import CertificateError, check_data, read_certificate

    t1 = time.perf_counter()
    every_minute = _every_minute(settings.say)

    def checking(stage: str, n: int, total: int) -> None:
        every_minute(lambda: f"{name}: check {stage} {n:>12,} of {total:,} {time.perf_counter() - t1:8.0f} s")

    data = read_certificate(cert)
    if not isinstance(data, dict) or data.get("root") != str(pos):
        raise CertificateError(f"its root is not {pos}")
    other = "L" if pos.to_move == "D" else "D"
    winner = pos.to_move if value == "win" else other
    if data.get("winner") != winner:
        raise CertificateError(f"it claims a win for {data.get('winner')}, the class record for {winner}")
    reproved = data.get("reproved")
    checked = check_data(data, checking, jobs=settings.check_jobs)
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


def _summary(cert: dict | None) -> dict | None:
    """What the opening table keeps of a class's checked certificate."""
    if not cert or cert.get("checked_positions") != cert.get("positions"):
        return None
    return {k: cert[k] for k in ("file", "positions", "bytes", "sha256", "check_seconds")}


# -- the opening table -------------------------------------------------------------------
def _effort(rec: dict) -> dict:
    """What a table keeps of a class record besides its value: time, command, line and
    certificate (what the reference checker accepted: the file itself is regenerated by
    the record's command where it is too large to commit)."""
    decided = _decided(rec)
    return {"seconds": rec.get("seconds"), "command": rec.get("command"), "revision": rec.get("revision"),
            "line": rec.get("line", []) if decided else [],
            "certificate": _summary(rec.get("certificate")) if decided else None}


def _light(rec: dict | None) -> str:
    """Light's value after the class's moves: the negation of Dark's, decided or unknown."""
    return Value(rec["value"]).negated().value if _decided(rec) else "unknown"


def collect(folder: Path, board: Board, *, pie: bool = False,
            say: Callable[[str], None] = _stderr) -> dict:
    """Write ``<board>.json`` and ``<board>-map.svg`` in ``folder`` from the class records
    (with ``pie``: :func:`collect_pie`); return the table.  Raises ClassError when
    ``<board>.json`` was written by another command (such as 2/3's, by alpha-beta): it
    is left alone."""
    from ..svg import map_svg

    if pie:
        return collect_pie(folder, board, say=say)

    folder = Path(folder)
    stem = board.name.replace("/", "-")
    mine = read_record(folder / f"{stem}.json")
    if mine is not None and not str(mine.get("command", "")).startswith(COMMAND):
        raise ClassError(f"{folder / stem}.json was written by {mine.get('command')!r}; not replacing it")
    classes, moves = [], {}
    for job in opening_jobs(Position.start(board)):
        rec = read_record(value_path(folder, Position.parse(job.position))) or {}
        light = _light(rec)
        classes.append({"members": list(job.members), "position": job.position, "light": light,
                        "expansions": rec.get("nodes"), **_effort(rec)})
        for m in job.members:
            moves[m] = light
    values = set(moves.values())
    first = "win" if "win" in values else ("loss" if values == {"loss"} else "unknown")
    record = {
        "board": board.name,
        **provenance(f"{COMMAND} --board {board.name} --collect"),
        "method": "df-pn per class of first moves (scripts/solve_openings.py or "
                  "scripts/prove_position.py), each proof re-walked",
        "value": first,
        "decided": f"{sum(v != 'unknown' for v in moves.values())} of {len(moves)} first moves",
        "certified": f"{sum(c['certificate'] is not None for c in classes)} of {len(classes)} classes",
        "moves": dict(sorted(moves.items())),
        "classes": classes,
    }
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / f"{stem}.json", json.dumps(record, indent=1) + "\n")
    shown = {"win": "Light wins", "loss": "Light loses", "unknown": "not yet known"}[first]
    title = f"{board.name}: Light's first move ({shown}; {record['decided']} decided)"
    write_atomic(folder / f"{stem}-map.svg", map_svg(board, {board.index(m): v for m, v in moves.items()}, title=title))
    return record


#: the pie variant, in the words of every pie file (``scripts/solve_boards.py``'s too)
PIE_VARIANT = ("pie: the first player places one Light and one Dark stone, the second chooses a "
               "colour, Light plays next; pairs are 'Light point-Dark point', values are the "
               "winner, and the chooser takes the winning colour")


def _winner(rec: dict | None) -> str:
    """Who wins a pie class's position (Light to move): 'L', 'D', or 'unknown'."""
    if not _decided(rec):
        return "unknown"
    return rec["to_move"] if rec["value"] == "win" else ("D" if rec["to_move"] == "L" else "L")


def collect_pie(folder: Path, board: Board, *, say: Callable[[str], None] = _stderr) -> dict:
    """Write ``<board>-pie.json`` and ``<board>-pie-map.svg`` in ``folder`` from the pie
    class records; return the table.  A pie file another command wrote (``meridians
    solve --pie``, ``scripts/solve_boards.py``) is replaced only when this one decides at
    least as many pairs; else it is left alone (and said)."""
    from .piemap import pie_map_svg

    folder = Path(folder)
    stem = board.name.replace("/", "-") + "-pie"
    start = Position.start(board)
    records = records_folder(folder, board, pie=True)
    classes, pairs = [], {}
    for job in class_jobs(board, pie=True):
        rec = read_record(value_path(records, Position.parse(job.position))) or {}
        by = None if _decided(rec) else first_move_proof(folder, board, job)
        if by is None:
            entry = {"value": _winner(rec), "verified": _decided(rec), "nodes": rec.get("nodes"), **_effort(rec)}
        else:
            # no search of its own: its effort is the first-move class's, in <board>.json
            entry = {"value": by["winner"], "verified": True, "nodes": None, "seconds": None,
                     "command": by["record"].get("command"), "revision": by["record"].get("revision"),
                     "line": [], "certificate": _summary(by["record"]["certificate"]),
                     "first_move": {"class": by["class"], "reply": by["reply"]}}
        classes.append({"key": job.key, "members": list(job.members), "position": job.position, **entry})
        for m in job.members:
            pairs[m] = entry["value"]
    pairs = dict(sorted(pairs.items()))
    decided = sum(v != "unknown" for v in pairs.values())
    old = read_record(folder / f"{stem}.json")
    if old is not None and not str(old.get("command", "")).startswith(COMMAND):
        theirs = sum(v not in ("unknown", None) for v in dict(old.get("pairs") or {}).values())
        if theirs > decided:
            say(f"{stem}.json ({old.get('command')!r}) decides {theirs} pairs, these records "
                f"{decided}: left alone")
            # returned with the count a table of records carries (the file stays as it is)
            return {**old, "decided": f"{theirs} of {len(old.get('pairs') or {})} pairs"}
    summary = {v: n for v in ("L", "D", "unknown") if (n := sum(w == v for w in pairs.values()))}
    spent = [c for c in classes if c["nodes"] is not None]
    record = {
        "board": board.name,
        "variant": PIE_VARIANT,
        **provenance(f"{COMMAND} --board {board.name} --pie --collect"),
        "method": "df-pn per class of pairs of first stones (scripts/solve_openings.py --pie), "
                  "each proof re-walked, each certificate checked by the reference checker; a pair "
                  "whose Light stone is a first move after which Light wins whatever Dark replies, "
                  "or which is Dark's winning reply to a first move, is decided by that first-move "
                  "class's checked certificate (<board>.json), the pair being a move of its root "
                  "(first_move)",
        "position": str(start),
        # the chooser takes the winning colour: every decided pair is lost by the first player
        "value": "loss" if pairs and decided == len(pairs) else "unknown",
        "decided": f"{decided} of {len(pairs)} pairs",
        "certified": f"{sum(c['certificate'] is not None for c in classes)} of {len(classes)} classes",
        "summary": summary,
        "nodes": sum(c["nodes"] for c in spent),
        "seconds": round(sum(c["seconds"] for c in spent), 1),
        # a first-move class's certificate serves several pie classes: its check counts once
        "certificate_check_seconds": round(sum({c["certificate"]["sha256"]: c["certificate"]["check_seconds"]
                                                for c in classes if c["certificate"]}.values()), 1),
        "by_first_move": sorted({c["first_move"]["class"] for c in classes if "first_move" in c}),
        "pairs": pairs,
        "classes": classes,
    }
    folder.mkdir(parents=True, exist_ok=True)
    write_atomic(folder / f"{stem}.json", json.dumps(record, indent=1) + "\n")
    write_atomic(folder / f"{stem}-map.svg", pie_map_svg(start, pairs))
    return record


def status(folder: Path, board: Board, tables: Path | None, *, pie: bool = False) -> str:
    """One line per class: its value (for Light; the pie: who wins), effort, certificate,
    saved table."""
    from solver.search.tablefile import TableFileError, read_header

    head = "winner" if pie else "Light"
    wide = 24 if pie else 16  # a pie class's members: four pairs
    lines = [f"{'class':<6} {'members' if pie else 'moves':<{wide}} {head:<8} "
             f"{'expansions':>14} {'seconds':>8}  certificate / table"]
    records = records_folder(folder, board, pie)
    for job in class_jobs(board, pie):
        path = value_path(records, Position.parse(job.position))
        rec = read_record(path) or {}
        decided = _decided(rec)
        shown = (_winner(rec) if pie else _light(rec)) if decided else ("unknown" if rec else "-")
        notes = []
        by = first_move_proof(folder, board, job) if pie and not decided else None
        if by is not None:
            shown = by["winner"]
            notes.append(f"by the certificate of first-move class {by['class']} (reply {by['reply']})")
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
        lines.append(f"{job.key:<6} {','.join(job.members):<{wide}} {shown:<8} {nodes:>14} "
                     f"{secs:>8}  {'; '.join(notes)}")
    return "\n".join(lines)
