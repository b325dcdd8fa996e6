"""Exact search over the compiled rules core (alpha-beta with a transposition table and
symmetry reduction; proof-number search and the horizon search are to come)."""
