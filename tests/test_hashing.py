import random

import numpy as np
import pytest
import xxhash

from neardup.hashing import hash_str, xxh64_bytes, xxh64_lanes


@pytest.mark.slow
def test_xxh64_bytes_matches_reference_for_every_length_path():
    rng = random.Random(3)
    for length in list(range(0, 80)) + [257, 1000]:
        data = bytes(rng.randrange(256) for _ in range(length))
        arr = np.frombuffer(data, dtype=np.uint8)
        for seed in (0, 1, 2**64 - 1):
            assert int(xxh64_bytes(arr, 0, length, np.uint64(seed))) == xxhash.xxh64_intdigest(data, seed=seed)


def test_xxh64_bytes_of_a_slice():
    data = b"xxhello worldyy"
    arr = np.frombuffer(data, dtype=np.uint8)
    assert int(xxh64_bytes(arr, 2, 13, np.uint64(0))) == xxhash.xxh64_intdigest(b"hello world")


def test_xxh64_lanes_is_xxh64_of_little_endian_bytes():
    rng = random.Random(4)
    for n in range(0, 13):
        vals = np.array([rng.getrandbits(64) for _ in range(n)], dtype=np.uint64)
        expected = xxhash.xxh64_intdigest(vals.astype("<u8").tobytes(), seed=9)
        assert int(xxh64_lanes(vals, 0, n, np.uint64(9))) == expected


def test_hash_str_is_utf8_xxh64():
    assert hash_str("café") == xxhash.xxh64_intdigest("café".encode("utf-8"))
