"""``python -m solver.cli``: the ``meridians`` command, as the installed script runs it."""

from solver.cli import main

if __name__ == "__main__":  # importing the module (as tests/test_errors.py does) runs nothing
    main()
