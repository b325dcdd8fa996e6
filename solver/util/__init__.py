"""Support of every layer, below all of them: the base exception and ``Interrupted``
(:mod:`.errors`), files, locks and the user's folders (:mod:`.files`), and the code's
revision that results record (:mod:`.provenance`).

Nothing here imports any other part of the project but this package.
"""
