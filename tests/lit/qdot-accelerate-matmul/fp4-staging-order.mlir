// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_120a strategy=native}' | filecheck %s
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_120a strategy=native}' --remarks -o /dev/null 2>&1 \
// RUN:   | filecheck %s --check-prefix=REMARK
// RUN: qdot-translate %s --target ptx --arch sm_120a --strategy native | filecheck %s --check-prefix=PTX
// How a native fp4Unpacked operand is staged, by where its tile comes from. The fp4 ldmatrix
// (.m8n16 .b8x16.b4x16_p64) reads only K-contiguous fp4Padded rows, so Triton's SM120 path keeps
// the packed K axis contiguous in shared memory (allowTranspose = false). A cp.async copy keeps
// the global order: a tile loaded contiguous along M (N) is staged so, unpadded — no ldmatrix
// reads it, fp4Padded would only double its buffer — and read by single-byte ld.shared loads
// (the local_load's fallback). A tile K-contiguous in memory, here through a qdot.trans of a
// [N, K/2] tile, is staged fp4Padded and read by the fp4 ldmatrix. (A tile whose order is not
// known, a function argument, is staged K-contiguous: native.mlir.)

// A = [M, K/2] with M contiguous (strides [1, M]).
// CHECK-LABEL: func.func @a_m_contiguous
// CHECK:       %[[A:.*]] = qgpu.local_alloc %a : (tensor<32x32xi8>) -> !qgpu.memdesc<32x32xi8, #qgpu.shared<{{[^>]*}}order = [0, 1]}>>
// CHECK:       qgpu.local_load %[[A]] {fallback} : {{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 0, {{.*}}kWidth = 2, fp4Unpacked = true}>>
// REMARK:      fp4-staging-order.mlir:[[# @LINE + 23]]:5: remark: qdot-accelerate-matmul: lhs e2m1: staged unpadded, read fp4Unpacked (0000xxxx bytes, shifted to 00xxxx00 at the mma) by single-byte ld.shared loads (fallback), M-contiguous as loaded: cp.async cannot transpose it to the K-contiguous rows the fp4 ldmatrix reads, so fp4Padded would only double its shared memory; rhs e4m3: no conversion, read as it is{{$}}
// PTX-LABEL:   .visible .entry a_m_contiguous(
// PTX-NOT:     b4x16_p64
// PTX:         ld.shared.b8
// PTX:         mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e4m3.f32
// PTX-NOT:     b4x16_p64
// PTX:         ret;
func.func @a_m_contiguous(%a_ptr: !qdot.ptr<i8>, %b_ptr: !qdot.ptr<f8E4M3FN>, %c_ptr: !qdot.ptr<f32>, %m: index,
                          %n: index, %k: index {qdot.divisibility = 64 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %kb = arith.divui %k, %c2 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %kb], [%c1, %m] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x32xf8E4M3FN>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) {
    %kkb = arith.divui %kk, %c2 : index
    %a = qdot.load %a_desc[%c0, %kkb] : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
    %b = qdot.load %b_desc[%kk, %c0] : !qdot.desc<64x32xf8E4M3FN> -> tensor<64x32xf8E4M3FN>
    %d = qdot.dot_scaled %a, %b, %acc_i lhs = e2m1 rhs = e4m3
       : tensor<32x32xi8> * tensor<64x32xf8E4M3FN> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}

// B = trans([N, K/2]) with K contiguous (strides [K/2, 1]): K-contiguous through the transpose,
// so fp4Padded in order [0, 1], read by the fp4 ldmatrix (qdot-optimize-dot-operands later stages
// the untransposed tile and reads it through a transposed view).
// CHECK-LABEL: func.func @b_transposed
// CHECK:       %[[B:.*]] = qgpu.local_alloc %b : (tensor<32x32xi8>) -> !qgpu.memdesc<32x32xi8, #qgpu.shared<{{[^>]*}}order = [0, 1], fp4Padded = true}>>
// CHECK:       qgpu.local_load %[[B]] : {{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 1, {{.*}}kWidth = 2, fp4Unpacked = true}>>
// REMARK:      fp4-staging-order.mlir:[[# @LINE + 24]]:5: remark: qdot-accelerate-matmul: lhs e4m3: no conversion, read as it is; rhs e2m1: staged fp4Padded, read fp4Unpacked (0000xxxx bytes, shifted to 00xxxx00 at the mma), K-contiguous as loaded: the order the fp4 ldmatrix reads{{$}}
// PTX-LABEL:   .visible .entry b_transposed(
// PTX-NOT:     ld.shared.b8
// PTX:         ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64
// PTX:         mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m1.f32
// PTX-NOT:     ld.shared.b8
// PTX:         ret;
func.func @b_transposed(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<f32>, %m: index,
                        %n: index, %k: index {qdot.divisibility = 64 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %kb = arith.divui %k, %c2 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<32x64xf8E4M3FN>
  %bt_desc = qdot.make_desc %b_ptr, [%n, %kb], [%kb, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) {
    %kkb = arith.divui %kk, %c2 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<32x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
    %bt = qdot.load %bt_desc[%c0, %kkb] : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
    %b = qdot.trans %bt {order = array<i64: 1, 0>} : tensor<32x32xi8> -> tensor<32x32xi8>
    %d = qdot.dot_scaled %a, %b, %acc_i lhs = e4m3 rhs = e2m1
       : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}
