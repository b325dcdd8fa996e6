"""Reading and writing files safely.

Writing: nothing already written is lost or left half-written, also when a long run is
stopped (a temporary file in the same folder, then a rename; :func:`write_atomic_all`
writes several files all or none).  Every writer here creates
the missing folders of its path, and a new file gets the mode that the user's umask
gives (a file written over keeps its mode); an error names the user's path, never the
temporary file.

Reading: :func:`read_text` and :func:`read_json` turn every way a file can be unusable
(missing, a folder, unreadable, binary, truncated or corrupt gzip, not JSON, nested too
deeply, NaN or a number too long) into one :class:`FileFormatError` whose message starts
with the path, so a command can print it as its one line of error.

Places and locks: :func:`state_dir` is where runs that resume keep their state by default
(the user's state folder, or ``$MERIDIANS_STATE_DIR``), :func:`cache_dir` where large files
that can be made again go (the user's cache folder, or ``$MERIDIANS_CACHE_DIR``); :class:`ExclusiveLock` keeps two processes from working on one
file at once, on every operating system (filelock), and a second one gets a
:class:`FileLockedError` at once instead of waiting.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import math
import os
import signal
import tempfile
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from .errors import MeridiansError

__all__ = ["write_atomic", "write_atomic_chunks", "write_atomic_all", "write_json", "uninterrupted", "read_text", "read_json", "FileFormatError",
           "claim", "interrupt_on_sigterm", "state_dir", "cache_dir", "STATE_DIR_ENV", "CACHE_DIR_ENV", "ExclusiveLock",
           "FileLockedError"]

_GZIP_MAGIC = b"\x1f\x8b"
#: the longest integer a JSON file may hold, in digits (Python's own limit is 4300)
MAX_JSON_DIGITS = 1000


class FileFormatError(MeridiansError):
    """A file that cannot be read as what it should be.  The message is
    ``PATH: WHAT: PROBLEM``; ``path``, ``what`` and ``problem`` are kept for callers that
    word their own message."""

    def __init__(self, path: str | os.PathLike, what: str, problem: str):
        self.path, self.what, self.problem = os.fspath(path), what, problem
        super().__init__(f"{self.path}: {what}: {problem}")

    def __reduce__(self):  # raised in a worker process, it travels back pickled
        return type(self), (self.path, self.what, self.problem)


def write_atomic(path: str | os.PathLike, text: str | bytes) -> None:
    """Write ``text`` (or bytes) to ``path`` through a temporary file in the same folder
    and a rename, so that an interrupted write never leaves half a file."""
    write_atomic_chunks(path, [text if isinstance(text, bytes) else text.encode("utf-8")])


def write_json(path: str | os.PathLike, value) -> None:
    """:func:`write_atomic` of ``value`` as JSON, one space an indent level, a newline at the end."""
    write_atomic(path, json.dumps(value, indent=1) + "\n")


def write_atomic_chunks(path: str | os.PathLike, chunks: Iterable[bytes]) -> None:
    """:func:`write_atomic` of the bytes ``chunks`` yields, written as they come: a file
    too large to hold in memory at once.  Missing folders of ``path`` are created; an
    OSError names ``path`` (``e.filename``), not the temporary file."""
    _commit(_stage(path, chunks), path)


def write_atomic_all(texts: Mapping[str | os.PathLike, str | bytes]) -> None:
    """Write each text (or bytes) to its path, all of them or none as far as the system
    allows: each goes to a temporary file beside its path first (a failure there, an
    OSError naming the path, changes no file), then they are renamed in turn with Ctrl-C
    and SIGTERM held back; a rename that fails puts back the files already replaced (a
    file that was not there is removed).  Only a crash or a SIGKILL during the renames
    (a few system calls) can leave some files new and the others old."""
    staged: list[tuple[str | os.PathLike, str]] = []
    try:
        for path, text in texts.items():
            staged.append((path, _stage(path, [text if isinstance(text, bytes) else text.encode("utf-8")])))
        old = {path: _contents(path) for path, _ in staged}
    except BaseException:
        for _, tmp in staged:
            _remove(tmp)
        raise
    with uninterrupted():
        for i, (path, tmp) in enumerate(staged):
            try:
                _commit(tmp, path)
            except BaseException:
                for _, later in staged[i + 1:]:
                    _remove(later)
                for done, _ in staged[:i]:
                    if old[done] is None:
                        os.unlink(done)
                    else:
                        write_atomic(done, old[done])
                raise


def _contents(path: str | os.PathLike) -> bytes | None:
    """The bytes of ``path``, None when there is no file; an OSError names ``path``."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def _stage(path: str | os.PathLike, chunks: Iterable[bytes]) -> str:
    """A temporary file beside ``path`` (its missing folders created) holding ``chunks``,
    with the mode ``path`` is to get: ``path``'s own when it exists, else the umask's.
    Nothing is left behind on an error; an OSError names ``path``."""
    directory = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        os.makedirs(directory, exist_ok=True)
        try:
            mode = os.stat(path).st_mode & 0o7777  # written over: keep its mode
        except OSError:
            mode = 0o666 & ~_umask()
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".part")
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), mode)  # mkstemp makes 0600
            for chunk in chunks:
                f.write(chunk)
        return tmp
    except BaseException as e:
        _remove(tmp)
        raise _named(e, path) from None


def _commit(tmp: str, path: str | os.PathLike) -> None:
    """Rename the temporary file ``tmp`` to ``path``; on an error ``tmp`` is removed and an
    OSError names ``path``."""
    try:
        os.replace(tmp, path)
    except BaseException as e:
        _remove(tmp)
        raise _named(e, path) from None


def _named(e: BaseException, path: str | os.PathLike) -> BaseException:
    """An OSError ``e`` naming ``path`` (not the temporary file); any other error as it is."""
    return type(e)(e.errno, e.strerror or str(e), os.fspath(path)) if isinstance(e, OSError) else e


def _remove(tmp: str | None) -> None:
    if tmp is None:
        return
    try:
        os.unlink(tmp)
    except OSError:
        pass  # the temporary file is already gone; the original error matters


_UMASK_LOCK = threading.Lock()


def _umask() -> int:
    """The process's umask, read without changing it where /proc tells it (Linux); else
    by setting and restoring it under a lock (os.umask can only be read by setting it)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass  # no /proc (not Linux): ask os.umask below, under a lock as it sets it
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def read_text(path: str | os.PathLike, what: str = "file") -> str:
    """The text of ``path`` (UTF-8; gzip-compressed too, known by its first bytes, so
    a ``.gz`` name is not needed).  ``what`` says in messages what the file should be
    (``"game record"``): messages read ``PATH: WHAT: PROBLEM``.  Raises :class:`FileFormatError`, never OSError, zlib.error or
    UnicodeDecodeError."""
    def fail(problem: str) -> FileFormatError:
        return FileFormatError(path, what, problem)

    try:
        with open(path, "rb") as f:
            data = f.read()
    except IsADirectoryError:
        raise fail("is a folder, not a file") from None
    except FileNotFoundError:
        raise fail("no such file") from None
    except PermissionError:
        raise fail("permission denied") from None
    except OSError as e:
        raise fail(f"cannot be read: {e.strerror or e}") from None
    if data[:2] == _GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except EOFError:
            raise fail("truncated gzip data (the file ends too early)") from None
        except (zlib.error, gzip.BadGzipFile, OSError) as e:
            raise fail(f"corrupt gzip data ({e})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise fail(f"not a UTF-8 text file (byte 0x{data[e.start]:02x} at offset {e.start})") from None
    if "\x00" in text:
        raise fail(f"a binary file, not text (a NUL byte at offset {text.index(chr(0))})")
    return text


def read_json(path: str | os.PathLike, what: str = "file", kind: type | None = None):
    """The JSON value in ``path`` (read by :func:`read_text`), of type ``kind`` when
    given (``dict``: a JSON object).  Refused with :class:`FileFormatError`: invalid
    JSON, ``NaN`` and ``Infinity`` (not JSON, though Python writes them), numbers too
    large for a float or longer than 1000 digits, nesting deeper than the parser's
    recursion limit."""
    text = read_text(path, what)

    def fail(problem: str) -> FileFormatError:
        return FileFormatError(path, what, problem)

    if not text.strip():
        raise fail("the file is empty")
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_int=_int, parse_float=_float)
    except _BadNumber as e:
        raise fail(str(e)) from None
    except RecursionError:
        raise fail("JSON nested too deeply") from None
    except json.JSONDecodeError as e:
        raise fail(f"not valid JSON ({e})") from None
    if kind is not None and not isinstance(value, kind):
        raise fail(f"expected a JSON {_JSON_NAMES.get(kind, kind.__name__)}, not {_json_name(value)}")
    return value


class _BadNumber(Exception):
    pass


def _refuse_constant(name: str):
    raise _BadNumber(f"{name} is not a JSON number")


def _int(digits: str) -> int:
    if len(digits) > MAX_JSON_DIGITS:
        raise _BadNumber(f"a number of {len(digits)} digits")
    return int(digits)


def _float(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise _BadNumber(f"the number {text[:20]} is too large")
    return x


_JSON_NAMES = {dict: "object", list: "array", str: "string", int: "integer", float: "number", bool: "boolean"}


def _json_name(value: object) -> str:
    if value is None:
        return "null"
    return "an " + _JSON_NAMES[type(value)] if type(value) in (dict, list, int) else "a " + _JSON_NAMES.get(
        type(value), type(value).__name__)


#: the file beside the locks of a folder that makes :func:`claim`'s look-and-write one step
CLAIMS = ".claims.lock"


def claim(lock: str | os.PathLike) -> bool:
    """Claim the work that ``lock`` (a file holding a process id) stands for: False if
    another live process holds it; else write this process's id there and return True.
    The caller removes the file when done; a file left by a process that died is taken
    over.  Processes claiming in the same folder at the same moment take turns (an
    exclusive lock on the folder's :data:`CLAIMS` file, where the system has ``fcntl``),
    so that two of them never both find the work free."""
    lock = Path(lock)
    try:
        import fcntl
    except ImportError:  # no fcntl (Windows): look and write, as close together as can be
        return _claim(lock)
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock.parent / CLAIMS, "a") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)  # released when the file closes, or the process dies
        return _claim(lock)


def _claim(lock: Path) -> bool:
    try:
        with open(lock, encoding="utf-8") as f:
            pid = int(f.read())
        os.kill(pid, 0)
        if pid != os.getpid():
            return False
    except (OSError, ValueError):
        pass  # no lock, or its process is gone: take it
    write_atomic(lock, str(os.getpid()))
    return True


def interrupt_on_sigterm() -> None:
    """Make SIGTERM raise KeyboardInterrupt in the main thread, so that a kill stops a long
    run as Ctrl-C does: it saves what it computed. (A run started in the background with
    ``&`` ignores Ctrl-C, so a kill is the only way to stop it.)"""
    signal.signal(signal.SIGTERM, _raise_interrupt)


def _raise_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def uninterrupted(on_hold: Callable[[int], None] | None = None) -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM back while the block runs, then act on them: files that
    must agree with each other (a run's output and the state that counts it) are written
    both or neither.  Outside the main thread the block simply runs.  ``on_hold`` is
    called with the first signal held (to say that the run stops soon).

    (The handlers are swapped rather than the signals masked: in a process with other
    threads, a masked signal is delivered to one of them and its Python handler still
    runs in the main thread, inside the block.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM)
    old = {s: signal.getsignal(s) for s in held}
    def hold(signum: int, frame) -> None:
        if not caught and on_hold is not None:
            on_hold(signum)
        caught.append(signum)

    for s in held:
        signal.signal(s, hold)
    try:
        yield
    finally:
        for s in held:
            signal.signal(s, old[s])
    if caught:
        signum = caught[0]
        handler = old[signum]
        if callable(handler):
            handler(signum, None)
        elif handler == signal.SIG_DFL:
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            os.kill(os.getpid(), signum)


# -- where state and cache files go ---------------------------------------------------------
#: the environment variables that move :func:`state_dir` and :func:`cache_dir` (the tests
#: set them to temporary folders, so that nothing they run lands in the user's home)
STATE_DIR_ENV = "MERIDIANS_STATE_DIR"
CACHE_DIR_ENV = "MERIDIANS_CACHE_DIR"
_APP = "meridians"


def state_dir() -> Path:
    """The folder where runs that resume keep their state unless told otherwise: the
    default checkpoints of ``meridians solve``, the state files of ``meridians match``,
    the checkpoints of the scripts.  It is ``$MERIDIANS_STATE_DIR`` when that is set and
    not empty, else the user state folder platformdirs gives for each system
    (``$XDG_STATE_HOME/meridians``, by default ``~/.local/state/meridians``, on Linux;
    ``~/Library/Application Support/meridians`` on macOS; ``%LOCALAPPDATA%\\meridians``
    on Windows).  The folder is created if missing, with the mode the user's umask gives
    (``os.makedirs``); an OSError names it."""
    override = os.environ.get(STATE_DIR_ENV)
    if override:
        path = Path(override).expanduser()
    else:
        import platformdirs  # imported here: reading and writing files need none of it

        # appauthor=False: on Windows one folder %LOCALAPPDATA%\meridians, not meridians\meridians
        path = Path(platformdirs.user_state_dir(_APP, appauthor=False))
    os.makedirs(path, exist_ok=True)
    return path


def cache_dir() -> Path:
    """The folder of files that can be made again, such as the saved df-pn tables of
    ``scripts/solve_openings.py``: ``$MERIDIANS_CACHE_DIR`` when that is set and not
    empty, else the user cache folder platformdirs gives (``$XDG_CACHE_HOME/meridians``,
    by default ``~/.cache/meridians``, on Linux; ``~/Library/Caches/meridians`` on macOS;
    ``%LOCALAPPDATA%\\meridians\\Cache`` on Windows).  Not created here: its writers
    create what they need."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir(_APP, appauthor=False))


# -- one process at a time on a file ---------------------------------------------------------
class FileLockedError(MeridiansError):
    """Another process holds the lock on a file.  The message is one line naming the
    file; ``path`` is the lock file."""

    def __init__(self, path: str | os.PathLike, message: str | None = None):
        self.path = os.fspath(path)
        super().__init__(message or f"{self.path} is locked by another process")

    def __reduce__(self):  # raised in a worker process, it travels back pickled
        return type(self), (self.path, str(self))


class ExclusiveLock:
    """An exclusive lock on the file ``path`` (created if missing, with its folders),
    taken without waiting: :meth:`acquire` raises :class:`FileLockedError` (its message
    ``busy`` when given) while another process holds it.  A context manager too.

    It is filelock's ``FileLock``: ``flock`` on Unix, ``LockFileEx`` on Windows, an
    existence lock where the file system has no ``flock`` (some network file systems).
    With ``flock`` and ``LockFileEx`` the operating system drops the lock when its
    process dies, so a killed run leaves no lock behind that would refuse the next one;
    an existence lock left by a killed run stays until its file is removed.

    :meth:`release` removes the lock file, so that a run leaves nothing beside its
    files.  On Unix it is unlinked while still held: a process that opened the old file
    and locks it after the release finds it unlinked (filelock checks) and counts it as
    held (it is refused, never two holders); removing it after the release could let a
    process that locked the old file and one that created a new file both hold "the"
    lock.  On Windows an open file cannot be removed, and filelock removes it after the
    release itself."""

    def __init__(self, path: str | os.PathLike, busy: str | None = None):
        self.path = os.fspath(path)
        self.busy = busy
        self._lock = None

    @property
    def held(self) -> bool:
        return self._lock is not None

    def acquire(self) -> ExclusiveLock:
        """Take the lock now or raise :class:`FileLockedError`; OSError when the lock
        file cannot be created (its message names it).  Taking it twice is an error."""
        import warnings

        import filelock

        if self._lock is not None:
            raise RuntimeError(f"the lock {self.path} is already held by this object")
        # thread_local=False: the lock belongs to the process (a run may release it from
        # another thread than the one that took it)
        lock = filelock.FileLock(self.path, thread_local=False)
        try:
            with warnings.catch_warnings():
                # the fallback to an existence lock warns on stderr: a command's output
                # keeps to its own lines (the lock works all the same)
                warnings.simplefilter("ignore")
                lock.acquire(blocking=False)
        except filelock.Timeout:
            raise FileLockedError(self.path, self.busy) from None
        self._lock = lock
        return self

    def release(self) -> None:
        """Remove the lock file and let the lock go (nothing when not held)."""
        lock, self._lock = self._lock, None
        if lock is None:
            return
        try:
            if os.name != "nt" and os.stat(self.path).st_size == 0:
                # an flock file (nothing is ever written to it; an existence lock's file
                # holds its owner and is removed by filelock as its release)
                os.unlink(self.path)
        except OSError:
            pass  # already gone, or not ours to remove: the lock itself is what matters
        lock.release()

    def __enter__(self) -> ExclusiveLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
