"""Layer 4, the applications: what a person or another program calls.

The analyst that answers every front end (:mod:`.analyst`), game analysis
(:mod:`.analysis`), verification (:mod:`.verify`), play against the engine
(:mod:`.interactive`), engine matches (:mod:`.match`), pictures (:mod:`.svg`,
:mod:`.diagram`), the importers of other sites' records (:mod:`.importers`), the OpenSpiel
game (:mod:`.openspiel`, an optional extra), the frontier of proved boards
(:mod:`.frontier`), the playout benchmark (:mod:`.bench`), the settled rule's soundness
check (:mod:`.settled_check`), the opening solutions and databases (:mod:`.openings`), the
web application (:mod:`.web`) and the JSON Schemas of the ``--json`` outputs
(:mod:`.schema`).  The command line (:mod:`solver.cli`) is the entry point over them.

Nothing below this layer imports it.  Nothing is imported here.
"""
