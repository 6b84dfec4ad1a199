"""A bounded fuzz test: generated faulty files through every file command (``bench/fuzz_faults.py`` runs many more)."""

from __future__ import annotations

from fuzz_inputs import check_case, fuzz_case
import pytest
from hypothesis import HealthCheck, given, settings


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@pytest.mark.slow
@given(fuzz_case())
def test_no_input_crashes_any_command_or_goes_unaccounted(files):
    check_case(files)
