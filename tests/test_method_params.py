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
