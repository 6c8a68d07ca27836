"""MLIR-style diagnostics: ``file:line:col: error: 'op.name' op message``.

xDSL reports a verifier failure by printing the whole module in generic form
with the message attached, and its parser does not record where an operation
came from. Users of an MLIR-family tool expect one line that names the file,
line and column of the offending operation and the rule it broke, so this
module (1) gives every parsed operation a ``FileLineColLoc``, (2) verifies a
module innermost-operation-first so the most specific failure is the one
reported, and (3) formats every error the same way, whether it comes from the
parser, a verifier or a pass.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import ErasedSSAValue, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.irdl.constraints import VerificationContext
from xdsl.irdl.operations import (
    OpDef,
    OptAttributeDef,
    OptPropertyDef,
    VarIRConstruct,
    irdl_op_verify_arg_list,
    irdl_op_verify_regions,
    verify_variadic_size,
)
from xdsl.parser import Parser
from xdsl.parser.core import ForwardDeclaredValue
from xdsl.traits import IsolatedFromAbove, IsTerminator, NoTerminator, OpTrait, SymbolTable
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

_XDSL_VERIFY_PREFIX = "Operation does not verify: "


MAX_INTEGER_WIDTH = 16_777_215
"""MLIR's limit on an integer type's width (``IntegerType::kMaxWidth``)."""

MAX_SHAPED_ELEMENTS = 1 << 24
"""The most elements a shaped type may have. A qdot tile is at most a few hundred thousand
elements; xDSL materialises a splat literal element by element, so a type of 2^38 elements
would exhaust memory instead of being refused."""


_STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')
"""xDSL 0.74's string-literal pattern with its inner ``+`` dropped: the same strings, but matched
in linear time. Its ``(?:[^"…]+|…)*`` backtracks exponentially on an unterminated literal, so a
stray quote in the input hung the tools for minutes before the error. It replaces xDSL's on the
lexer class, not on a parser's lexer: xDSL's parser lexes the first token while it is built, so
a file that starts with a stray quote hung before any instance could be changed (input fuzz, seed
161)."""
MLIRLexer._unescaped_characters_regex = _STRING_LITERAL  # type: ignore[attr-defined]  # noqa: SLF001


class LocatingParser(Parser):
    """An xDSL parser that stamps each operation with the position it was parsed at, refuses
    what xDSL 0.74 would crash on (huge integer widths and shapes) with a located error, and
    places the errors xDSL reports far from their cause (an unknown op, an undefined value, an
    unclosed region, a constant out of range) where the user wrote it."""

    line_offset: int = 0

    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003 - Parser's own
        self._regions_open: list[Span] = []
        """The ``{`` of each region being parsed, innermost last."""
        self._first_uses: dict[str, Span] = {}
        """Where each value used before (or without) its definition is first used."""
        super().__init__(*args, **kwargs)

    def parse_module(self, *args, **kwargs):  # type: ignore[override]
        """Attribute verifiers run while parsing; report their failures at the parse position.
        So do the builders xDSL calls while parsing that refuse an input by raising (a dense
        array of ``i127``, say, or of ``i0``, whose element size xDSL divides by): the input is
        what is wrong, not qdot. Input with no operation at all (empty, blank or only comments)
        is an empty module, as in mlir-opt."""
        if self._current_token.kind is MLIRTokenKind.EOF:
            return ModuleOp([])
        try:
            return super().parse_module(*args, **kwargs)
        except VerifyException as err:
            self.raise_error(str(err).split("\n\n")[0], self._current_token.span)
        except (NotImplementedError, ValueError, ArithmeticError, AssertionError) as err:
            self.raise_error(_cannot_build(err), self._current_token.span)
        except ParseError as err:
            self._relocate(err)

    def _relocate(self, err: ParseError) -> NoReturn:
        """xDSL's end-of-module checks, said where the cause is."""
        message = err.msg
        if message.startswith("values used but not defined") and self._first_uses:
            name, span = min(self._first_uses.items(), key=lambda item: item[1].start)
            self.raise_error(f"use of undefined value '%{name}'", span)
        if message == "Could not parse entire input!" and self._current_token.kind is not MLIRTokenKind.EOF:
            token = self._current_token
            self.raise_error(f"expected an operation at the top level, got '{token.text}'", token.span)
        raise err

    def resolve_operand(self, operand, type):  # type: ignore[override]  # noqa: A002, ANN001, ANN201
        if operand.operand_name not in self.ssa_values:
            self._first_uses.setdefault(operand.operand_name, operand.span)
        return super().resolve_operand(operand, type)

    def _register_ssa_definition(self, name, values, span) -> None:  # type: ignore[override]  # noqa: ANN001
        super()._register_ssa_definition(name, values, span)
        self._first_uses.pop(name, None)

    def parse_optional_region(self, *args, **kwargs):  # type: ignore[override]
        opening = self._current_token.span
        if self._current_token.text != "{":
            return super().parse_optional_region(*args, **kwargs)
        self._regions_open.append(opening)
        try:
            return super().parse_optional_region(*args, **kwargs)
        finally:
            self._regions_open.pop()

    def _parse_block(self):  # type: ignore[override]  # noqa: ANN202
        """Between a region's operations and its ``}`` only a block label may stand; say so,
        and where the region began, rather than xDSL's bare "in block definition"."""
        token = self._current_token
        if token.kind is not MLIRTokenKind.CARET_IDENT and self._regions_open:
            where = self._regions_open[-1].get_location()
            opened = f"{where.line + self.line_offset}:{where.col}"
            if token.kind is MLIRTokenKind.EOF:
                self.raise_error(f"unexpected end of input: the region opened at {opened} is not closed with '}}'",
                                 token.span)
            self.raise_error(f"expected an operation, a block label or the '}}' that closes the region opened "
                             f"at {opened}, got '{token.text}'", token.span)
        return super()._parse_block()

    def _get_op_by_name(self, name: str):  # type: ignore[override]  # noqa: ANN202
        """An unknown operation is reported at its name (xDSL points past it), with the closest
        known name of its dialect when there is one."""
        if self.ctx.get_optional_op(name, dialect_stack=self._parser_state.dialect_stack) is None:
            text = self.lexer.input.content
            start = text.rfind(name, 0, self._current_token.span.start)
            span = Span(start, start + len(name), self.lexer.input) if start >= 0 else self._current_token.span
            self.raise_error(f"Operation {name} is not registered{_closest_op(self.ctx, name)}", span)
        return super()._get_op_by_name(name)

    def _parse_optional_integer_or_float_type(self):  # type: ignore[override]
        token = self._current_token
        match = self._builtin_integer_type_regex.match(token.text) if token.kind is MLIRTokenKind.BARE_IDENT else None
        if match is not None and int(match.group(1)) > MAX_INTEGER_WIDTH:
            self.raise_error(f"integer bitwidth is limited to {MAX_INTEGER_WIDTH} bits", token.span)
        return super()._parse_optional_integer_or_float_type()

    def parse_dimension_list(self) -> list[int]:
        start = self._current_token.span
        dims = super().parse_dimension_list()
        elements = 1
        for dim in dims:
            if dim > 0:
                elements *= dim
        if elements > MAX_SHAPED_ELEMENTS:
            self.raise_error(f"a shape of {elements} elements is larger than qdot handles "
                             f"(at most {MAX_SHAPED_ELEMENTS})", start)
        return dims

    def parse_operation(self) -> Operation:
        """The operation, located; an attribute or builder that refuses a value while the
        operation is parsed (``arith.constant 99999999999 : i32``) is reported at the operation,
        not at whatever token the parser had reached."""
        start = self._current_token.span
        try:
            op = super().parse_operation()
        except VerifyException as err:
            self.raise_error(str(err).split("\n\n")[0], start)
        except (NotImplementedError, ValueError, ArithmeticError, AssertionError) as err:
            # said where the value was read, unless the parser had gone on to a later line (``1.0e40 : f32`` is
            # built once the op's type is read, and the token is then the next op's): then at the operation
            token = self._current_token.span
            same_line = token.get_location().line == start.get_location().line
            self.raise_error(_cannot_build(err), token if same_line else start)
        if not isinstance(op.location, FileLineColLoc):
            location = start.get_location()
            op.location = FileLineColLoc(
                StringAttr(location.file),
                IntAttr(location.line + self.line_offset),
                IntAttr(location.col),
            )
        return op


def _cannot_build(err: BaseException) -> str:
    """What to say of a value an xDSL builder refused while parsing: its reason, or for an assertion of the
    builder's own (``dense<1.0> : tensor<2xcomplex<f32>>``), that it does not take that form."""
    if isinstance(err, AssertionError):
        return "cannot build what is written here (xDSL's builder does not take this form)"
    return f"cannot build what is written here: {err}"


def _closest_op(ctx, name: str) -> str:  # noqa: ANN001 - xdsl Context
    """``; did you mean 'x'?`` for the registered operation closest to ``name`` in its dialect."""
    import difflib

    dialect = ctx.get_optional_dialect(name.split(".", 1)[0]) if "." in name else None
    ops = [op.name for op in dialect.operations] if dialect is not None else []
    close = difflib.get_close_matches(name, ops, n=1, cutoff=0.75)
    return f"; did you mean '{close[0]}'?" if close else ""


def dims_text(shape) -> str:  # noqa: ANN001 - any sequence of ints
    """A shape as the diagnostics write it, ``[128, 64]`` (a dynamic dimension is ``?``)."""
    from xdsl.dialects.builtin import DYNAMIC_INDEX

    return "[" + ", ".join("?" if d == DYNAMIC_INDEX else str(d) for d in shape) + "]"


def location_of(op: Operation | None) -> str:
    """``file:line:col`` of an operation, or of its nearest located ancestor."""
    while op is not None:
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        op = op.parent_op()
    return "<unknown>"


class QdotError(DiagnosticException):
    """An error anchored at an operation; printed as one MLIR-style diagnostic line."""

    def __init__(self, op: Operation | None, message: str):
        self.op = op
        self.message = message
        super().__init__(self.render())

    def render(self) -> str:
        where = location_of(self.op)
        subject = f"'{self.op.name}' op " if self.op is not None else ""
        return f"{where}: error: {subject}{self.message}"


class PassOutputError(QdotError):
    """The IR a pass produced does not verify. The input verified before the pipeline ran, so
    this is a bug of that pass, not of the input; the message says so, and a fuzz or a test
    can tell it from a refusal."""

    def __init__(self, pass_name: str, err: QdotError):
        self.pass_name = pass_name
        super().__init__(err.op, f"{err.message} [in the IR {pass_name} produced: a compiler bug, not a "
                                 "problem of the input]")


def emit_error(op: Operation | None, message: str) -> NoReturn:
    """Abort the current verifier or pass with a diagnostic at ``op``."""
    raise QdotError(op, message)


def _clean(message: str) -> str:
    while message.startswith(_XDSL_VERIFY_PREFIX):
        message = message[len(_XDSL_VERIFY_PREFIX):]
    return message.strip()


def verify_operation(op: Operation) -> None:
    """Verify ``op`` and everything nested in it, innermost operations first."""
    _Verifier().verify(op)


def verify_module(module: ModuleOp) -> None:
    _check_dominance(module)  # first: the op verifiers read operands' owners
    _check_symbols(module)
    _check_entry_blocks(module)
    verify_operation(module)


def _check_entry_blocks(module: ModuleOp) -> None:
    """No branch targets a region's entry block (MLIR's rule): the printer leaves the entry block's label out, so
    such IR printed could not be read back."""
    for op in module.walk():
        for region in op.regions:
            entry = region.blocks.first
            if entry is not None and entry.predecessors():
                branch = entry.predecessors()[0].last_op
                raise QdotError(branch or op, "the entry block of a region may not be the target of a branch")


def _check_symbols(op: Operation) -> None:
    """No two operations of a symbol table define one name. xDSL's check reports it on the
    module, with no location; the second definition is the one to point at."""
    if not op.has_trait(SymbolTable):
        return
    seen: dict[str, Operation] = {}
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                name = child.properties.get("sym_name") or child.attributes.get("sym_name")
                if isinstance(name, StringAttr):
                    if name.data in seen:
                        raise QdotError(child, f"redefinition of symbol '@{name.data}' (first defined at "
                                               f"{location_of(seen[name.data])})")
                    seen[name.data] = child
                _check_symbols(child)


def _check_dominance(op: Operation) -> None:
    """Every operand is defined before its use: earlier in the same block, by an enclosing
    block's argument, or before the operation that encloses the use. xDSL's parser accepts
    forward references and its verifier does not look, so without this a use before its
    definition reached LLVM as IR it rejects. Within a region of several blocks a value of a
    sibling block is accepted: that needs a dominator tree, and qdot's inputs are structured
    (scf) code whose regions have one block."""
    visible: set[int] = set()
    for region in op.regions:
        for block in region.blocks:
            _check_block_dominance(block, visible, len(region.blocks) > 1)


def _check_block_dominance(block, visible: set[int], sibling_blocks: bool) -> None:  # noqa: ANN001
    added: list[int] = [id(arg) for arg in block.args]
    visible.update(added)
    siblings = block.parent.blocks if sibling_blocks and block.parent is not None else ()
    for child in block.ops:
        for index, operand in enumerate(child._operands):  # noqa: SLF001
            if id(operand) in visible:
                continue
            if isinstance(operand, ForwardDeclaredValue):
                raise QdotError(child, f"operand #{index} is used but never defined in its scope")
            owner = operand.owner
            owner_block = owner if not isinstance(owner, Operation) else owner.parent
            if any(owner_block is sibling for sibling in siblings):
                continue
            raise QdotError(child, f"operand #{index} does not dominate this use")
        for region in child.regions:
            for inner in region.blocks:
                _check_block_dominance(inner, visible, len(region.blocks) > 1)
        for result in child.results:
            visible.add(id(result))
            added.append(id(result))
    visible.difference_update(added)


@dataclass(frozen=True)
class _OpPlan:
    """How to verify one IRDL operation class in parts (see `_Verifier`)."""

    op_def: OpDef
    custom_verify: Callable[[Operation], None] | None
    traits: tuple[OpTrait, ...]
    """The traits whose ``verify`` does something, in the order ``OpDef.verify`` runs them."""
    is_terminator: bool
    no_terminator: bool


@functools.cache
def _op_plan(cls: type[Operation]) -> _OpPlan | None:
    """Split an IRDL class's generated ``verify_`` into its definition check and its custom
    verifier, or None where the class does not have the shape xDSL 0.74 generates."""
    if cls.verify is not Operation.verify or not issubclass(cls, IRDLOperation):
        return None
    verify_ = cls.__dict__.get("verify_")
    code, closure = getattr(verify_, "__code__", None), getattr(verify_, "__closure__", None)
    if code is None or closure is None or verify_.__module__ != "xdsl.irdl.operations":
        return None
    cells = dict(zip(code.co_freevars, (cell.cell_contents for cell in closure), strict=True))
    op_def = cells.get("op_def")
    if not isinstance(op_def, OpDef) or set(cells) - {"op_def", "custom_verify"} \
            or op_def is not cls.get_irdl_definition():
        return None
    traits = tuple(t for t in op_def.traits if type(t).verify is not OpTrait.verify)
    return _OpPlan(op_def, cells.get("custom_verify"), traits,
                   cls.has_trait(IsTerminator), cls.has_trait(NoTerminator))


@functools.cache
def _has_no_terminator(cls: type[Operation]) -> bool:
    return cls.has_trait(NoTerminator)


def _verify_function(func: FuncOp) -> None:
    """The ``qdot.*`` attributes of a function and its arguments, which no op definition
    checks (MLIR has dialects verify their discardable attributes the same way), and that it
    has a body: qdot compiles no calls, so a declaration could only be a mistake."""
    from dialects.qdot.kernel_attrs import kernel_attribute_problem  # the dialects import this module

    if not func.body.blocks:
        raise QdotError(func, "has no body; qdot compiles functions, not declarations")
    for block in func.body.blocks:
        if block.last_op is None or not block.last_op.has_trait(IsTerminator):
            raise QdotError(block.last_op or func, "ends a block of the function without a terminator "
                                                   "(func.return or a branch)")
    if (problem := kernel_attribute_problem(func)) is not None:
        raise QdotError(func, problem)
    _verify_layout_warps(func)
    if "qdot.kernel" in func.attributes and func.sym_visibility is not None and func.sym_visibility.data != "public":
        raise QdotError(func, f"is a qdot.kernel, a launch's entry point, so it must be public, not "
                              f"{func.sym_visibility.data} (a private function would be left out of the PTX)")


def _verify_layout_warps(func: FuncOp) -> None:
    """Every layout of a kernel, or of a function with ``qdot.num_warps``, spans that many warps (the default where a
    kernel has none; Triton checks its layouts against ``ttg.num-warps`` the same way): the lowering gives each warp
    of the layout its share, so a layout of four warps in a kernel launched with one compiled to stores of a quarter
    of the tile, with no error."""
    from xdsl.dialects.builtin import TensorType

    from dialects.qdot.kernel_attrs import NUM_WARPS_ATTR, is_kernel, num_warps

    if NUM_WARPS_ATTR not in func.attributes and not is_kernel(func):
        return
    warps = num_warps(func)
    for op in func.walk():
        values = [*op.results, *(arg for region in op.regions for block in region.blocks for arg in block.args)]
        for value in values:
            encoding = value.type.encoding if isinstance(value.type, TensorType) else None
            spans = getattr(encoding, "num_warps", None)
            if isinstance(spans, int) and spans != warps:
                given = "" if NUM_WARPS_ATTR in func.attributes else " (the default: the kernel sets none)"
                raise QdotError(op, f"has a value laid out over {spans} warp{'s' if spans != 1 else ''} "
                                    f"({value.type}), but the function's {NUM_WARPS_ATTR} is {warps}{given}: a "
                                    f"layout spans the kernel's warps")


def _verify_if(op: Operation) -> None:
    """Each region of an ``scf.if`` ends in a yield of its result types. xDSL 0.74 checks this
    for ``scf.for``'s body (against its iteration arguments) but not for ``scf.if``, whose
    implicit terminator yields nothing; the passes index the yields by result."""
    results = [r.type for r in op.results]
    for name, region in zip(("then", "else"), op.regions, strict=True):
        if not region.blocks:
            if results:
                raise QdotError(op, f"has results, so its {name} region must yield them")
            continue
        terminator = region.blocks[-1].last_op
        yielded = [v.type for v in terminator.operands] if terminator is not None else []
        if yielded != results:
            raise QdotError(op, f"{name} region yields ({_types(yielded)}) where its results are "
                                f"({_types(results)})")


def _types(types: list) -> str:
    return ", ".join(str(t) for t in types)


def _verify_for(op: Operation) -> None:
    """``scf.for``'s results have the types it carries (xDSL checks the body, not the results), and a step known
    here is positive, as MLIR's verifier requires: a zero step never ends (and the lowered loop divides by it), a
    negative one counts away from the bound."""
    from xdsl.dialects.arith import ConstantOp
    from xdsl.dialects.builtin import IntegerAttr

    carried = [v.type for v in op.operands[3:]]
    results = [r.type for r in op.results]
    if carried != results:
        raise QdotError(op, f"has results of types ({_types(results)}) where it carries ({_types(carried)})")
    step = op.operands[2].owner
    if isinstance(step, ConstantOp) and isinstance(step.value, IntegerAttr) and step.value.value.data <= 0:
        raise QdotError(op, f"constant step operand must be positive, got {step.value.value.data}")


def _verify_call(op: Operation) -> None:
    """A call of a ``qdot.kernel``: a kernel is a launch's entry point (a PTX ``.entry``), which PTX cannot call —
    only ``.func`` functions; LLVM dropped such a call in silence. (xDSL checks that the callee exists.)"""
    from xdsl.dialects.func import CallOp
    from xdsl.traits import SymbolTable

    assert isinstance(op, CallOp)
    callee = SymbolTable.lookup_symbol(op, op.callee)
    if isinstance(callee, FuncOp) and "qdot.kernel" in callee.attributes:
        raise QdotError(op, f"calls @{op.callee.string_value()}, a qdot.kernel: a launch's entry point cannot be "
                            "called (PTX calls only .func functions; call a function without qdot.kernel)")


def _op_rules() -> dict[type[Operation], Callable[[Operation], None]]:
    from xdsl.dialects import func, scf

    return {scf.IfOp: _verify_if, scf.ForOp: _verify_for, func.CallOp: _verify_call}


_OP_RULES = _op_rules()
"""Checks of single ops that xDSL 0.74 leaves out and the passes rely on, by op class."""


def _check_discardable(op: Operation) -> None:
    """An attribute on a ``qdot`` op (the level users write) that the op's definition does not name, and that no
    dialect prefix marks as discardable (``qdot.strategy``), is taken for a misspelling: ``{in_bound = [true,
    false]}`` on a ``qdot.load`` would otherwise be kept and ignored, the load compiled without what the user
    declared. MLIR keeps such an attribute as discardable; the lower dialects (qgpu, ptx, agx) still do, as their
    round-trip tests check."""
    import difflib

    definition = type(op).get_irdl_definition() if isinstance(op, IRDLOperation) else None
    if definition is None:
        return
    known = sorted({*definition.properties, *definition.attributes})
    for name in op.attributes:
        if "." in name or name in known:
            continue
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        takes = f"it takes {', '.join(known)}" if known else "it takes none"
        raise QdotError(op, f"has an unknown attribute '{name}' ({takes}; a discardable attribute needs a "
                            f"dialect prefix, as qdot.strategy has){hint}")


class _Verifier:
    """``Operation.verify`` for a whole module, with the IRDL definition check memoised.

    Most of the time of verifying a lowered kernel went into xDSL's generic check of each
    operation against its IRDL definition (operand and result counts and constraints,
    properties, attributes), for 7 500 operations of a few dozen distinct shapes. That
    check reads only the op's class, operand and result types, properties, attributes,
    region shapes and successor count, so it runs once per distinct key and is remembered
    for this verification (keys by identity first, since lowered IR shares its type and
    attribute objects, then by value). Everything that may look further (the structural
    checks of ``Operation.verify``, traits that verify something, custom ``verify_``
    methods) still runs for every operation, in xDSL's order. A failure is re-run through
    xDSL's own ``Operation.verify``, so the exception (message, notes) is exactly xDSL's.
    """

    def __init__(self) -> None:
        self._by_identity: dict[tuple, tuple] = {}
        """identity key -> its value key (which keeps the objects behind the ids alive)"""
        self._by_value: set[tuple] = set()

    def verify(self, op: Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for child in block.ops:
                    self.verify(child)
        try:
            if not self._verify_fast(op):
                op.verify(verify_nested_ops=False)
        except QdotError:
            raise
        except VerifyException as err:
            raise QdotError(op, _clean(str(err).split("\n\n")[0])) from None
        if type(op) is FuncOp:
            _verify_function(op)
        elif type(op) in _OP_RULES:
            _OP_RULES[type(op)](op)
        elif op.attributes and op.name.startswith("qdot."):
            _check_discardable(op)

    def _verify_fast(self, op: Operation) -> bool:
        """True when ``op`` verified; False when xDSL's own ``verify`` must decide (an op
        outside the fast path, or a failure whose exception xDSL should produce)."""
        plan = _op_plan(type(op))
        if plan is None:
            return False
        try:
            if not _structure_ok(op, plan):
                return False
            if not self._definition_known(op):
                _verify_definition(plan.op_def, op)
                self._remember(op)
            for trait in plan.traits:
                if type(trait) is IsolatedFromAbove:
                    if not _isolated_from_above(op):
                        return False
                else:
                    trait.verify(op)
            if plan.custom_verify is not None:
                plan.custom_verify(op)
        except Exception:  # noqa: BLE001 - xDSL's verify, run next, raises the real error
            return False
        return True

    def _definition_known(self, op: Operation) -> bool:
        key = _identity_key(op)
        if key in self._by_identity:
            return True
        value_key = _value_key(op)
        if value_key in self._by_value:
            self._by_identity[key] = value_key
            return True
        return False

    def _remember(self, op: Operation) -> None:
        value_key = _value_key(op)
        self._by_value.add(value_key)
        self._by_identity[_identity_key(op)] = value_key


def _verify_definition(op_def: OpDef, op: Operation) -> None:
    """``OpDef.verify`` of xDSL 0.74 without its last step, the traits (run by the caller)."""
    context = VerificationContext()
    irdl_op_verify_arg_list(op, op_def, VarIRConstruct.OPERAND, context)
    irdl_op_verify_arg_list(op, op_def, VarIRConstruct.RESULT, context)
    irdl_op_verify_regions(op, op_def, context)
    verify_variadic_size(op, op_def, VarIRConstruct.SUCCESSOR)
    for name, prop_def in op_def.properties.items():
        if name not in op.properties:
            if isinstance(prop_def, OptPropertyDef):
                continue
            raise VerifyException(f"property '{name}' expected")
        prop_def.constr.verify(op.properties[name], context)
    for name in op.properties:
        if name not in op_def.properties:
            raise VerifyException(f"property '{name}' is not defined")
    for name, attr_def in op_def.attributes.items():
        if name not in op.attributes:
            if isinstance(attr_def, OptAttributeDef):
                continue
            raise VerifyException(f"attribute '{name}' expected")
        attr_def.constr.verify(op.attributes[name], context)


def _identity_key(op: Operation) -> tuple:
    """`_value_key` with every type and attribute by identity: cheap, and enough for the
    shared objects of lowered IR. Only valid while the value key holds those objects.
    Flat, with separators that no id can equal, so that no two shapes share a key."""
    key: list = [type(op)]
    key += [id(operand.type) for operand in op._operands]  # noqa: SLF001 - hot path
    key.append(-1)
    key += [id(result.type) for result in op.results]
    if op.properties:
        key.append(-2)
        for name, value in op.properties.items():
            key += (name, id(value))
    if op.attributes:
        key.append(-3)
        for name, value in op.attributes.items():
            key += (name, id(value))
    if op.regions:
        key += (-4, _regions_key(op))
    if op._successors:  # noqa: SLF001
        key += (-5, len(op._successors))  # noqa: SLF001
    return tuple(key)


def _value_key(op: Operation) -> tuple:
    """Everything ``OpDef.verify`` reads of ``op`` apart from what its traits look at."""
    return (
        type(op),
        tuple([operand.type for operand in op._operands]),  # noqa: SLF001
        tuple([result.type for result in op.results]),
        tuple(op.properties.items()),
        tuple(op.attributes.items()),
        _regions_key(op) if op.regions else (),
        len(op._successors),  # noqa: SLF001
    )


def _regions_key(op: Operation) -> tuple:
    return tuple(
        (len(region.blocks), None if region.first_block is None else tuple(region.first_block.arg_types))
        for region in op.regions
    )


def _structure_ok(op: Operation, plan: _OpPlan) -> bool:
    """The checks ``Operation.verify`` makes before ``verify_`` (erased operands, where
    successors and terminators may be); False where one fails."""
    for operand in op._operands:  # noqa: SLF001
        if isinstance(operand, ErasedSSAValue):
            return False
    parent_block = op.parent
    if parent_block is None:
        return not op._successors  # noqa: SLF001
    parent_region = parent_block.parent
    if parent_region is None:
        return not op._successors  # noqa: SLF001
    last = parent_block.last_op is op
    if op._successors:  # noqa: SLF001
        if not last:
            return False
        for successor in op._successors:  # noqa: SLF001
            if successor.parent != parent_region:
                return False
    if last and not plan.is_terminator:
        if len(parent_region.blocks) > 1:
            return False
        parent_op = parent_region.parent
        if parent_op is not None and not _has_no_terminator(type(parent_op)):
            return False
    return True


def _isolated_from_above(op: Operation) -> bool:
    """``IsolatedFromAbove.verify`` as a yes/no, in one walk instead of an ancestor search
    per operand: every operand used inside ``op`` (not looking into nested isolated ops,
    which check themselves) is defined by an op or block strictly inside ``op``."""
    inside: set[int] = set()
    uses: list[SSAValue] = []
    pending = list(op.regions)
    while pending:
        region = pending.pop()
        for block in region.blocks:
            inside.add(id(block))
            for child in block.ops:
                inside.add(id(child))
                uses.extend(child._operands)  # noqa: SLF001
                if child.regions:
                    if child.has_trait(IsolatedFromAbove):
                        _mark_nested(child, inside)
                    else:
                        pending.extend(child.regions)
    return all(id(value.owner) in inside for value in uses)


def _mark_nested(op: Operation, inside: set[int]) -> None:
    """Everything nested in ``op`` counts as inside the isolated op being checked."""
    for region in op.regions:
        for block in region.blocks:
            inside.add(id(block))
            for child in block.ops:
                inside.add(id(child))
                if child.regions:
                    _mark_nested(child, inside)


@dataclass(frozen=True)
class ParseDiagnostic:
    """A parse error rendered as ``file:line:col: error: message`` plus the source line."""

    text: str


def render_parse_error(err: Exception, line_offset: int = 0) -> str:
    span = getattr(err, "span", None)
    msg = getattr(err, "msg", str(err))
    if span is None:
        return f"error: {msg}"
    if "{first_char}" in msg:  # xDSL 0.74's lexer forgets the f of this f-string
        msg = msg.replace("{first_char}", f"'{span.text[:1]}'")
    loc = span.get_location()
    context = span.print_with_context(None).split("\n", 1)
    body = context[1] if len(context) > 1 else ""
    return f"{loc.file}:{loc.line + line_offset}:{loc.col}: error: {msg}\n{body}".rstrip()
