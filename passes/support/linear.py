"""Layouts as linear maps over GF(2), derived from the one layout function per encoding.

Every layout qdot uses on power-of-two tiles — the mma accumulator, dot operands,
blocked layouts, swizzled and fp4-padded shared memory — maps the bits of
(register, lane, warp) to the bits of a coordinate or a byte offset by XOR-ing one
fixed vector per input bit (Triton's "linear layouts"). The lowering exploits it:
a thread's address for register r is ``base(lane, warp) XOR C[r]``, with the base
computed once per thread and C[r] a compile-time constant; when the bits of C[r]
never overlap the base's, the XOR is an addition that folds into the
instruction's immediate offset.

Nothing here knows a layout: ``LinearMap.from_function`` evaluates the encoding's
own layout function (dialects/qgpu/layouts.py) on single-bit inputs, and
``check_linear`` verifies on every input that the function really is linear.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import product


def bit_width(n: int) -> int:
    """Number of bits of an index ranging over ``range(n)``; n must be a power of two."""
    if n < 1 or n & (n - 1):
        raise ValueError(f"{n} is not a power of two")
    return n.bit_length() - 1


@dataclass(frozen=True)
class LinearMap:
    """f(inputs) = XOR over every set bit b of input `name` of bases[name][b].

    Outputs are integers (a packed coordinate or a byte offset).
    """

    sizes: tuple[tuple[str, int], ...]  # (input name, range size) in a fixed order
    bases: tuple[tuple[int, ...], ...]  # per input, one image per bit

    @staticmethod
    def from_function(sizes: Mapping[str, int], function: Callable[..., int]) -> "LinearMap":
        names = tuple(sizes)
        zero = {name: 0 for name in names}
        origin = function(**zero)
        if origin != 0:
            raise ValueError(f"layout is not linear: f(0) = {origin}")
        bases: list[tuple[int, ...]] = []
        for name in names:
            images = []
            for bit in range(bit_width(sizes[name])):
                images.append(function(**{**zero, name: 1 << bit}))
            bases.append(tuple(images))
        return LinearMap(tuple((n, sizes[n]) for n in names), tuple(bases))

    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.sizes)

    def basis(self, name: str) -> tuple[int, ...]:
        return self.bases[self.names().index(name)]

    def apply(self, **inputs: int) -> int:
        result = 0
        for (name, _), images in zip(self.sizes, self.bases, strict=True):
            value = inputs.get(name, 0)
            for bit, image in enumerate(images):
                if value >> bit & 1:
                    result ^= image
        return result

    def partial(self, name: str, value: int) -> int:
        """The contribution of one input alone."""
        result = 0
        for bit, image in enumerate(self.basis(name)):
            if value >> bit & 1:
                result ^= image
        return result

    def span_mask(self, name: str) -> int:
        """OR of the images of one input's bits: which output bits it can touch."""
        mask = 0
        for image in self.basis(name):
            mask |= image
        return mask

    def inputs(self) -> Iterator[dict[str, int]]:
        for values in product(*(range(size) for _, size in self.sizes)):
            yield dict(zip(self.names(), values, strict=True))


def check_linear(sizes: Mapping[str, int], function: Callable[..., int], linear: LinearMap) -> None:
    """Raise ValueError unless ``function`` equals ``linear`` on every input (used by tests)."""
    for inputs in linear.inputs():
        expected = function(**inputs)
        got = linear.apply(**inputs)
        if expected != got:
            raise ValueError(f"layout is not linear at {inputs}: function gives {expected}, XOR of bases {got}")


def pack_coords(coords: Sequence[int], shape: Sequence[int]) -> int:
    """Row-major packing of power-of-two coordinates into one integer (bit concatenation)."""
    packed = 0
    for coord, size in zip(coords, shape, strict=True):
        packed = (packed << bit_width(size)) | coord
    return packed


def unpack_coords(packed: int, shape: Sequence[int]) -> tuple[int, ...]:
    coords = []
    for size in reversed(shape):
        bits = bit_width(size)
        coords.append(packed & ((1 << bits) - 1))
        packed >>= bits
    return tuple(reversed(coords))
