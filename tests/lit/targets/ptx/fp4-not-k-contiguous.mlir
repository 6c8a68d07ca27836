// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_120a}' | filecheck %s --check-prefix=ORDER
// RUN: qdot-translate %s --target ptx --arch sm_120a | filecheck %s
// RUN: qdot-translate %s --target ptx --arch sm_120a --remarks -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// The documented fallback, not the fast path: the fp4 ldmatrix (.m8n16 .b8x16.b4x16_p64)
// delivers nibbles packed along K, so it needs the packed fp4 operand K-contiguous in shared
// memory (Triton's SM120 path: allowTranspose = false). qdot-accelerate-matmul stages a loaded tile
// in its global order, since a cp.async copy cannot transpose it: B = [K/2, N] with K contiguous
// (strides [1, K/2], the usual weight layout) gets order [0, 1], fp4Padded, and the fp4 ldmatrix;
// B with N contiguous (strides [N, 1]) gets order [1, 0] and no fp4Padded — no ldmatrix reads
// those rows, so the padding would only double the buffer (12288 B against 9216 B of shared
// memory here) — and its local_load asks for the fallback: qdot-lower-local-load assembles each
// register from single-byte ld.shared loads (one nibble each) — slower, still the native
// kind::f8f6f4 mma and the same registers.

// ORDER-LABEL: func.func @k_contiguous
// ORDER:       %[[B:.*]] = qgpu.local_alloc %b {{.*}}order = [0, 1], fp4Padded = true}>>
// ORDER:       qgpu.local_load %[[B]] : {{.*}}fp4Unpacked = true
// ORDER:       qgpu.mma {{.*}}lhs = e4m3 rhs = e2m1 {qdot.strategy = "native"}
// ORDER-LABEL: func.func @n_contiguous
// ORDER:       %[[B:.*]] = qgpu.local_alloc %b : (tensor<32x32xi8>) -> !qgpu.memdesc<32x32xi8, #qgpu.shared<{{[^>]*}}order = [1, 0]}>>
// ORDER:       qgpu.local_load %[[B]] {fallback} : {{.*}}fp4Unpacked = true
// ORDER:       qgpu.mma {{.*}}lhs = e4m3 rhs = e2m1 {qdot.strategy = "native"}

// REMARK:      remark: qdot-to-llvm: @k_contiguous: 12288 B of shared memory per CTA
// REMARK:      fp4-not-k-contiguous.mlir:59:5: remark: qdot-accelerate-matmul: lhs e4m3: no conversion, read as it is; rhs e2m1: staged fp4Padded, read fp4Unpacked (0000xxxx bytes, shifted to 00xxxx00 at the mma), K-contiguous as loaded: the order the fp4 ldmatrix reads{{$}}
// REMARK:      fp4-not-k-contiguous.mlir:59:5: remark: qdot-lower-local-load: rhs operand 32x32xi8 (kWidth 2, fp4Unpacked): 4 × ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64
// REMARK:      remark: qdot-to-llvm: @n_contiguous: 9216 B of shared memory per CTA
// REMARK:      fp4-not-k-contiguous.mlir:82:5: remark: qdot-accelerate-matmul: lhs e4m3: no conversion, read as it is; rhs e2m1: staged unpadded, read fp4Unpacked (0000xxxx bytes, shifted to 00xxxx00 at the mma) by single-byte ld.shared loads (fallback), N-contiguous as loaded: cp.async cannot transpose it to the K-contiguous rows the fp4 ldmatrix reads, so fp4Padded would only double its shared memory{{$}}
// REMARK:      fp4-not-k-contiguous.mlir:82:5: remark: qdot-lower-local-load: rhs operand 32x32xi8 (kWidth 2, fp4Unpacked): scalar ld.shared fallback: the op's fallback attribute asks for it

// CHECK-LABEL: .visible .entry k_contiguous(
// CHECK-NOT:   ld.shared.b8
// CHECK:       ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64
// CHECK:       mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m1.f32
// CHECK-NOT:   ld.shared.b{{8|16}}
// CHECK-LABEL: .visible .entry n_contiguous(
// CHECK-NOT:   b4x16_p64
// CHECK:       ld.shared.b8
// CHECK:       mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e4m3.e2m1.f32
// CHECK-NOT:   b4x16_p64
// CHECK-NOT:   ld.shared.b16
// CHECK:       ret;

func.func @k_contiguous(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
                        %k: index {qdot.divisibility = 64 : i64}) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %kb = arith.divui %k, %c2 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<32x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%kb, %n], [%c1, %kb] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) {
    %kkb = arith.divui %kk, %c2 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<32x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
    %b = qdot.load %b_desc[%kkb, %c0] : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
    %d = qdot.dot_scaled %a, %b, %acc_i lhs = e4m3 rhs = e2m1 : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}

// The same kernel with B stored [K/2, N] row-major: N contiguous.
func.func @n_contiguous(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
                        %k: index {qdot.divisibility = 64 : i64}) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %kb = arith.divui %k, %c2 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<32x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%kb, %n], [%n, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) {
    %kkb = arith.divui %kk, %c2 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<32x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
    %b = qdot.load %b_desc[%kkb, %c0] : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
    %d = qdot.dot_scaled %a, %b, %acc_i lhs = e4m3 rhs = e2m1 : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}
