"""Capture-in-N puzzles for Meridians.

- :mod:`puzzles.verdict`: the exact verifier over :mod:`solver.search.capture` (every
  first move that captures within N and N-1, the main line, its duals);
- :mod:`puzzles.reference`: its slow twin on the networkx rules, for the tests;
- :mod:`puzzles.sat`: MaxSAT reshaping of seed positions (PySAT's RC2);
- :mod:`puzzles.generate`: the baseline and SAT generators and the resumable driver;
- :mod:`puzzles.record`: the puzzle record, its JSON-lines files and EPD-like line;
- :mod:`puzzles.similar`: near-duplicate positions (points that differ), for sets without them;
- :mod:`puzzles.themes`: a puzzle's themes (several paths, quiet key, tempo, chase, ladder, fork, ...);
- :mod:`puzzles.rating`: a puzzle's score and its rating 1-5 within its board and N;
- :mod:`puzzles.quality`: the figures of a set (duplicates, ratings, themes, sources);
- :mod:`puzzles.book`: the HTML puzzle book;
- :mod:`puzzles.cli`: ``meridians puzzles generate|audit|show|book``.

This package uses only the public API of :mod:`solver`; ``solver`` never imports it.
"""
