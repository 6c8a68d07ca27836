"""How the emulator stores one SSA value of every thread of a CTA.

A value of a scalar type is a numpy array of shape ``[threads]``; a value of a 1-D
vector type is ``[threads, lanes]``. Integers are stored as their bit pattern in an
unsigned dtype of their width (i1 as bool, ``index`` as 64 bits, as in the LLVM the
kernels become), so additions and multiplications wrap the way the hardware's do and
signed operations reinterpret with ``.view``. f16 / f32 / f64 use numpy's IEEE types;
bf16, which numpy lacks, is stored as its 16-bit pattern and converted exactly to
float32 whenever arithmetic needs its value.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    VectorType,
)
from xdsl.ir import Attribute

from targets.ptx.emulator.errors import EmulationError
from targets.ptx.emulator.numbers import bf16_bits_to_f32


class Kind(StrEnum):
    INT = "int"
    FLOAT = "float"
    BF16 = "bf16"


@dataclass(frozen=True)
class RegType:
    """The storage of one IR type: element kind and width, vector lanes (0 = scalar)."""

    kind: Kind
    bits: int
    lanes: int = 0

    @property
    def dtype(self) -> np.dtype:
        if self.kind is Kind.INT:
            if self.bits == 1:
                return np.dtype(np.bool_)
            return np.dtype({8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[self.bits])
        if self.kind is Kind.BF16:
            return np.dtype(np.uint16)
        return np.dtype({16: np.float16, 32: np.float32, 64: np.float64}[self.bits])

    @property
    def signed_dtype(self) -> np.dtype:
        """The signed integer dtype of the same width (for signed compares, divisions, shifts)."""
        return np.dtype({8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}[self.bits])

    @property
    def element(self) -> RegType:
        return RegType(self.kind, self.bits)

    @property
    def byte_size(self) -> int:
        if self.bits == 1:
            raise EmulationError("i1 values have no memory representation")
        return self.bits // 8 * max(self.lanes, 1)

    def shape(self, threads: int) -> tuple[int, ...]:
        return (threads, self.lanes) if self.lanes else (threads,)


_INT_WIDTHS = (1, 8, 16, 32, 64)


def reg_type(type_: Attribute) -> RegType:
    """The storage of `type_`, or EmulationError for a type no kernel register can have."""
    if isinstance(type_, VectorType):
        if type_.get_num_dims() != 1:
            raise EmulationError(f"only 1-D vectors live in registers, got {type_}")
        element = reg_type(type_.get_element_type())
        return RegType(element.kind, element.bits, type_.get_shape()[0])
    if isinstance(type_, IndexType):
        return RegType(Kind.INT, 64)
    if isinstance(type_, IntegerType):
        width = type_.width.data
        if width not in _INT_WIDTHS:
            raise EmulationError(f"integer width {width} is not emulated (i1/i8/i16/i32/i64/index)")
        return RegType(Kind.INT, width)
    if isinstance(type_, BFloat16Type):
        return RegType(Kind.BF16, 16)
    if isinstance(type_, Float16Type):
        return RegType(Kind.FLOAT, 16)
    if isinstance(type_, Float32Type):
        return RegType(Kind.FLOAT, 32)
    if isinstance(type_, Float64Type):
        return RegType(Kind.FLOAT, 64)
    raise EmulationError(f"type {type_} is not emulated")


def to_bytes(value: np.ndarray, rt: RegType) -> np.ndarray:
    """[threads, byte_size] uint8: the little-endian register bytes of every thread."""
    threads = value.shape[0]
    data = np.ascontiguousarray(value, dtype=rt.dtype)
    return data.view(np.uint8).reshape(threads, rt.byte_size)


def from_bytes(data: np.ndarray, rt: RegType) -> np.ndarray:
    """Inverse of `to_bytes`: [threads, byte_size] uint8 -> the value of type `rt`."""
    threads = data.shape[0]
    return np.ascontiguousarray(data, dtype=np.uint8).view(rt.dtype).reshape(rt.shape(threads)).copy()


def float_value(value: np.ndarray, rt: RegType) -> np.ndarray:
    """The numeric value of a float register as numpy float (bf16 -> exact float32)."""
    if rt.kind is Kind.BF16:
        return bf16_bits_to_f32(value)
    return value


def constant_array(value: int | float, rt: RegType, threads: int) -> np.ndarray:
    """Every thread holding `value` (an int is taken modulo 2^width; a float rounds once)."""
    shape = rt.shape(threads)
    if rt.kind is Kind.INT:
        if rt.bits == 1:
            return np.full(shape, bool(int(value) & 1))
        return np.full(shape, int(value) % (1 << rt.bits), dtype=rt.dtype)
    if rt.kind is Kind.BF16:
        from targets.ptx.emulator.numbers import f64_to_bf16_bits

        return np.full(shape, f64_to_bf16_bits(np.array([float(value)]))[0], dtype=np.uint16)
    return np.full(shape, value, dtype=rt.dtype)
