// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-to-llvm{arch=sm_90}' | filecheck %s --check-prefix=SM90
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-to-llvm{arch=sm_120a}' | filecheck %s --check-prefix=SM120
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-to-llvm{arch=sm_86}' | filecheck %s --check-prefix=SM120
// RUN: not qdot-opt %s --split-input-file -p 'qdot-to-llvm{arch=sm_75}' 2>&1 | filecheck %s --check-prefix=ARCH
// A kernel whose shared memory is more than one CTA of the target may have is refused where it
// is laid out: ptxas does not check dynamic shared memory, so it would compile and then fail
// at every launch. 227 KB (232448 B) per CTA on sm_90, 99 KB (101376 B) on sm_86 and sm_120.

#sh = #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 1, order = [1, 0]}>

// 2 stages × 256 × 256 B = 131072 B: fits sm_90, not the 99 KB targets.
// SM90-LABEL: func.func @two_stages
// SM90-SAME:  qdot.shared_bytes = 131072 : i64
// SM120: shared-budget.mlir:[[# @LINE + 1]]:1: error: 'func.func' op the kernel needs 131072 B of shared memory per CTA (its staged tiles and buffers); {{sm_120a allows at most 101376 B|sm_86 allows at most 101376 B}}: fewer pipeline stages (num-stages) or smaller tiles fit
func.func @two_stages(%i: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %ring = qgpu.local_alloc : () -> !qgpu.memdesc<2x256x256xi8, #sh, mutable>
  %stage = qgpu.memdesc_index %ring[%i] : !qgpu.memdesc<2x256x256xi8, #sh, mutable> -> !qgpu.memdesc<256x256xi8, #sh, mutable>
  %a = builtin.unrealized_conversion_cast %stage : !qgpu.memdesc<256x256xi8, #sh, mutable> to i32
  %x = ptx.ld_shared %a : i32
  "test.op"(%x) : (i32) -> ()
  func.return
}

// -----

#sh = #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 1, order = [1, 0]}>

// 4 stages: 262144 B, more than any target allows.
// SM90: shared-budget.mlir:[[# @LINE + 2]]:1: error: 'func.func' op the kernel needs 262144 B of shared memory per CTA (its staged tiles and buffers); sm_90 allows at most 232448 B: fewer pipeline stages (num-stages) or smaller tiles fit
// SM120: shared-budget.mlir:[[# @LINE + 1]]:1: error: 'func.func' op the kernel needs 262144 B of shared memory per CTA
func.func @four_stages(%i: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %ring = qgpu.local_alloc : () -> !qgpu.memdesc<4x256x256xi8, #sh, mutable>
  %stage = qgpu.memdesc_index %ring[%i] : !qgpu.memdesc<4x256x256xi8, #sh, mutable> -> !qgpu.memdesc<256x256xi8, #sh, mutable>
  %a = builtin.unrealized_conversion_cast %stage : !qgpu.memdesc<256x256xi8, #sh, mutable> to i32
  %x = ptx.ld_shared %a : i32
  "test.op"(%x) : (i32) -> ()
  func.return
}

// ARCH: qdot-opt: error: qdot-to-llvm: unknown arch 'sm_75'; expected one of sm_80, sm_86, sm_89, sm_90, sm_90a, sm_120a, sm_120f, sm_121a
