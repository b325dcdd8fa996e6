"""Exact search over the compiled rules core (layer 3): alpha-beta with a transposition
table and symmetry reduction (:mod:`.alphabeta`, :mod:`.solve`), df-pn proof-number search
(:mod:`.dfpn`, its saved tables :mod:`.tablefile`), the horizon search (:mod:`.horizon`),
one entry point for all of them (:mod:`.prove`), the per-class opening jobs
(:mod:`.jobs`), and the building of proof certificates from df-pn proofs
(:mod:`.certificate`; they are checked by :mod:`solver.certificate_check`, which needs
none of this).

Nothing is imported here: ``import solver.search.dfpn`` loads what it needs.
"""
