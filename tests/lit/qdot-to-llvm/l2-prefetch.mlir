// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' | filecheck %s
// The L2 prefetch-size hint: every cp.async of a kernel with qdot.l2_prefetch = N carries
// `l2_prefetch N` (PTX `.L2::<N>B`), the 16-byte cg copies and the 4-byte ca ones alike;
// a kernel without the attribute gets no hint.

#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>

// CHECK-LABEL: func.func @hinted
// CHECK-NOT:   ptx.cp_async {{c[ag]}} %
// CHECK-COUNT-4: ptx.cp_async cg l2_prefetch 128 %{{.*}}, %{{.*}}, 16, %{{.*}}
// CHECK-NOT:   ptx.cp_async {{c[ag]}} %
// CHECK:       ptx.cp_async_commit
func.func @hinted(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index {qdot.divisibility = 16 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.l2_prefetch = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %buf = qgpu.local_alloc : () -> !qgpu.memdesc<32x64xi8, #sh, mutable>
  qgpu.async_copy %a_desc[%c0, %c0], %buf : !qdot.desc<32x64xi8>, !qgpu.memdesc<32x64xi8, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

// Rows only known 4-byte aligned (f32, stride %k): 4-byte cp.async.ca copies, hinted too.
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

// CHECK-LABEL: func.func @hinted_narrow
// CHECK-NOT:   ptx.cp_async {{c[ag]}} %
// CHECK-COUNT-16: ptx.cp_async ca l2_prefetch 256 %{{.*}}, %{{.*}}, 4, %{{.*}}
// CHECK-NOT:   ptx.cp_async {{c[ag]}} %
// CHECK:       ptx.cp_async_commit
func.func @hinted_narrow(%a_ptr: !qdot.ptr<f32>, %m: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.l2_prefetch = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x16xf32>
  %buf = qgpu.local_alloc : () -> !qgpu.memdesc<32x16xf32, #sh, mutable>
  qgpu.async_copy %a_desc[%c0, %c0], %buf : !qdot.desc<32x16xf32>, !qgpu.memdesc<32x16xf32, #sh, mutable>
  qgpu.async_commit
  func.return
}

// -----

#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>

// CHECK-LABEL: func.func @plain
// CHECK-COUNT-4: ptx.cp_async cg %{{.*}}, %{{.*}}, 16, %{{.*}}
// CHECK-NOT:   l2_prefetch
func.func @plain(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index {qdot.divisibility = 16 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %buf = qgpu.local_alloc : () -> !qgpu.memdesc<32x64xi8, #sh, mutable>
  qgpu.async_copy %a_desc[%c0, %c0], %buf : !qdot.desc<32x64xi8>, !qgpu.memdesc<32x64xi8, #sh, mutable>
  qgpu.async_commit
  func.return
}
