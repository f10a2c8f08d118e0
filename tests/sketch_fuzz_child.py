"""Child process of tests/test_sketch_fuzz.py: mutate sketch files inside their REQ sections,
re-append a valid SHA-256, and load each one; an accepted file is then used (add_cases,
summary, merge, to_bytes). Prints one JSON line of counts. A crash ends this process by a
signal, which the parent sees.

    python sketch_fuzz_child.py SEED FILES
"""

from __future__ import annotations

import hashlib
import json
import random
import struct
import sys

import numpy as np

from rankeval.container import _HEADER
from rankeval.errors import PersistenceError
from rankeval.scored.sketch import SketchEvaluation

# (offset within a section, width) of the REQ fields a mutation aims at besides random bytes:
# preamble, version, family, flags, k, levels, raw items; n, min, max; a level's state,
# section size, weight, sections, items.
FIELDS = [(0, 1), (1, 1), (2, 1), (3, 1), (4, 2), (6, 1), (7, 1), (8, 8), (16, 4), (20, 4),
          (24, 8), (32, 4), (36, 1), (37, 1), (40, 4)]


def sources(rng: np.random.Generator) -> list[bytes]:
    """Genuine files: sketched at several sizes and k, one of them merged, all with misses."""
    out = []
    for k, n in ((8, 3000), (50, 20_000), (50, 1_000), (200, 50_000), (16, 300)):
        ev = SketchEvaluation(sketch_size=k, exact_until=0)
        labels = rng.random(n) < 0.3
        ev.add_cases(labels, rng.normal(labels.astype(float), 1.0))
        ev.add_misses(3)
        out.append(ev.to_bytes())
    tiny = SketchEvaluation(sketch_size=50, exact_until=0)
    tiny.add_cases([True, False, True], [0.5, 0.25, 0.75])  # REQ's raw items
    out.append(tiny.to_bytes())
    one = SketchEvaluation(sketch_size=50, exact_until=0)
    one.add_case(True, 0.5)
    out.append(one.to_bytes())
    return out


def sections(data: bytes) -> list[tuple[int, int]]:
    """(start, length) of each section after the metadata."""
    _, _, meta_len = _HEADER.unpack_from(data)
    meta = json.loads(data[_HEADER.size:_HEADER.size + meta_len])
    at, out = _HEADER.size + meta_len, []
    for size in meta["blobs"]:
        out.append((at, size))
        at += size
    return out


def mutate(data: bytes, rng: random.Random) -> bytes:
    body = bytearray(data[:-32])
    start, length = rng.choice([s for s in sections(data) if s[1]])
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.5:
            offset, width = rng.choice(FIELDS)
            if offset + width > length:
                continue
            value = rng.choice([0, 1, 2, 3, 4, 255, 2**(8 * width) - 1, rng.getrandbits(8 * width)])
            if width == 4 and rng.random() < 0.3:  # a float: NaN, inf, huge, negative
                value = struct.unpack("<I", struct.pack("<f", rng.choice(
                    [float("nan"), float("inf"), -1.0, 3e38, 0.0, 1e-45])))[0]
            body[start + offset:start + offset + width] = value.to_bytes(width, "little")
        else:
            position = start + rng.randrange(length)
            body[position] = rng.randrange(256)
    return bytes(body) + hashlib.sha256(bytes(body)).digest()


def main() -> None:
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    files = sources(np.random.default_rng(seed))
    tally = {"refused": 0, "accepted": 0}
    for i in range(count):
        data = mutate(files[i % len(files)], rng)
        try:
            ev = SketchEvaluation.from_bytes(data)
        except PersistenceError:
            tally["refused"] += 1
            continue
        tally["accepted"] += 1
        ev.add_cases([True, False] * 300, np.linspace(-3, 3, 600))
        ev.summary()
        other = SketchEvaluation(sketch_size=ev._k, exact_until=0)
        other.add_cases([True, False, False], [0.1, 0.2, 0.3])
        ev.merge(other)
        other.merge(ev)
        SketchEvaluation.from_bytes(ev.to_bytes()).summary()
    print(json.dumps(tally))


if __name__ == "__main__":
    main()
