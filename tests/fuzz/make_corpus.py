#!/usr/bin/env python3
"""Writes the seed corpora tests/fuzz/corpus/<harness>/: small valid calls, encoded as the
decoder in fuzz_input.hpp reads them, so each harness starts from inputs the API accepts.
Deterministic; run it again after changing the decoder: python3 tests/fuzz/make_corpus.py"""
import os
import random
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(7)


def size(v):  # Input::size: s < 192 gives byte % 33, s < 224 gives 1 + u16 % 512
    return bytes([0, v]) if v <= 32 else bytes([192]) + struct.pack("<H", v - 1)


def small(x):  # k/16 with k an int8 (value() and real() share this encoding)
    return bytes([0, int(round(x * 16)) & 0xFF])


def raw_float(x):
    return bytes([208]) + struct.pack("<f", x)


def flag(b):
    return bytes([1 if b else 0])


def floats(values):  # length selector 0 (exact), then "how" = 255 (values from the input)
    out = bytes([0, 255])
    for x in values:
        out += small(x) if abs(x) < 7.9 and round(x * 16) == x * 16 else raw_float(x)
    return out


def randoms(n, spread=2.0):
    return [round(rng.uniform(-spread, spread) * 16) / 16 for _ in range(n)]


def softmax_corpus():
    seeds = []
    for op in range(6):
        for rows, cols in [(1, 1), (2, 3), (1, 4), (3, 5), (2, 8), (1, 9), (4, 17)]:
            n = rows * cols
            if op == 4:  # softmaxJacobian: flag 0, then byte % 70 is p's length
                p = [rng.random() for _ in range(cols)]
                s = sum(p)
                seeds.append(bytes([op]) + size(rows) + size(cols) + bytes([0, cols]) + floats([x / s for x in p]))
            elif op == 3:
                seeds.append(bytes([op]) + size(rows) + size(cols) + floats([0.25] * n) + floats(randoms(n)))
            else:
                seeds.append(bytes([op]) + size(rows) + size(cols) + floats(randoms(n, 4)))
    # softmax with a masked logit, logits where the naive formula overflows
    seeds.append(bytes([0]) + size(1) + size(3) + bytes([0, 255]) + small(1) + bytes([144, 6]) + small(2))
    seeds.append(bytes([1]) + size(1) + size(4) + floats([90.0, 95.0, 100.0, 99.5]))
    return seeds


def attention_args(nq, nk, dk, dv, causal=False, mask=False, bias=False, scale=None):
    flags = (1 if scale is not None else 0) | (2 if causal else 0) | (4 if mask else 0) | (8 if bias else 0)
    out = size(nq) + size(nk) + size(dk) + size(dv) + bytes([flags])
    if scale is not None:
        out += small(scale)
    out += floats(randoms(nq * dk)) + floats(randoms(nk * dk)) + floats(randoms(nk * dv))
    if mask:
        out += bytes([0, 2]) + bytes(rng.choice([1, 2]) for _ in range(nq * nk))  # byte % 3: 1, 2 keep
    if bias:
        out += floats(randoms(nq * nk, 1))
    return out


SHAPES = [(1, 1, 1, 1), (2, 3, 2, 2), (4, 4, 4, 4), (3, 5, 8, 2), (8, 8, 5, 3), (5, 9, 16, 4)]


def attention_corpus():
    seeds = []
    for i, shape in enumerate(SHAPES):
        seeds.append(bytes([0]) + attention_args(*shape))
        seeds.append(bytes([0]) + attention_args(*shape, causal=True, mask=i % 2 == 0, bias=i % 3 == 0, scale=0.5))
    for nq, nk, dk in [(1, 1, 1), (2, 3, 4), (5, 4, 9)]:  # scores
        seeds.append(bytes([1]) + size(nq) + size(nk) + size(dk) + small(0.5) + floats(randoms(nq * dk)) + floats(randoms(nk * dk)))
    for m, k, n in [(1, 1, 1), (2, 3, 4), (5, 8, 3)]:  # matmul
        seeds.append(bytes([2]) + size(m) + size(k) + size(n) + floats(randoms(m * k)) + floats(randoms(k * n)))
    for r, c in [(1, 1), (3, 4), (2, 9)]:  # rowDots
        seeds.append(bytes([3]) + size(r) + size(c) + floats(randoms(r * c)) + floats(randoms(r * c)))
    return seeds


def attention_backward_corpus():
    seeds = []
    for i, (nq, nk, dk, dv) in enumerate(SHAPES):
        for variant in range(2):
            args = attention_args(nq, nk, dk, dv, causal=variant == 1, mask=variant == 1 and i % 2 == 0,
                                  bias=variant == 1 and i % 3 == 0, scale=0.25 if variant else None)
            seeds.append(args + floats(randoms(nq * dv)))
    return seeds


def sampling_corpus():
    seeds = []
    default_dist = lambda kind: bytes([0, kind, 0, 0, 0])  # kind byte % 4; mean, std, df defaults
    for kind in range(4):
        for dk, count in [(1, 4), (4, 8), (16, 3), (64, 2)]:
            seeds.append(bytes([0]) + default_dist(kind) + size(dk) + size(count) + bytes([0, 1, 0, 0]) + flag(0) + flag(0))
    seeds.append(bytes([0]) + default_dist(0) + size(8) + size(5) + bytes([0, 3, 0, 2]) + flag(1) + small(0.5) + flag(1))
    for dk, n, rows in [(1, 1, 1), (4, 8, 3), (16, 5, 2), (64, 9, 2)]:
        seeds.append(bytes([1]) + size(dk) + size(n) + size(rows) + small(0.125) + bytes([0, 1, 0, 0]))
    for kind in range(4):
        seeds.append(bytes([2]) + default_dist(kind) + size(10) + bytes([0, 1, 0, 2]))
    for n, bins in [(1, 1), (5, 4), (20, 8)]:
        seeds.append(bytes([3]) + size(n) + floats(randoms(n, 5)) + size(bins) + flag(0) + flag(0))
    for rows, cols in [(1, 1), (2, 3), (3, 4)]:
        seeds.append(bytes([5]) + size(rows) + size(cols) + floats(randoms(rows * cols, 7)))
    return seeds


def train_corpus():
    seeds = []
    defaults = bytes(6) + bytes([0, 0]) + bytes([0]) + bytes(8)  # the harness's small model, API options
    api_sizes = bytes([224, 192, 63, 0, 128, 15, 128, 15, 128, 7, 128, 7, 128, 15]) + bytes([0, 0]) + bytes([0]) + bytes(8)  # dk 64 dv 16 dx 16 C 8 L 8 B 16
    small_model = bytes([128, 3, 128, 3, 128, 3, 128, 2, 128, 3, 128, 3])  # dk dv dx C L B = 4 4 4 3 4 4 + bytes([0, 0]) + bytes([0]) + bytes(8)
    sgd_custom = bytes([128, 7, 128, 1, 128, 3, 128, 1, 128, 5, 128, 2])  # 8 2 4 2 6 3 + bytes([0, 0]) + bytes([192, 0, 3]) + bytes(8)
    seeds.append(api_sizes + bytes([1, 0, 0, 0]))                         # the API's default sizes, one step
    for create in (defaults, small_model, sgd_custom):
        seeds.append(create)                                            # create, dispose at the end
        seeds.append(create + bytes([1, 0, 0, 1]) + bytes([2, 0, 0, 0, 0, 0]))  # step(2), curves(0, 0)
        seeds.append(create + bytes([1, 0, 0, 0]) + bytes([5, 0, 3]))           # step(1), replay variant 3
        # step(3), reset, curves(1, 0), dispose, reset of the disposed handle (refused)
        seeds.append(create + bytes([1, 0, 0, 2, 3, 0, 2, 0, 0, 1, 0, 0, 4, 0, 3, 0]))
    seeds.append(small_model + bytes([0]) + small_model + bytes([1, 1, 0, 0, 4, 0, 1, 0, 0, 0]))  # two trainers
    return seeds


def main():
    for harness, seeds in [("softmax", softmax_corpus()), ("attention", attention_corpus()),
                           ("attention_backward", attention_backward_corpus()),
                           ("sampling", sampling_corpus()), ("train_step", train_corpus())]:
        folder = os.path.join(HERE, "corpus", harness)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        for i, seed in enumerate(seeds):
            with open(os.path.join(folder, "seed-%02d" % i), "wb") as f:
                f.write(seed)
        print("%-20s %d seeds" % (harness, len(seeds)))


if __name__ == "__main__":
    main()
