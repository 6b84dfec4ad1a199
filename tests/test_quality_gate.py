"""Quality floors of the default commands on data neardup makes itself (see quality_gate.py).

A change that makes any default command worse on these corpora fails here; a change
that makes one better lifts its floor with ``python tests/quality_gate.py --raise``.
"""

from __future__ import annotations

import math

import pytest

import quality_gate


@pytest.fixture(scope="module")
def measured():
    return quality_gate.measure()


@pytest.mark.slow
def test_every_floor_is_measured_and_every_measure_has_a_floor(measured):
    assert set(measured) == set(quality_gate.floors())


@pytest.mark.parametrize("key", sorted(quality_gate.floors()))
def test_no_measure_falls_below_its_floor(measured, key):
    value = measured[key]
    assert not math.isnan(value), key
    assert value >= quality_gate.floors()[key] - 1e-4, f"{key}: {value:.4f} < floor {quality_gate.floors()[key]:.4f}"
