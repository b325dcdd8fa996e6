"""Exact search over the compiled rules core (layer 3).

- one entry point for every method, :func:`.prove.prove`, its methods in :mod:`.methods`,
  its budget :class:`.limit.Limit` and its values :class:`.values.Value`;
- df-pn proof-number search (:mod:`.dfpn`, its saved tables :mod:`.tablefile`), alpha-beta
  with a transposition table and symmetry reduction (:mod:`.alphabeta`, :mod:`.solve`),
  the horizon search (:mod:`.horizon`), the capture-in-N search (:mod:`.capture`); their
  tables cost what they touch (:mod:`.memory`);
- jobs run in parallel, checkpointed and resumable (:mod:`.jobs`, :mod:`.workers`,
  :mod:`.checkpoint`, :mod:`.progress`);
- proof certificates built from df-pn proofs (:mod:`.certificate`; they are checked by
  :mod:`solver.reference.certificate`, which needs none of this).

Nothing is imported here: ``import solver.search.dfpn`` loads what it needs.
"""
