"""Openings: the value of every first move (or every pie pair) of a position.

Two ways to the same values, both over the classes of first moves up to the board's
symmetries (:func:`opening_jobs`, :func:`pie_jobs`):

- :mod:`.solution`: :func:`solve_openings` runs every class as a job of
  :func:`solver.jobs.runner.run_jobs` (in parallel, within one time budget, resumable
  from a checkpoint) and puts their values together (``meridians solve``);
  :mod:`.piemap` draws the pie variant's map.
- :mod:`.classes`: one class at a time, each to the end, with a record per class, saved
  df-pn tables, checked certificates, and the board's opening table collected from the
  records (``scripts/solve_openings.py``: the way 3/4 was solved).
- :mod:`.growth`: how the cost of a proof grows with the empty points, extrapolated to a
  first-move class (``scripts/measure_growth.py``).

This is an application of the searches (:mod:`solver.search`); nothing in the search
layer imports it.
"""

from .piemap import pie_map_svg
from .solution import OpeningSolution, default_checkpoint, opening_jobs, pie_jobs, solve_openings

__all__ = [
    "opening_jobs", "pie_jobs", "default_checkpoint", "OpeningSolution", "solve_openings",
    "pie_map_svg",
]
