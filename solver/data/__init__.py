"""Data files shipped with the package: the opening databases (solver.app.openings.database)."""
