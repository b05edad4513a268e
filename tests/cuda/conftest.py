"""CUDA tests: run in a process of their own, under Numba's CUDA simulator on machines without a
GPU (`NUMBA_ENABLE_CUDASIM=1 python -m pytest -q tests/cuda`, what CI does) or on a real GPU
(`JTORCH_TEST_CUDA=1 python -m pytest -q tests/cuda`). The main test run leaves this directory
out (tests/conftest.py), because the simulator must be chosen before numba.cuda is imported.

Sizes stay tiny: the simulator runs one OS thread per CUDA thread, about 65 us each.
"""
from __future__ import annotations

import pytest

import jtorch


def pytest_collection_modifyitems(config, items):
    if not jtorch.cuda.is_available():
        raise pytest.UsageError("tests/cuda needs a GPU or NUMBA_ENABLE_CUDASIM=1 (set before the run starts)")


@pytest.fixture
def cuda():
    return jtorch.device("cuda")

import os
import sys

# the CPU tests' support modules (tests/_*_support.py) are importable here too
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
