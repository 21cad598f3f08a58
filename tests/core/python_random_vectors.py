#!/usr/bin/python3
"""Writes tests/core/fixtures/python_random_vectors.json: draws of Python's random.Random for the
C++ port in core/squaring/python_random.h (tests/core/python_random_test.cpp replays them).

Uses the standard library only. Run it with Debian 12's python3 (CPython 3.11):
    /usr/bin/python3 tests/core/python_random_vectors.py > tests/core/fixtures/python_random_vectors.json
Each case seeds random.Random(seed) and records a fixed sequence of calls on that one generator,
so the C++ side must keep the state in step through every kind of call.
"""
import json
import platform
import random

SEEDS = ["0", "1", "45", "4294967295", "4294967296", "18446744073709551615",
         "12345678901234567890", "-45", str(2**100 + 7)]


def ops(rng):
    out = []

    def add(op, args, value):
        out.append({"op": op, "args": args, "out": value})

    for _ in range(3):
        add("genrand", [], rng.getrandbits(32))
    for _ in range(3):
        add("random", [], rng.random())
    for k in (0, 1, 5, 31, 32, 33, 53, 62, 63, 64):
        add("getrandbits", [k], rng.getrandbits(k))
    for n in (1, 2, 3, 7, 288, 2**31, 2**32 + 1, 2**62 - 57, 2**64 - 1):
        add("randbelow", [n], rng._randbelow(n))
    for stop in (2, 323, 899, 1 << 20, (1 << 61) + 12345):
        add("randrange", [1, stop], rng.randrange(1, stop))
    add("randint", [-5, 5], rng.randint(-5, 5))
    items = list(range(10))
    rng.shuffle(items)
    add("shuffle", [10], items)
    # sample: pool branch (n <= setsize) and set branch (n > setsize), k = 0 and k = n.
    for n, k in ((30, 10), (288, 38), (5, 5), (1000, 256), (100, 0), (22, 6), (40, 6),
                 (5000, 100), (2000, 6), (100, 5), (21, 3)):
        add("sample", [n, k], rng.sample(range(n), k))
    add("choice_index", [7], rng.choices(range(7), k=1)[0])
    for weights in ([288], [3, 1, 4, 1, 5, 9, 2, 6], [240, 288, 396, 432, 520, 616],
                    [1 << 40, 1, 1 << 41]):
        add("weighted_choice", weights, rng.choices(range(len(weights)), weights=weights, k=1)[0])
    add("uniform", [2.5, 7.5], rng.uniform(2.5, 7.5))
    for _ in range(2):  # state still in step after everything above
        add("genrand", [], rng.getrandbits(32))
    return out


cases = [{"seed": s, "ops": ops(random.Random(int(s)))} for s in SEEDS]
print("{")
print(' "note": ' + json.dumps("random.Random draws from CPython " + platform.python_version()
                              + " (Debian 12 python3), written by tests/core/python_random_vectors.py")
      + ",")
print(' "cases": [')
for i, case in enumerate(cases):
    print('  {"seed": "%s", "ops": [' % case["seed"])
    lines = ["   " + json.dumps(op) for op in case["ops"]]
    print(",\n".join(lines))
    print("  ]}" + ("," if i + 1 < len(cases) else ""))
print(" ]")
print("}")
