"""Data files shipped with the package: the opening databases (solver.app.openings.database)
and the engine's move model (``policy.npz``, 471 weights, 3 KB: a copy of
``results/policy/policy-5-6-p3200.npz``; ``policy.json`` is its training command, data and
held-out figures; read by :func:`solver.search.mcts.model_weights`)."""
