"""Experiment: which arithmetic reproduces the H200's floating-point mma / wgmma (run 122).

    python -m bench.experiments.tensor_core_fit DIR [DIR ...]   # the .npz files of tensor_core_probe

For each form, how many D elements differ from the H200's: the exact sum rounded once
to f32 (the emulator's model before run 122); ``compiler.numerics.tensor_core`` (the model it
has now); and that model with one parameter moved — one fraction bit more or less, the product's
own exponent instead of the sum of the inputs' exponents, subnormal inputs at their own
exponent, the fp8 result kept to 23 or 12 bits, the k products in two steps of half the size,
the fp8 mma.sync's two f16 halves split as k < 16 / k ≥ 16 — so that each parameter is seen
pinned by the data, not merely consistent with it.
"""

from __future__ import annotations

import argparse
import zlib
from pathlib import Path
from dataclasses import dataclass

import numpy as np

from compiler.numerics.tensor_core import (BF16_STEP, FP8_TYPES, FP8_WGMMA_STEP, NUMERICS_FORMAT,
                                           smallest_exponent, tensor_core_dot)


@dataclass(frozen=True)
class Variant:
    """The search space: one fused step (or ``steps`` chained ones) with these knobs."""

    terms: int
    fraction_bits: int
    result_bits: int = 23
    own_exponent: bool = False
    """Align to the products' own exponents (floor log2 |a·b|) instead of e(a) + e(b)."""
    subnormal_exponent: bool = True
    """A subnormal input counts at the format's smallest normal exponent."""
    halves: str = "mod4"
    """fp8 mma.sync on sm_90: the two f16 steps take k mod 4 < 2 first ("mod4") or k < 16 first ("low")."""


def _exponent(x: np.ndarray, smallest: int | None) -> np.ndarray:
    _, e = np.frexp(x)
    e = e.astype(np.int64) - 1
    if smallest is not None:
        e = np.maximum(e, smallest)
    return np.where(x == 0, -(1 << 20), e)


def _step(a: np.ndarray, b: np.ndarray, c: np.ndarray, v: Variant, smallest: tuple[int, int]) -> np.ndarray:
    """``smallest``: the exponents of A's and B's subnormals (their formats' smallest normal one)."""
    p = a * b
    if v.own_exponent:
        e = _exponent(p, None)
    else:
        floor_a, floor_b = smallest if v.subnormal_exponent else (None, None)
        e = np.where(p == 0, -(1 << 20), _exponent(a, floor_a) + _exponent(b, floor_b))
    top = np.maximum(e.max(axis=-1), _exponent(c, None))
    shift = np.clip(v.fraction_bits - top, -2000, 2000)
    total = np.ldexp(np.trunc(np.ldexp(p, shift[..., None])).sum(axis=-1) + np.trunc(np.ldexp(c, shift)), -shift)
    r = total.astype(np.float32)
    r = np.where(np.abs(r.astype(np.float64)) > np.abs(total), np.nextafter(r, np.float32(0)), r).astype(np.float32)
    if v.result_bits < 23:
        r = (r.view(np.uint32) & np.uint32((0xFFFFFFFF << (23 - v.result_bits)) & 0xFFFFFFFF)).view(np.float32)
    return r.astype(np.float64)


def types_of(type_: str) -> tuple[str, str]:
    """(A's type, B's type) of a probe form's type: "e4m3" → both e4m3, "e4m3_e5m2" → mixed."""
    a_type, _, b_type = type_.partition("_")
    return a_type, b_type or a_type


def evaluate(instruction: str, type_: str, a: np.ndarray, b: np.ndarray, c: np.ndarray, v: Variant) -> np.ndarray:
    c = c.astype(np.float64)
    k = a.shape[-1]
    types = types_of(type_)
    if instruction == "mma" and set(types) <= set(FP8_TYPES):
        idx = np.arange(k)
        first = idx[idx % 4 < 2] if v.halves == "mod4" else idx[:16]
        second = np.setdiff1d(idx, first)
        f16 = (smallest_exponent("f16"),) * 2
        partial = _step(a[..., first], b[..., first], np.zeros_like(c), v, f16)
        return (_step(a[..., second], b[..., second], partial, v, f16).astype(np.float32)
                + c.astype(np.float32)).astype(np.float32)
    acc = c
    for s in range(0, k, v.terms):
        acc = _step(a[..., s:s + v.terms], b[..., s:s + v.terms], acc, v,
                    (smallest_exponent(types[0]), smallest_exponent(types[1])))
    return acc.astype(np.float32)


def variants(instruction: str, type_: str) -> dict[str, Variant]:
    fp8 = set(types_of(type_)) <= set(FP8_TYPES)
    base = FP8_WGMMA_STEP if instruction == "wgmma" and fp8 else BF16_STEP
    v = Variant(base.terms, base.fraction_bits, base.result_bits)
    out = {"fraction bits + 1": Variant(v.terms, v.fraction_bits + 1, v.result_bits),
           "fraction bits - 1": Variant(v.terms, v.fraction_bits - 1, v.result_bits),
           "own exponent": Variant(v.terms, v.fraction_bits, v.result_bits, own_exponent=True),
           "subnormals at their exponent": Variant(v.terms, v.fraction_bits, v.result_bits, subnormal_exponent=False),
           "two steps of half": Variant(v.terms // 2, v.fraction_bits, v.result_bits)}
    if base is FP8_WGMMA_STEP:
        out["result 23 bits"] = Variant(v.terms, v.fraction_bits, 23)
        out["result 12 bits"] = Variant(v.terms, v.fraction_bits, 12)
    if instruction == "mma" and fp8:
        del out["two steps of half"]
        out["halves k < 16 first"] = Variant(v.terms, v.fraction_bits, halves="low")
    return out


def forms(directories: list[str]) -> list[tuple[str, str, str]]:
    """(name, instruction, operand type) of each form with a probe file in ``directories``
    (``mma_bf16.npz``, ``wgmma_e4m3_e5m2.npz`` …)."""
    names = sorted({p.stem for d in directories for p in Path(d).glob("*.npz")
                    if p.stem.split("_")[0] in ("mma", "wgmma")})
    return [(name, *name.split("_", 1)) for name in names]


def measured(directories: list[str], name: str) -> dict[str, np.ndarray]:
    """Form ``name``'s elements, from every directory that has them (runs with other
    distributions), one after the other."""
    runs = [np.load(path) for d in directories if (path := Path(d) / f"{name}.npz").exists()]
    return {key: np.concatenate([z[key] for z in runs]) for key in ("a", "b", "c", "d", "dist")}


def fixture(directories: list[str], out: str, per_distribution: int = 24, seed: int = 0) -> None:
    """Write ``out`` (.npz): for each form, ``per_distribution`` elements of D per distribution pair
    — first those that one rounding or a moved parameter gets wrong, so each one tests the model —
    as operand codes, C and the H200's D (tests/numerics/test_tensor_core.py replays them). Each
    form draws from its own generator (``seed`` and the form's name), so that adding a form leaves
    the others' elements as they were."""
    from compiler import numerics

    arrays: dict[str, np.ndarray] = {}
    for name, instruction, type_ in forms(directories):
        rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
        z = measured(directories, name)
        a, b, c, d = z["a"].astype(np.float64), z["b"].astype(np.float64), z["c"], z["d"]
        rows, cols = a[:, :, None, :], b[:, None, :, :]
        with np.errstate(invalid="ignore", over="ignore"):
            wrong = (np.einsum("cmk,cnk->cmn", a, b) + c).astype(np.float32).view(np.uint32) != d.view(np.uint32)
            for v in variants(instruction, type_).values():
                wrong |= evaluate(instruction, type_, rows, cols, c, v).view(np.uint32) != d.view(np.uint32)
        cases, m, n = d.shape
        dist = np.repeat(z["dist"], m * n)
        picked = []
        for name_dist in np.unique(dist):
            here = np.flatnonzero(dist == name_dist)
            telling = rng.permutation(here[wrong.reshape(-1)[here]])
            rest = rng.permutation(here[~wrong.reshape(-1)[here]])
            picked.extend(np.concatenate([telling, rest])[:per_distribution])
        at = np.unravel_index(np.sort(np.array(picked)), d.shape)
        a_type, b_type = types_of(type_)
        arrays[f"{name}_a"] = numerics.encode(NUMERICS_FORMAT[a_type], a[at[0], at[1]])
        arrays[f"{name}_b"] = numerics.encode(NUMERICS_FORMAT[b_type], b[at[0], at[2]])
        arrays[f"{name}_c"] = c[at]
        arrays[f"{name}_d"] = d[at]
        arrays[f"{name}_dist"] = z["dist"][at[0]]
    np.savez_compressed(out, **arrays)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directories", nargs="+", metavar="DIR",
                        help="where tensor_core_probe wrote its .npz files (several: their elements together)")
    parser.add_argument("--fixture", metavar="OUT", help="also write the test fixture (tests/numerics/data)")
    args = parser.parse_args()
    if args.fixture:
        fixture(args.directories, args.fixture)
    for name, instruction, type_ in forms(args.directories):
        z = measured(args.directories, name)
        a, b, c, d = z["a"].astype(np.float64), z["b"].astype(np.float64), z["c"], z["d"]
        rows, cols = a[:, :, None, :], b[:, None, :, :]
        differ = lambda got: int(np.sum(got.view(np.uint32) != d.view(np.uint32)))  # noqa: E731
        with np.errstate(invalid="ignore", over="ignore"):
            once = (np.einsum("cmk,cnk->cmn", a, b) + c).astype(np.float32)
            model = tensor_core_dot(instruction, types_of(type_), rows, cols, c)
            line = [f"{name}: elements differing from the H200's, of {d.size}: one rounding {differ(once)}, "
                    f"model {differ(model)}"]
            line += [f"{label} {differ(evaluate(instruction, type_, rows, cols, c, v))}"
                     for label, v in variants(instruction, type_).items()]
        equal = model.view(np.uint32) == d.view(np.uint32)
        worst = {dist: float(equal[z["dist"] == dist].mean()) for dist in np.unique(z["dist"])}
        print("; ".join(line))
        print(f"  model by distribution, lowest: {min(worst.values()):.6f} ({min(worst, key=worst.get)})")


if __name__ == "__main__":
    main()
