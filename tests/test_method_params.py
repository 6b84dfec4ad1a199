"""Every method refuses a value outside its declared choices, naming the parameter."""

from __future__ import annotations

import pytest

from neardup.methods import REGISTRY


@pytest.mark.parametrize(
    "method,param", [(name, p) for name, cls in sorted(REGISTRY.items()) for p in sorted(cls.param_choices)]
)
def test_a_value_outside_the_choices_is_refused(method, param):
    with pytest.raises(ValueError, match=f"{param} must be one of"):
        REGISTRY[method](**{param: "no-such-choice"})


def test_a_parameter_of_the_wrong_type_is_refused_by_name():
    """Through the API, `threshold="0.8"` or `seed="a"` failed deep in a run with a TypeError; numpy
    numbers pass, a bool is not a number."""
    import numpy as np

    from neardup import Deduplicator
    from neardup.errors import UserError
    from neardup.methods import get_method

    for name, params in (("minhash", {"threshold": "0.8"}), ("ffp", {"seed": "a"}),
                         ("minhash", {"num_perm": True}), ("simhash", {"bits": 64.0})):
        with pytest.raises(UserError, match=f"{next(iter(params))} must be"):
            get_method(name, **params)
    with pytest.raises(UserError, match="threshold must be float"):
        Deduplicator(method="minhash", threshold="0.8").run([("a", "one two three"), ("b", "one two three")])
    assert get_method("minhash", threshold=np.float64(0.5), num_perm=np.int64(64)).num_perm == 64
    assert get_method("andd", threshold=None).threshold is None


def test_a_batch_size_that_is_not_a_number_is_refused_when_made():
    """`Deduplicator(batch_bytes="big")` was accepted and failed inside `run()` with a TypeError."""
    from neardup import Deduplicator
    from neardup.errors import UserError

    for bad in ("big", 0, 2.5, True):
        with pytest.raises(UserError, match="batch_bytes must be"):
            Deduplicator(batch_bytes=bad)


#: Knobs whose every whole value is fine (a seed), or whose 0 is (skip none, no common phrase).
_ANY_WHOLE = {"seed"}
_ZERO_IS_FINE = {"skip_top", "common_df"}


@pytest.mark.parametrize("method,param", [
    (name, p) for name, cls in sorted(REGISTRY.items()) for p, v in sorted(cls().get_params().items())
    if type(v) is int and p not in _ANY_WHOLE])
def test_a_count_out_of_range_is_refused_naming_the_knob_and_value(method, param):
    """The knob as `neardup methods` lists it, and the value: `chain length must ...` did not say which
    option (--chain), `min_terms and top_terms ...` neither which nor the value, and andd took
    num_samples=0."""
    from neardup.errors import UserError

    bad = -1 if param in _ZERO_IS_FINE else 0
    with pytest.raises(UserError, match=rf"^{param}\b.* got {bad}$"):
        REGISTRY[method](**{param: bad})
