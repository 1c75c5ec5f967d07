"""pytest settings of the accsum Python suite: hypothesis bounded and derandomized (CI runs it on 2
cores within a minute), and the exact rounding every test compares with (fractions.Fraction: not
accsum's own oracle)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
try:
    from hypothesis import HealthCheck, settings
except ImportError:  # a machine without hypothesis (the GPU machine) runs the other tests
    settings = None
if settings is not None:
    settings.register_profile("accsum", max_examples=60, derandomize=True, deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("accsum")
