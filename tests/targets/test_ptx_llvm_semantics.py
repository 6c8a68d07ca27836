"""The meaning of the emitted LLVM IR, checked by running it on the host CPU.

Everything but the `ptx` ops is target independent, so the IR `emit_llvm_ir` prints
for arith, branches and block arguments can be JIT-compiled by llvmlite for this machine
and called through ctypes: the rounding divisions, comparisons, casts and phis are
compared with Python's arithmetic over a grid of values including the sign and
overflow edges.
"""

from __future__ import annotations

import ctypes
import itertools
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import llvmlite.binding as llvm
import numpy as np
import pytest
from xdsl.parser import Parser

from compiler.registry import make_context
from dialects.ptx.arch import Arch
from targets.ptx.llvm_ir import emit_llvm_ir

_C = {"i1": ctypes.c_bool, "i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32,
      "i64": ctypes.c_int64, "index": ctypes.c_int64, "f32": ctypes.c_float, "f64": ctypes.c_double}


@contextmanager
def host_function(mlir: str, name: str, result: str, arguments: list[str]) -> Iterator[Callable[..., object]]:
    """JIT-compile the LLVM IR emitted for `mlir` for the host and yield @name as a Python callable."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    ir = emit_llvm_ir(Parser(make_context(), mlir).parse_module(), Arch.SM_80)
    ir = ir.replace('target triple = "nvptx64-nvidia-cuda"', f'target triple = "{llvm.get_process_triple()}"')
    module = llvm.parse_assembly(ir)
    module.verify()
    machine = llvm.Target.from_default_triple().create_target_machine()
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    prototype = ctypes.CFUNCTYPE(_C[result], *[_C[a] for a in arguments])
    yield prototype(engine.get_function_address(name))
    del engine


def _binary(op: str, type_: str = "i32") -> str:
    return f"""
func.func @f(%a: {type_}, %b: {type_}) -> {type_} {{
  %r = {op} %a, %b : {type_}
  func.return %r : {type_}
}}
"""


SIGNED = [-2**31, -2**31 + 1, -100, -7, -6, -5, -1, 0, 1, 5, 6, 7, 100, 2**31 - 1]


def _wrap32(x: int) -> int:
    return (x + 2**31) % 2**32 - 2**31


def _trunc_div(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return -quotient if (a < 0) != (b < 0) else quotient


@pytest.mark.parametrize(("op", "expected"), [
    ("arith.ceildivsi", lambda a, b: _wrap32(-((-a) // b))),
    ("arith.floordivsi", lambda a, b: _wrap32(a // b)),
    ("arith.divsi", lambda a, b: _wrap32(_trunc_div(a, b))),
    ("arith.remsi", lambda a, b: a - b * _trunc_div(a, b)),
])
def test_signed_divisions(op: str, expected: Callable[[int, int], int]) -> None:
    with host_function(_binary(op), "f", "i32", ["i32", "i32"]) as f:
        for a, b in itertools.product(SIGNED, SIGNED):
            if b == 0 or (a == -2**31 and b == -1):
                continue  # undefined behaviour in LLVM and MLIR alike
            assert f(a, b) == expected(a, b), (op, a, b)


def test_ceildivui() -> None:
    values = [0, 1, 2, 3, 7, 8, 9, 2**31, 2**32 - 1]
    with host_function(_binary("arith.ceildivui"), "f", "i32", ["i32", "i32"]) as f:
        for a, b in itertools.product(values, values):
            if b == 0:
                continue
            assert f(_wrap32(a), _wrap32(b)) % 2**32 == -(-a // b), (a, b)


@pytest.mark.parametrize(("predicate", "expected"), [
    ("eq", lambda a, b: a == b), ("ne", lambda a, b: a != b), ("slt", lambda a, b: a < b),
    ("sle", lambda a, b: a <= b), ("sgt", lambda a, b: a > b), ("sge", lambda a, b: a >= b),
    ("ult", lambda a, b: a % 2**32 < b % 2**32), ("ule", lambda a, b: a % 2**32 <= b % 2**32),
    ("ugt", lambda a, b: a % 2**32 > b % 2**32), ("uge", lambda a, b: a % 2**32 >= b % 2**32),
])
def test_cmpi_predicates(predicate: str, expected: Callable[[int, int], bool]) -> None:
    text = f"""
func.func @f(%a: i32, %b: i32) -> i32 {{
  %c = arith.cmpi {predicate}, %a, %b : i32
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %r = arith.select %c, %one, %zero : i32
  func.return %r : i32
}}
"""
    with host_function(text, "f", "i32", ["i32", "i32"]) as f:
        for a, b in itertools.product([-5, -1, 0, 1, 5], repeat=2):
            assert f(a, b) == int(expected(a, b)), (predicate, a, b)


@pytest.mark.parametrize(("predicate", "expected"), [
    ("oeq", lambda a, b: a == b), ("olt", lambda a, b: a < b), ("ord", lambda a, b: not (math.isnan(a) or math.isnan(b))),
    ("ult", lambda a, b: math.isnan(a) or math.isnan(b) or a < b), ("une", lambda a, b: not a == b),
    ("uno", lambda a, b: math.isnan(a) or math.isnan(b)),
])
def test_cmpf_predicates_with_nan(predicate: str, expected: Callable[[float, float], bool]) -> None:
    text = f"""
func.func @f(%a: f32, %b: f32) -> i1 {{
  %c = arith.cmpf {predicate}, %a, %b : f32
  func.return %c : i1
}}
"""
    with host_function(text, "f", "i1", ["f32", "f32"]) as f:
        for a, b in itertools.product([-1.0, 0.0, 2.5, math.nan], repeat=2):
            assert f(a, b) == expected(a, b), (predicate, a, b)


def test_casts_and_min_max() -> None:
    text = """
func.func @f(%a: i8, %b: i32) -> i64 {
  %s = arith.extsi %a : i8 to i32
  %u = arith.extui %a : i8 to i32
  %mx = arith.maxsi %s, %b : i32
  %mn = arith.minui %u, %b : i32
  %sum = arith.addi %mx, %mn : i32
  %i = arith.index_cast %sum : i32 to index
  %r = arith.index_cast %i : index to i64
  func.return %r : i64
}
"""
    with host_function(text, "f", "i64", ["i8", "i32"]) as f:
        for a, b in itertools.product([-128, -1, 0, 1, 127], [-300, -1, 0, 1, 300]):
            assert f(a, b) == _wrap32(max(a, b) + min(a % 256, b % 2**32)), (a, b)


def test_float_int_conversions() -> None:
    # (f16 and bf16 would need compiler-rt helpers that a bare host JIT does not link.)
    text = """
func.func @f(%x: f32, %k: i32) -> i32 {
  %d = arith.extf %x : f32 to f64
  %kf = arith.sitofp %k : i32 to f64
  %scaled = arith.mulf %d, %kf : f64
  %n = arith.negf %scaled : f64
  %back = arith.truncf %n : f64 to f32
  %i = arith.fptosi %back : f32 to i32
  %u = arith.uitofp %k : i32 to f32
  %j = arith.fptoui %u : f32 to i32
  %r = arith.addi %i, %j : i32
  func.return %r : i32
}
"""
    with host_function(text, "f", "i32", ["f32", "i32"]) as f:
        for x, k in itertools.product((0.0, 1.0, 2.75, -3.5, 1000.25), (0, 1, 3, 100)):
            assert f(x, k) == math.trunc(-(float(np.float32(x)) * k)) + k, (x, k)


LOOP = """
func.func @sum_below(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %empty = arith.cmpi sle, %n, %c0 : i32
  cf.cond_br %empty, ^exit(%c0 : i32), ^loop(%c0, %c0 : i32, i32)
^loop(%i: i32, %acc: i32):
  %acc2 = arith.addi %acc, %i : i32
  %i2 = arith.addi %i, %c1 : i32
  %more = arith.cmpi slt, %i2, %n : i32
  cf.cond_br %more, ^loop(%i2, %acc2 : i32, i32), ^exit(%acc2 : i32)
^exit(%result: i32):
  func.return %result : i32
}
"""


def test_loop_with_block_arguments_computes_the_sum() -> None:
    with host_function(LOOP, "sum_below", "i32", ["i32"]) as f:
        for n in (-3, 0, 1, 2, 10, 1000):
            assert f(n) == sum(range(max(n, 0))), n


def test_branch_to_one_block_with_different_arguments() -> None:
    text = """
func.func @pick(%c: i1, %a: i32, %b: i32) -> i32 {
  cf.cond_br %c, ^join(%a, %b : i32, i32), ^join(%b, %a : i32, i32)
^join(%x: i32, %y: i32):
  %r = arith.subi %x, %y : i32
  func.return %r : i32
}
"""
    with host_function(text, "pick", "i32", ["i1", "i32", "i32"]) as f:
        assert f(True, 10, 3) == 7
        assert f(False, 10, 3) == -7


def test_forward_references_across_blocks() -> None:
    # ^use comes first in the region but is reached from ^def, so names must not depend on print order.
    text = """
func.func @f(%a: i32) -> i32 {
  cf.br ^def
^use(%v: i32):
  %r = arith.muli %v, %w : i32
  func.return %r : i32
^def:
  %w = arith.addi %a, %a : i32
  cf.br ^use(%w : i32)
}
"""
    with host_function(text, "f", "i32", ["i32"]) as f:
        assert f(3) == 36
