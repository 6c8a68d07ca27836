"""The values the seed (004) states for the MMA fields, restated here on purpose.

The vector files pin whole instructions, but ``python -m targets.agx.vectors --update`` rewrites
them from the encoder, so they cannot catch a value that changed in the encoder itself (swap the
fp16 and fp32 codes and every other test still passed). These are the seed's own words — "1 =
fp16, 2 = fp32", "2 = accumulate, 1 = simdgroup_multiply", registers in "16-bit units" — checked
on what the encoder produces, field by field and in the encoded bytes where the seed states the
bit (accumulate at 88).
"""

from __future__ import annotations

import pytest

from targets.agx.fields import FieldKey
from targets.agx.forms import AGX3B, FORMS
from targets.agx.mma8 import ElemType, Mma8, encode_mma8, field_values


@pytest.mark.parametrize("form", list(FORMS))
def test_type_codes_are_the_seeds(form: str) -> None:
    fp16 = field_values(Mma8(d=0, a=2, b=4, c=6, a_type=ElemType.FP16), form)
    fp32 = field_values(Mma8(d=0, a=2, b=4, c=6, a_type=ElemType.FP32), form)
    assert (fp16[FieldKey.A_TYPE], fp32[FieldKey.A_TYPE]) == (1, 2)  # "1 = fp16, 2 = fp32"
    assert fp16[FieldKey.CD_TYPE] == fp32[FieldKey.CD_TYPE] == 2  # "C/D is fp32"
    if FORMS[form].separate_b_type:
        mixed = field_values(Mma8(d=0, a=2, b=4, c=6, a_type=ElemType.FP16, b_type=ElemType.FP32), form)
        assert (mixed[FieldKey.A_TYPE], mixed[FieldKey.B_TYPE]) == (1, 2)


@pytest.mark.parametrize("form", list(FORMS))
def test_mode_values_are_the_seeds(form: str) -> None:
    accumulate = field_values(Mma8(d=0, a=2, b=4, c=6), form)
    multiply = field_values(Mma8(d=0, a=2, b=4, accumulate=False), form)
    assert (accumulate[FieldKey.MODE], multiply[FieldKey.MODE]) == (2, 1)  # "2 = accumulate, 1 = multiply"


@pytest.mark.parametrize("form", list(FORMS))
def test_registers_are_in_16_bit_units(form: str) -> None:
    values = field_values(Mma8(d=8, a=16, b=24, c=40, a_type=ElemType.FP32), form)
    assert [values[k] for k in (FieldKey.D_REG, FieldKey.A_REG, FieldKey.B_REG, FieldKey.C_REG)] == [16, 32, 48, 80]


def test_accumulate_is_bit_88_of_the_agx3b_bytes() -> None:
    def bit88(desc: Mma8) -> int:
        return int.from_bytes(encode_mma8(desc, AGX3B), "little") >> 88 & 1

    assert bit88(Mma8(d=0, a=2, b=4, c=6)) == 1
    assert bit88(Mma8(d=0, a=2, b=4, accumulate=False)) == 0
