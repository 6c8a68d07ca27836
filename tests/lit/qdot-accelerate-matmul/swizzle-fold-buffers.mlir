// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8 q4k-fold=mma swizzle-fold-buffers=true}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8 q4k-fold=mma}' | filecheck %s --check-prefix=OFF
// swizzle-fold-buffers=true: the f16 operands of the dmin mma (m_pad, s_pad: rows of 16 halves, 32 bytes, one row
// per thread) take the conflict-free swizzle of their pitch — the decoded f32 scales' (vec 4 f32 there, 8 halves
// here: 16 bytes) — so that their stores and ldmatrix reads stop hitting each bank slot twice (the remarks of
// qdot-to-llvm and qdot-lower-local-load count 16 wavefronts where 8 would do, unswizzled). Off by default
// (the OFF prefix: unswizzled), but for a kernel that carries qdot.swizzle_fold_buffers
// (MmqConfig.swizzle_fold_buffers: choose_mmq's 8-token q4_K kernel over repacked W, run 317).

// CHECK-LABEL: func.func @q4k_prefill_fold_mma
// CHECK:       qgpu.local_alloc {{.*}} -> !qgpu.memdesc<32x16xf16, #qgpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>>
// CHECK:       qgpu.local_alloc {{.*}} -> !qgpu.memdesc<32x16xf16, #qgpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>>
// OFF-LABEL:   func.func @q4k_prefill_fold_mma
// OFF:         qgpu.local_alloc {{.*}} -> !qgpu.memdesc<32x16xf16, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
func.func @q4k_prefill_fold_mma(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64}) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<32x2x!qdot.block<q8_1_mmq>>
  %w_desc = qdot.make_desc %w_ptr, [%kw, %n], [%c1, %kw] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<1x32x!qdot.block<q4_K>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %x = qdot.load %x_desc[%c0, %kkx] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<1x32x!qdot.block<q4_K>> -> tensor<1x32x!qdot.block<q4_K>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = q4_K
         : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<1x32x!qdot.block<q4_K>> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}

// -----

// OFF-LABEL:   func.func @q4k_prefill_fold_mma_attribute
// OFF:         qgpu.local_alloc {{.*}} -> !qgpu.memdesc<32x16xf16, #qgpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>>
// OFF:         qgpu.local_alloc {{.*}} -> !qgpu.memdesc<32x16xf16, #qgpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>>
func.func @q4k_prefill_fold_mma_attribute(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64}) attributes {qdot.kernel, qdot.num_warps = 4 : i64, qdot.swizzle_fold_buffers} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<32x2x!qdot.block<q8_1_mmq>>
  %w_desc = qdot.make_desc %w_ptr, [%kw, %n], [%c1, %kw] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<1x32x!qdot.block<q4_K>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %x = qdot.load %x_desc[%c0, %kkx] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<1x32x!qdot.block<q4_K>> -> tensor<1x32x!qdot.block<q4_K>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = q4_K
         : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<1x32x!qdot.block<q4_K>> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}
