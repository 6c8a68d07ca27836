// RUN: qdot-opt %s --split-input-file -p 'agx-hints-and-waits{hints=true waits=needed}' --remarks=agx-hints-and-waits -o /dev/null 2>&1 | filecheck %s --check-prefix=HINTS
// RUN: qdot-opt %s --split-input-file -p 'agx-hints-and-waits' --remarks=agx-hints-and-waits -o /dev/null 2>&1 | filecheck %s --check-prefix=DEFAULT
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-agx{form=agx3b},agx-hints-and-waits{waits=needed}' --remarks=agx-hints-and-waits -o /dev/null 2>&1 | filecheck %s --check-prefix=AGX3B
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-agx{form=agx3c},agx-hints-and-waits{waits=needed}' --remarks=agx-hints-and-waits -o /dev/null 2>&1 | filecheck %s --check-prefix=AGX3C
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-agx{form=agx3c},agx-hints-and-waits' --remarks=agx-hints-and-waits -o /dev/null 2>&1 | filecheck %s --check-prefix=AGX3C-ALL
// What --remarks says agx-hints-and-waits decided for a tile (passes/agx_hints_and_waits.py,
// _remark): the loads spread round-robin over the form's wait slots (six on agx3b, eight on
// agx3c), which wait mode ran and how many MMAs wait on how many slots, and the register-cache
// hints it placed — none with hints=false, the default. hints.mlir, waits.mlir and
// waits-all.mlir pin the hints and waits themselves.

// Two loads of %a and %b are each read twice (cache, then discard), the others once; two
// results are read again as C (d_cache). With the defaults the first MMA waits on every slot,
// which leaves nothing for the other two to wait on.
// HINTS:   remarks.mlir:[[# @LINE + 2]]:1: remark: agx-hints-and-waits: @reuse: 5 fragment loads round-robin over agx3b's 6 wait slots; waits=needed: 3 of 3 mma8 wait on the slots they need (5 slot waits); hints: 7 discard, 2 cache, 2 d_cache{{$}}
// DEFAULT: remarks.mlir:[[# @LINE + 1]]:1: remark: agx-hints-and-waits: @reuse: 5 fragment loads round-robin over agx3b's 6 wait slots; waits=all: 1 of 3 mma8 wait on every slot (6 slot waits); hints=false: no register-cache hints{{$}}
func.func @reuse(%x: tensor<8x24xf16>, %w: tensor<24x8xf16>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c = agx.load_frag acc %acc[0, 0] : tensor<8x8xf32> -> !agx.frag<fp32>
  %a = agx.load_frag lhs %x[0, 0] : tensor<8x24xf16> -> !agx.frag<fp16>
  %b = agx.load_frag rhs %w[0, 0] : tensor<24x8xf16> -> !agx.frag<fp16>
  %b1 = agx.load_frag rhs %w[8, 0] : tensor<24x8xf16> -> !agx.frag<fp16>
  %a2 = agx.load_frag lhs %x[0, 16] : tensor<8x24xf16> -> !agx.frag<fp16>
  %d0 = agx.mma8 %a, %b, %c : !agx.frag<fp16>, !agx.frag<fp16>, !agx.frag<fp32> -> !agx.frag<fp32>
  %d1 = agx.mma8 %a, %b1, %d0 : !agx.frag<fp16>, !agx.frag<fp16>, !agx.frag<fp32> -> !agx.frag<fp32>
  %d2 = agx.mma8 %a2, %b, %d1 : !agx.frag<fp16>, !agx.frag<fp16>, !agx.frag<fp32> -> !agx.frag<fp32>
  %r = agx.store_tile %d2 : !agx.frag<fp32> -> tensor<8x8xf32>
  func.return %r : tensor<8x8xf32>
}

// -----

// Seven loads (one A, six B) for six multiply-form MMAs: with waits=needed, on agx3b the seventh
// load reuses slot 0, which the first MMA's wait retires, so the last MMA waits on nothing (5 of 6);
// on agx3c every load has its own slot and every MMA waits (6 of 6). With waits=all the first MMA
// waits on all eight agx3c slots and the others on none.
// AGX3B:     remarks.mlir:[[# @LINE + 3]]:1: remark: agx-hints-and-waits: @round_robin: 7 fragment loads round-robin over agx3b's 6 wait slots; waits=needed: 5 of 6 mma8 wait on the slots they need (6 slot waits); hints=false: no register-cache hints{{$}}
// AGX3C:     remarks.mlir:[[# @LINE + 2]]:1: remark: agx-hints-and-waits: @round_robin: 7 fragment loads round-robin over agx3c's 8 wait slots; waits=needed: 6 of 6 mma8 wait on the slots they need (7 slot waits); hints=false: no register-cache hints{{$}}
// AGX3C-ALL: remarks.mlir:[[# @LINE + 1]]:1: remark: agx-hints-and-waits: @round_robin: 7 fragment loads round-robin over agx3c's 8 wait slots; waits=all: 1 of 6 mma8 wait on every slot (8 slot waits); hints=false: no register-cache hints{{$}}
func.func @round_robin(%x: tensor<8x8xf16>, %w: tensor<8x48xf16>) -> tensor<8x48xf32> {
  %acc = arith.constant dense<0.0> : tensor<8x48xf32>
  %d = qdot.dot_scaled %x, %w, %acc lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x48xf16> -> tensor<8x48xf32>
  func.return %d : tensor<8x48xf32>
}
