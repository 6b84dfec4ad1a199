"""Compiled work on threads in input order (:mod:`neardup.threads`): the order and the answer do
not depend on the number of threads or on which item finishes first, and memory holds a bounded
number of results."""

from __future__ import annotations

import random
import threading
import time

import pytest

from neardup.threads import AHEAD_PER_THREAD, in_order_threads


@pytest.mark.parametrize("threads", [1, 2, 5])
def test_results_come_in_input_order_whichever_finishes_first(threads):
    delays = [random.Random(i).random() / 500 for i in range(60)]

    def fn(i: int) -> int:
        time.sleep(delays[i])
        return i * i

    assert list(in_order_threads(fn, range(60), threads)) == [i * i for i in range(60)]


def test_at_most_a_bounded_number_of_results_wait():
    started, taken, most = [0], [0], [0]
    lock = threading.Lock()

    def fn(i: int) -> int:
        with lock:
            started[0] += 1
            most[0] = max(most[0], started[0] - taken[0])
        return i

    for _ in in_order_threads(fn, range(100), 3):
        taken[0] += 1
    assert most[0] <= AHEAD_PER_THREAD * 3


def test_an_error_in_an_item_reaches_the_caller():
    def fn(i: int) -> int:
        if i == 7:
            raise ValueError("item 7")
        return i

    with pytest.raises(ValueError, match="item 7"):
        list(in_order_threads(fn, range(20), 2))
