"""`emit_llvm_ir`: a lowered qdot module -> LLVM IR text for the NVPTX backend.

The input is what the passes leave: `func.func` / `func.call` / `func.return`, `arith`
on scalars and 1-D vectors, `cf.br` / `cf.cond_br` with block arguments, identity
`builtin.unrealized_conversion_cast`, and `ptx` ops. This module owns the function and
control-flow structure; every other op is translated by the lowering registered for its
class in `LOWERINGS` (arith in `llvm_arith`, ptx in `llvm_nvvm`; add an entry to extend).

Conventions (DESIGN.md §2, the brief of the passes):
* A `func.func` with the unit attribute `qdot.kernel` is a kernel: `ptx_kernel` calling
  convention (`.entry`), void. `qdot.num_warps = N` becomes `"nvvm.maxntid"="32N"`
  (`.maxntid`), `qdot.min_blocks_per_sm = K` becomes `"nvvm.minctasm"="K"` (`.minnctapersm`).
* Block arguments become phis; a `cf.cond_br` whose two edges reach the same block gets
  one edge block per side so each phi entry names a distinct predecessor.
* Shared memory is one `external addrspace(3) global [0 x i8], align 16` (the dynamic
  shared memory), declared only when used; `align 1024` when a wgmma reads it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, builtin, cf, func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.traits import IsTerminator

from compiler.diagnostics import QdotError, verify_module
from dialects.ptx.arch import Arch, PtxVersion
from dialects.ptx.check import check_arch
from dialects.qdot.kernel_attrs import KERNEL_ATTR, MIN_BLOCKS_PER_SM_ATTR, NUM_WARPS_ATTR
from targets.ptx.llvm_arith import ARITH_LOWERINGS, NAMED_LOWERINGS
from targets.ptx.llvm_core import (
    SHARED_SYMBOL,
    FunctionEmitter,
    Lowering,
    ModuleState,
    constant_text,
    global_name,
    llvm_type,
    struct_type,
)
from targets.ptx.llvm_nvvm import PTX_LOWERINGS

TRIPLE = "nvptx64-nvidia-cuda"


def _call(em: FunctionEmitter, op: Operation) -> None:
    assert isinstance(op, func.CallOp)
    arguments = ", ".join(em.typed(v) for v in op.arguments)
    callee = global_name(op.callee.root_reference.data)
    results = list(op.results)
    if not results:
        em.emit(f"call void {callee}({arguments})")
    elif len(results) == 1:
        em.assign(results[0], f"call {llvm_type(results[0].type, op)} {callee}({arguments})")
    else:
        aggregate_type = struct_type([llvm_type(r.type, op) for r in results])
        aggregate = em.temp(f"call {aggregate_type} {callee}({arguments})", "ret")
        em.unpack(aggregate, aggregate_type, results)


def _forward(em: FunctionEmitter, op: Operation) -> None:
    """Identity casts were bound to their operand when values were named."""


LOWERINGS: dict[type[Operation], Lowering] = {
    func.CallOp: _call,
    builtin.UnrealizedConversionCastOp: _forward,
    **ARITH_LOWERINGS,
    **PTX_LOWERINGS,
}


_PTX_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_$]*|[_$][A-Za-z0-9_$]+")
"""The PTX ISA's identifier (its ``%`` prefix, for registers, left out): every function's PTX name."""


def emit_llvm_ir(module: ModuleOp, arch: Arch | str, ptx_version: PtxVersion | str | None = None, *,
                 verify: bool = True) -> str:
    """LLVM IR text for `module` on `arch`; byte-identical for the same module.

    Raises `QdotError` (anchored at the offending op) for an op that does not verify, an
    instruction `arch` cannot run (`check_arch`, so LLVM never aborts on it), or an op or
    type with no translation. Pass the `ptx_version` you will give `llvm_ir_to_ptx` when it
    is not the target's default, so instructions newer than it are rejected here too.
    `verify=False` skips verifying the module, for callers that just did (a pass pipeline
    verifies after its last pass): on a lowered kernel that is a sizeable part of the time.
    """
    try:
        target = Arch.parse(arch) if isinstance(arch, str) else arch
        version = PtxVersion.parse(ptx_version) if isinstance(ptx_version, str) else ptx_version
    except ValueError as err:
        raise QdotError(module, str(err)) from None
    if verify:
        verify_module(module)
    check_arch(module, target, version)
    state = ModuleState(capability=target.capability)
    functions: list[str] = []
    for op in module.ops:
        if not isinstance(op, func.FuncOp):
            raise QdotError(op, "only func.func may appear at module level when translating to LLVM IR")
        if not _PTX_IDENTIFIER.fullmatch(name := op.sym_name.data):
            raise QdotError(op, f"name {name!r} is not a PTX identifier (letters, digits, '_' and '$', starting with "
                                "a letter, or with '_' or '$' and one more): LLVM's NVPTX backend would stop on it "
                                "or rename it, and the runner finds a kernel by its name")
        functions.append(_emit_function(state, op))
    return _assemble(state, functions, target)


def _assemble(state: ModuleState, functions: Sequence[str], arch: Arch) -> str:
    parts = [f"; qdot: LLVM IR for {arch.value}\ntarget triple = \"{TRIPLE}\"\n"]
    if state.uses_shared:
        parts.append(f"@{SHARED_SYMBOL} = external addrspace(3) global [0 x i8], align {state.shared_align}\n")
    if state.declarations:
        parts.append("\n".join(state.declarations.values()) + "\n")
    parts.extend(functions)
    if state.attribute_groups:
        parts.append("\n".join(f"attributes #{n} = {{ {body} }}" for body, n in state.attribute_groups.items())
                     + "\n")
    if state.invariant_load_metadata:
        parts.append("!0 = !{}\n")
    return "\n".join(parts)


@dataclass
class _Edges:
    """Where control enters each block from: (predecessor label, values for its arguments)."""

    incoming: dict[Block, list[tuple[str, Sequence[SSAValue]]]] = field(default_factory=dict)
    # cond_br whose both edges reach one block: the labels of the two edge blocks.
    split: dict[Operation, tuple[str, str]] = field(default_factory=dict)


def _emit_function(state: ModuleState, fn: func.FuncOp) -> str:
    kernel = KERNEL_ATTR in fn.attributes
    outputs = list(fn.function_type.outputs.data)
    if kernel and outputs:
        raise QdotError(fn, f"a kernel ({KERNEL_ATTR}) must return nothing, got {len(outputs)} results")
    result_type = _return_type(outputs, fn)
    name = global_name(fn.sym_name.data)
    if fn.is_declaration:
        inputs = ", ".join(llvm_type(t, fn) for t in fn.function_type.inputs.data)
        return f"declare {result_type} {name}({inputs})\n"

    em = FunctionEmitter(state)
    blocks = list(fn.body.blocks)
    for block in blocks:
        for argument in block.args:
            llvm_type(argument.type, fn)  # a diagnostic at the function for an unsupported argument type
    labels = {block: em.fresh("entry" if index == 0 else f"bb{index}")[1:] for index, block in enumerate(blocks)}
    for block in blocks:
        _name_values(em, block)
    edges = _edges(em, blocks, labels)

    parameters = ", ".join(f"{em.typed(arg)}" for arg in blocks[0].args)
    linkage = "internal " if fn.sym_visibility is not None and fn.sym_visibility.data == "private" else ""
    convention = "ptx_kernel " if kernel else ""
    attributes = _function_attributes(state, fn, kernel)
    header = f"define {linkage}{convention}{result_type} {name}({parameters}){attributes} {{"

    body: list[str] = [header]
    for block in blocks:
        em.start_block()
        for op in block.ops:
            if op is block.last_op and op.has_trait(IsTerminator):
                _terminator(em, op, labels, edges, result_type)
            else:
                _lower(em, op)
        body.append(f"{labels[block]}:")
        if block is not blocks[0]:
            body.extend(_phis(em, block, edges))
        body.extend(em.lines)
    body.append("}\n")
    return "\n".join(body)


def _return_type(outputs: Sequence[Attribute], op: Operation) -> str:
    if not outputs:
        return "void"
    if len(outputs) == 1:
        return llvm_type(outputs[0], op)
    return struct_type([llvm_type(t, op) for t in outputs])


def _function_attributes(state: ModuleState, fn: func.FuncOp, kernel: bool) -> str:
    entries: list[str] = []
    for attr_name, llvm_name, scale in ((NUM_WARPS_ATTR, "nvvm.maxntid", 32), (MIN_BLOCKS_PER_SM_ATTR, "nvvm.minctasm", 1)):
        value = fn.attributes.get(attr_name)
        if value is None:
            continue
        if not kernel:
            raise QdotError(fn, f"{attr_name} applies to kernels ({KERNEL_ATTR}) only")
        if not isinstance(value, IntegerAttr) or value.value.data < 1:
            raise QdotError(fn, f"{attr_name} must be a positive integer, got {value}")
        entries.append(f'"{llvm_name}"="{value.value.data * scale}"')
    if not entries:
        return ""
    return f" #{state.attribute_group(' '.join(entries))}"


def _name_values(em: FunctionEmitter, block: Block) -> None:
    """Name every value of `block` before anything is printed (phis may refer forward)."""
    for argument in block.args:
        em.name_value(argument)
    for op in block.ops:
        if isinstance(op, arith.ConstantOp):
            em.set_text(op.result, constant_text(op.value, op.result.type, op))
        elif isinstance(op, builtin.UnrealizedConversionCastOp):
            if len(op.inputs) != 1 or len(op.outputs) != 1 or op.inputs[0].type != op.outputs[0].type:
                raise QdotError(op, "only identity casts (one value, same type) reach LLVM IR; "
                                    "a pass left a real type conversion here")
            em.alias(op.outputs[0], op.inputs[0])
        else:
            for result in op.results:
                em.name_value(result)


def _edges(em: FunctionEmitter, blocks: Sequence[Block], labels: dict[Block, str]) -> _Edges:
    edges = _Edges({block: [] for block in blocks})
    for block in blocks:
        for successor in block.last_op.successors if block.last_op is not None else ():
            if successor is blocks[0]:
                raise QdotError(block.last_op, "a branch to the entry block has no LLVM IR equivalent")
        terminator = block.last_op
        if isinstance(terminator, cf.BranchOp):
            edges.incoming[terminator.successor].append((labels[block], terminator.arguments))
        elif isinstance(terminator, cf.ConditionalBranchOp):
            then_label = else_label = labels[block]
            if terminator.then_block is terminator.else_block:
                then_label = em.fresh(f"{labels[block]}.then")[1:]
                else_label = em.fresh(f"{labels[block]}.else")[1:]
                edges.split[terminator] = (then_label, else_label)
            edges.incoming[terminator.then_block].append((then_label, terminator.then_arguments))
            edges.incoming[terminator.else_block].append((else_label, terminator.else_arguments))
    return edges


def _phis(em: FunctionEmitter, block: Block, edges: _Edges) -> list[str]:
    lines = []
    for index, argument in enumerate(block.args):
        entries = ", ".join(f"[ {em.text(values[index])}, %{label} ]" for label, values in edges.incoming[block])
        lines.append(f"  {em.text(argument)} = phi {llvm_type(argument.type)} {entries}")
    return lines


def _lower(em: FunctionEmitter, op: Operation) -> None:
    lowering = LOWERINGS.get(type(op)) or NAMED_LOWERINGS.get(op.name)
    if lowering is None:
        hint = " (run convert-scf-to-cf first)" if op.name.startswith("scf.") else ""
        raise QdotError(op, f"'{op.name}' has no translation to LLVM IR{hint}")
    for value in op.operands:
        em.type_text(value.type, op)  # reject unsupported types with a diagnostic at this op
    for value in op.results:
        em.type_text(value.type, op)
    lowering(em, op)


def _terminator(em: FunctionEmitter, op: Operation, labels: dict[Block, str], edges: _Edges,
                result_type: str) -> None:
    if isinstance(op, func.ReturnOp):
        values = list(op.arguments)
        if not values:
            em.emit("ret void")
        elif len(values) == 1:
            em.emit(f"ret {em.typed(values[0])}")
        else:
            aggregate = "poison"
            for index, value in enumerate(values):
                aggregate = em.temp(f"insertvalue {result_type} {aggregate}, {em.typed(value)}, {index}", "ret")
            em.emit(f"ret {result_type} {aggregate}")
    elif isinstance(op, cf.BranchOp):
        em.emit(f"br label %{labels[op.successor]}")
    elif isinstance(op, cf.ConditionalBranchOp):
        if op in edges.split:
            then_label, else_label = edges.split[op]
            target = labels[op.then_block]
            em.emit(f"br i1 {em.text(op.cond)}, label %{then_label}, label %{else_label}")
            em.lines += [f"{then_label}:", f"  br label %{target}", f"{else_label}:", f"  br label %{target}"]
        else:
            em.emit(f"br i1 {em.text(op.cond)}, label %{labels[op.then_block]}, label %{labels[op.else_block]}")
    else:
        raise QdotError(op, f"terminator '{op.name}' has no translation to LLVM IR "
                            "(func.return, cf.br and cf.cond_br do)")


__all__ = ["LOWERINGS", "emit_llvm_ir"]
