"""``meridians serve``: the web application (solver.app.web) on a local server."""

from __future__ import annotations

import sys

import click

from .common import EXIT_USAGE, _fail


@click.command(short_help="Serve the analysis board, the puzzle trainer and their JSON API on a local web server.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(min=1, max=65535), default=8765, show_default=True,
              help="Port to listen on.")
@click.option("--workers", type=click.IntRange(min=1, max=64), default=None,
              help="Worker processes for analyses and engine moves (default: the cores, at most 4).")
@click.option("--puzzles", "puzzles_dir", type=click.Path(file_okay=False), default=None,
              help="A folder of *.jsonl puzzle sets for the trainer (default: the committed sets).")
def serve(host: str, port: int, workers: int | None, puzzles_dir: str | None) -> None:
    """A local web application: an analysis board (any board 2/3 to 7/8 or a pasted
    position or game record; click to play; each move's value from the opening
    database, a proof or the engine, labelled; play against the engine), a puzzle
    trainer, and the JSON API they use (see docs/web.md).  Ctrl-C
    stops it.  Needs the optional extra: pip install -e '.[web]'.

    \b
    Examples:
      meridians serve
      meridians serve --port 9000 --workers 2
    """
    import socket

    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as e:
        click.echo(f"meridians: error: serve needs starlette and uvicorn ({e.name} is missing): "
                   "pip install -e '.[web]'", err=True)
        sys.exit(EXIT_USAGE)
    # the port is tried first, so that a port in use is one line and exit 2
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((host, port))
    except OSError as e:
        _fail(f"cannot listen on {host}:{port}: {e.strerror or e}")
    from solver.app.web import serve as run

    click.echo(f"meridians: serving on http://{host}:{port}/ (trainer: /trainer; Ctrl-C stops)", err=True)
    run(host, port, workers=workers, puzzles=puzzles_dir)
