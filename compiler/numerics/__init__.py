"""Numpy references of every format qdot handles, by format name: the ground truth.

GPU results and the AGX emulator are compared against these functions, so each
rule is implemented from its definition (PTX ISA, OCP MX, ggml sources; cited in
each module) and tested against independent oracles (ml_dtypes, hand-built blocks,
straightforward float64 products).

* ``formats``   — ``FORMATS`` / ``format_info(name)``: bits, values and bytes per block (the table
  of ``compiler/format_table.py``, re-exported).
* ``element``   — ``decode``, ``encode``, ``pack_fp4``, ``unpack_fp4`` (small floats).
* ``blocks``    — ``dequantize``, ``block_fields``, ``pack_blocks`` (ggml layouts); ``e8m0_half`` and
  ``MXFP4_KVALUES``, mxfp4's scale and code values; ``IQ4NL_KVALUES``, iq4_nl's and iq4_xs's code values.
* ``quantize``  — ``quantize(fmt, x, method=...)`` with ggml's / llama.cpp CUDA's rounding (the K-quant
  and iq4 searches in ``q2k`` .. ``q6k`` and ``iq4nl``).
* ``reference`` — ``dot_scaled``: the float64 meaning of ``qdot.dot_scaled``.
* ``tensor_core`` — ``tensor_core_dot``: what one floating-point mma.sync / wgmma of an H200
  computes, bit for bit (measured; the emulator's arithmetic for those instructions).
"""

from __future__ import annotations

from compiler.format_table import IQ4NL_KVALUES, MXFP4_KVALUES
from compiler.numerics.blocks import (
    BlockFields,
    IQ4XSFields,
    Q2KFields,
    Q3KFields,
    Q4KFields,
    Q5KFields,
    Q6KFields,
    Q8Fields,
    Q41Fields,
    Q51Fields,
    block_fields,
    dequantize,
    e8m0_half,
    pack_blocks,
)
from compiler.numerics.element import decode, encode, pack_fp4, unpack_fp4
from compiler.numerics.formats import (
    ELEMENT_FORMATS,
    FORMATS,
    SCALE_GROUP,
    ElementCoding,
    FormatInfo,
    FormatKind,
    NanRule,
    format_info,
)
from compiler.numerics.quantize import QuantizeMethod, quantize
from compiler.numerics.reference import dot_scaled

__all__ = [
    "ELEMENT_FORMATS",
    "FORMATS",
    "IQ4NL_KVALUES",
    "MXFP4_KVALUES",
    "SCALE_GROUP",
    "BlockFields",
    "ElementCoding",
    "FormatInfo",
    "FormatKind",
    "IQ4XSFields",
    "NanRule",
    "Q2KFields",
    "Q3KFields",
    "Q4KFields",
    "Q5KFields",
    "Q6KFields",
    "Q8Fields",
    "Q41Fields",
    "Q51Fields",
    "QuantizeMethod",
    "block_fields",
    "decode",
    "dequantize",
    "dot_scaled",
    "e8m0_half",
    "encode",
    "format_info",
    "pack_blocks",
    "pack_fp4",
    "quantize",
    "unpack_fp4",
]
