"""``meridians serve``: a local web application, an analysis board and a puzzle trainer
over a JSON API (:mod:`solver.app.web.app`), on Starlette and uvicorn (the optional extra
``pip install -e '.[web]'``).

An application layer: nothing in the rules or the searches imports it; it uses the
opening database, the proofs and the engine through the same functions as the CLI
(:mod:`solver.app.web.work`), and the puzzle book's drawing and lines
(:mod:`puzzles.book`).  The pages are plain HTML and JavaScript served from
``solver/app/web/static`` (no build step).
"""

from __future__ import annotations

__all__ = ["serve", "DEFAULT_HOST", "DEFAULT_PORT"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def serve(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *, workers: int | None = None,
          puzzles: str | None = None, log_level: str = "warning") -> None:
    """Run the application with uvicorn until Ctrl-C (one process serving requests, its
    searches in ``workers`` worker processes)."""
    import uvicorn

    from .app import FIRST_BOARD, create_app

    uvicorn.run(create_app(workers=workers, puzzles=puzzles, first=(FIRST_BOARD,)), host=host, port=port,
                log_level=log_level)
