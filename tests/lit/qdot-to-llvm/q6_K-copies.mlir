// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90},qdot-optimize-dot-operands,qdot-pipeline{num-stages=2},qdot-lower-local-load{arch=sm_90},qdot-lower-mma,qdot-to-llvm{arch=sm_90}' > %t
// RUN: filecheck %s < %t
// A global tile's rows start at row · stride · element bytes: the copy's chunks may be 4, 8 or 16
// bytes only where that is provably a multiple of them — the power-of-two part of (the stride's known
// divisor) × (the element's bytes), not the product itself. q6_K's 210-byte blocks make the
// difference: two blocks per row of the tile (420 bytes, a multiple of 4) at a row stride of K/256
// blocks. With K a multiple of 256 only, K/256 may be odd and a row start only 2-aligned: the tile
// is copied in 2-byte pieces (synchronous ld.global of i16), never in 4-byte cp.async (which the
// emulator reports misaligned); with K a multiple of 512 every row starts 4-aligned and the tile
// goes by 4-byte cp.async.

// CHECK-LABEL: func.func @k_multiple_of_256
// CHECK-NOT:   ptx.cp_async ca {{.*}}, 4
// CHECK:       ptx.ld_global %{{.*}} if %{{.*}} : i16
// CHECK-NOT:   ptx.cp_async ca {{.*}}, 4
// CHECK:       func.return
func.func @k_multiple_of_256(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q6_K>>, %y_ptr: !qdot.ptr<f32>,
                           %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q6_K>> -> !qdot.desc<16x2x!qdot.block<q6_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<4x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c2 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x2x!qdot.block<q6_K>> -> tensor<16x2x!qdot.block<q6_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<4x8x!qdot.block<q8_1_mmq>> -> tensor<4x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q6_K rhs = q8_1_mmq
         : tensor<16x2x!qdot.block<q6_K>> * tensor<4x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

// -----

// CHECK-LABEL: func.func @k_multiple_of_512
// CHECK-NOT:   ptx.ld_global {{.*}} : i16
// CHECK:       ptx.cp_async ca %{{.*}}, %{{.*}}, 4
// CHECK-NOT:   ptx.ld_global {{.*}} : i16
// CHECK:       func.return
func.func @k_multiple_of_512(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q6_K>>, %y_ptr: !qdot.ptr<f32>,
                           %m: index, %n: index, %k: index {qdot.divisibility = 512 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q6_K>> -> !qdot.desc<16x2x!qdot.block<q6_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<4x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c2 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x2x!qdot.block<q6_K>> -> tensor<16x2x!qdot.block<q6_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<4x8x!qdot.block<q8_1_mmq>> -> tensor<4x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q6_K rhs = q8_1_mmq
         : tensor<16x2x!qdot.block<q6_K>> * tensor<4x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}
