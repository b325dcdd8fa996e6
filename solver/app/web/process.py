"""A served instance in a child process, for the benchmarks that measure it as a user
meets it: a free loopback port, waiting until it answers, and its worker processes."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

import httpx

from solver.util.errors import MeridiansError

__all__ = ["ServerStartError", "free_port", "wait_until_up", "children", "alive"]


class ServerStartError(MeridiansError):
    """The server stopped or did not answer in time."""


def free_port() -> int:
    """A loopback port that is free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(url: str, proc: subprocess.Popen, seconds: float = 60.0) -> None:
    """Return once the server at ``url`` (run by ``proc``) answers; ServerStartError if
    ``proc`` ends first or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServerStartError(f"the server stopped (exit {proc.returncode})")
        try:
            if httpx.get(url + "/api/position", params={"position": "2/3"}, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass  # not listening yet: ask again
        time.sleep(0.2)
    raise ServerStartError(f"the server did not answer within {seconds:g} s")


def children(pid: int) -> set[int]:
    """The child processes of ``pid`` (Linux's /proc; elsewhere none)."""
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out |= {int(x) for x in (task / "children").read_text().split()}
        except OSError:
            pass  # the task ended while we read: it has no children
    return out


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie, finished but not yet reaped by its new
    parent, does not)."""
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")
