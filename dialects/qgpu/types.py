"""``!qgpu.memdesc``: a shared-memory buffer (Triton's ``!ttg.memdesc``).

    !qgpu.memdesc<64x128xi8, #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
    !qgpu.memdesc<3x64x128xi8, #qgpu.shared<{...}>, mutable>

The shape is the logical tile; dimensions in front of the encoding's rank are
pipeline stages (``qgpu.memdesc_index`` selects one). A buffer made from a
tensor (``qgpu.local_alloc %t``) is immutable; one allocated empty is
``mutable`` and is written by ``qgpu.local_store`` / ``qgpu.async_copy``.
Byte offsets of every element: ``dialects.qgpu.layouts.shared_layout``.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, BoolAttr, IntAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from dialects.qgpu.encodings import SharedEncodingAttr
from dialects.qgpu.syntax import build_checked


def check_positive_dims(shape: Sequence[int]) -> None:
    """A buffer or view has a static, positive extent along every dimension (both encodings' rule)."""
    if any(d <= 0 for d in shape):
        raise VerifyException(f"!qgpu.memdesc dimensions must be static and positive, got {list(shape)}")


@irdl_attr_definition
class MemDescType(ParametrizedAttribute, TypeAttribute):
    """A shared-memory buffer of ``shape`` elements laid out by a ``#qgpu.shared`` encoding, or a read-only
    ``#qgpu.block_part`` view of one field of the ggml blocks in such a buffer (``qgpu.block_part``), whose
    shape and element type the part's ``PartSpec`` fixes (block_parts.py)."""

    name = "qgpu.memdesc"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    encoding: Attribute
    mutable: BoolAttr

    def __init__(self, shape: Sequence[int], element_type: Attribute, encoding: Attribute, mutable: bool = False):
        super().__init__(ArrayAttr(IntAttr(d) for d in shape), element_type, encoding, BoolAttr.from_bool(mutable))

    def get_shape(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape.data)

    def get_element_type(self) -> Attribute:
        return self.element_type

    @property
    def rank(self) -> int:
        return len(self.shape.data)

    @property
    def is_mutable(self) -> bool:
        return bool(self.mutable.value.data)

    @property
    def is_shared(self) -> bool:
        """A whole buffer (``#qgpu.shared``), not a ``#qgpu.block_part`` view of one: what the ops that
        allocate, write, index or transpose a buffer need (their verifiers check it before ``shared``)."""
        return isinstance(self.encoding, SharedEncodingAttr)

    @property
    def shared(self) -> SharedEncodingAttr:
        assert isinstance(self.encoding, SharedEncodingAttr), "check is_shared first"
        return self.encoding

    @property
    def num_stages(self) -> int:
        """Product of the leading (stage) dimensions; 1 for a single buffer."""
        count = 1
        for d in self.get_shape()[: self.rank - self.shared.rank]:
            count *= d
        return count

    def with_shape(self, shape: Sequence[int], encoding: Attribute | None = None) -> MemDescType:
        return MemDescType(shape, self.element_type, self.encoding if encoding is None else encoding, self.is_mutable)

    def verify(self) -> None:
        from dialects.qgpu.block_parts import BlockPartEncodingAttr

        if isinstance(self.encoding, BlockPartEncodingAttr):  # its shape and elements follow from the part
            self.encoding.verify_view(self.get_shape(), self.element_type)
            return
        if not isinstance(self.encoding, SharedEncodingAttr):
            raise VerifyException(f"!qgpu.memdesc encoding must be a #qgpu.shared or #qgpu.block_part encoding, "
                                  f"got {self.encoding}")
        check_positive_dims(self.get_shape())
        if self.rank < self.shared.rank:
            raise VerifyException(
                f"!qgpu.memdesc of rank {self.rank} cannot carry a #qgpu.shared encoding of rank "
                f"{self.shared.rank} (order has {self.shared.rank} entries)")
        from dialects.qgpu.shared_layout import shared_layout  # the layout checks need the whole type

        shared_layout(self)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        with parser.in_angle_brackets():
            dims, element_type = parser.parse_ranked_shape()
            parser.parse_punctuation(",", " before the #qgpu.shared encoding of the !qgpu.memdesc")
            encoding = parser.parse_attribute()
            mutable = False
            if parser.parse_optional_punctuation(",") is not None:
                parser.parse_keyword("mutable", " (the only flag of !qgpu.memdesc)")
                mutable = True
        return build_checked(parser, start, lambda: cls(dims, element_type, encoding, mutable)).parameters

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_dimension_list(self.get_shape())
            printer.print_string("x")
            printer.print_attribute(self.element_type)
            printer.print_string(", ")
            printer.print_attribute(self.encoding)
            if self.is_mutable:
                printer.print_string(", mutable")
