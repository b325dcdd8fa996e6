"""What a verify of an easy claim loads: no more than the rules and df-pn need.

``meridians verify`` on a position df-pn proves in a few hundred nodes spends its time
starting Python, numba and the cached kernels, not searching (scripts/bench_latency.py
measures it).  The heavy modules it does not need stay out: networkx and the certificate
checker (only ``--certificate`` loads them), and scipy.linalg, which numba imports for
BLAS when its registries load unless :func:`solver.rules.core.tables` loads them first.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.subprocess

# the empty 2/3 board: a win for Light that df-pn proves at once
WIN_23 = "2/3/4/3/2 L"

_VERIFY = """
import sys
from solver.cli import main
sys.argv = ["meridians", "verify", sys.argv[1], "--claim", "win"]
code = None
try:
    main()
except SystemExit as e:
    code = e.code
print("exit", code)
print("loaded", " ".join(m for m in ("networkx", "scipy.linalg", "solver.reference.certificate",
                                     "solver.reference", "solver.search.certificate")
                         if m in sys.modules))
# scipy imports as usual afterwards, and numba compiles an inner product (without BLAS)
import numpy as np
import scipy.linalg
from numba import njit
print("dot", njit(lambda a, b: np.dot(a, b))(np.arange(3.0), np.arange(3.0)))
"""


def test_a_verify_loads_neither_networkx_nor_scipy_linalg(tree_env):
    r = subprocess.run([sys.executable, "-c", _VERIFY, WIN_23], env=tree_env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    lines = dict(line.split(" ", 1) if " " in line else (line, "") for line in r.stdout.splitlines()
                 if line.startswith(("exit", "loaded", "dot")))
    assert lines["exit"] == "0", r.stdout
    assert lines["loaded"] == "", r.stdout
    assert float(lines["dot"]) == 5.0
