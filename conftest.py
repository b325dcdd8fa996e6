"""Collection settings for the whole tree (``pytest`` collects ``tests/`` and the doctests
of ``solver/``): without the optional extra ``openspiel`` (``pip install -e '.[openspiel]'``)
the module that registers the OpenSpiel game cannot be imported, so its doctests are not
collected; ``tests/test_openspiel.py`` skips itself the same way."""

import importlib.util

collect_ignore = [] if importlib.util.find_spec("pyspiel") else ["solver/app/openspiel.py"]
