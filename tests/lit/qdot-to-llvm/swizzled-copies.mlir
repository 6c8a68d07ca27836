// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm{arch=sm_90}' --remarks=qdot-to-llvm 2>&1 | grep 'remark: qdot-to-llvm: copy' | filecheck %s
// A copy into a swizzled buffer moves chunks of at most one swizzle run (vec × element bytes), which
// the swizzle places as a whole: a 16-byte chunk over two 8-byte runs went by one cp.async to where its
// first byte goes, and its second half landed in the wrong run (tests/emulator/test_swizzled_copies.py).

// bf16 with vec = 4: 8-byte runs, 8-byte cp.async.
// CHECK:      swizzled-copies.mlir:[[# @LINE + 8]]:3: remark: qdot-to-llvm: copy of a 64x64xbf16 tile: 8-byte cp.async, 32 per thread; not 16-byte: the swizzle moves 8-byte runs, each to its own place
#sh = #qgpu.shared<{vec = 4, perPhase = 2, maxPhase = 8, order = [1, 0]}>
func.func @runs_8(%a_ptr: !qdot.ptr<bf16>, %m: index, %k: index {qdot.divisibility = 16 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<bf16> -> !qdot.desc<64x64xbf16>
  %buf = qgpu.local_alloc : () -> !qgpu.memdesc<64x64xbf16, #sh, mutable>
  qgpu.async_copy %a[%c0, %c0], %buf : !qdot.desc<64x64xbf16>, !qgpu.memdesc<64x64xbf16, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

// bf16 with vec = 8: 16-byte runs, 16-byte cp.async as before.
// CHECK-NEXT: swizzled-copies.mlir:[[# @LINE + 8]]:3: remark: qdot-to-llvm: copy of a 64x64xbf16 tile: 16-byte cp.async, 16 per thread{{$}}
#sh = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @runs_16(%a_ptr: !qdot.ptr<bf16>, %m: index, %k: index {qdot.divisibility = 16 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<bf16> -> !qdot.desc<64x64xbf16>
  %buf = qgpu.local_alloc : () -> !qgpu.memdesc<64x64xbf16, #sh, mutable>
  qgpu.async_copy %a[%c0, %c0], %buf : !qdot.desc<64x64xbf16>, !qgpu.memdesc<64x64xbf16, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

// i8 with vec = 1: 1-byte runs, no cp.async at all.
// CHECK-NEXT: swizzled-copies.mlir:[[# @LINE + 8]]:3: remark: qdot-to-llvm: copy of a 32x64xi8 tile: synchronous 1-byte loads and shared stores, piece by piece; no cp.async: the swizzle moves 1-byte runs, each to its own place
#sh = #qgpu.shared<{vec = 1, perPhase = 2, maxPhase = 4, order = [1, 0]}>
func.func @runs_1(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index {qdot.divisibility = 16 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %buf = qgpu.local_alloc : () -> !qgpu.memdesc<32x64xi8, #sh, mutable>
  qgpu.async_copy %a[%c0, %c0], %buf : !qdot.desc<32x64xi8>, !qgpu.memdesc<32x64xi8, #sh, mutable>
  qgpu.async_commit
  func.return
}
