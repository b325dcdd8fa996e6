"""Capture-in-N puzzles: exact verifier, SAT encodings and generators (issues to come)."""
