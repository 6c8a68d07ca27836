// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90}'
// Tiles a plan's register layouts cannot cover are refused at the dot, by
// qdot-accelerate-matmul, which lays out every tensor type it makes before moving on (they
// used to fail two passes later, in qdot-lower-local-load, with no location).

// 24 columns: no power of two, so no register or shared layout covers the tile (they map the bits
// of an index): refused at the dot, naming the dimension, before any layout is tried.
func.func @n24(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
               %k: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %kb = arith.divui %k, %c2 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<16x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%kb, %n], [%c1, %kb] : !qdot.ptr<i8> -> !qdot.desc<32x24xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x24xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x24xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<16x24xf32>) {
    %kkb = arith.divui %kk, %c2 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<16x64xf8E4M3FN> -> tensor<16x64xf8E4M3FN>
    %b = qdot.load %b_desc[%kkb, %c0] : !qdot.desc<32x24xi8> -> tensor<32x24xi8>
    // expected-error@+1 {{tile N = 24 is not a power of two: qdot's register and shared layouts map the bits of an index, so a dot's M, N and K per tile must be powers of two (M = 16, N = 24, K = 64 here)}}
    %d = qdot.dot_scaled %a, %b, %acc_i lhs = e4m3 rhs = e2m1 : tensor<16x64xf8E4M3FN> * tensor<32x24xi8> -> tensor<16x24xf32>
    scf.yield %d : tensor<16x24xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<16x24xf32>, tensor<16x24xf32>
  func.return
}

// -----

// Three warps: no power-of-two tile splits into three warps' whole mma tiles (and #qgpu.mma takes
// powers of two).
func.func @three_warps(%a: tensor<16x64xf8E4M3FN>, %b: tensor<32x256xi8>, %acc: tensor<16x256xf32>) -> tensor<16x256xf32>
    attributes {qdot.num_warps = 3 : i64} {
  // expected-error@+1 {{the 16×256 output tile cannot be split over 3 warps in 16×8 mma tiles}}
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e2m1 : tensor<16x64xf8E4M3FN> * tensor<32x256xi8> -> tensor<16x256xf32>
  func.return %d : tensor<16x256xf32>
}

// -----

// The bf16 mma reads A in k-spans of 32 bytes of e4m3 before conversion: a 16-deep K is too short.
func.func @short_k(%a: tensor<64x16xf8E4M3FN>, %b: tensor<8x16xi8>, %acc: tensor<64x16xf32>) -> tensor<64x16xf32>
    attributes {qdot.num_warps = 1 : i64} {
  // expected-error@+1 {{on 1 warp: dimension 1 (K) of operand A = 16 must be a multiple of 32}}
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e2m1 : tensor<64x16xf8E4M3FN> * tensor<8x16xi8> -> tensor<64x16xf32>
  func.return %d : tensor<64x16xf32>
}

// -----

// K = 48: mma.sync's layouts need powers of two, so the dot is refused (on sm_90a too: a 96-byte
// K row is no swizzle width, 32, 64 or 128 bytes, so no wgmma descriptor describes the buffers).
func.func @k48(%a_ptr: !qdot.ptr<bf16>, %b_ptr: !qdot.ptr<bf16>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<bf16> -> !qdot.desc<64x48xbf16>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<bf16> -> !qdot.desc<48x64xbf16>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %acc = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %a = qdot.load %a_desc[%c0, %c0] : !qdot.desc<64x48xbf16> -> tensor<64x48xbf16>
  %b = qdot.load %b_desc[%c0, %c0] : !qdot.desc<48x64xbf16> -> tensor<48x64xbf16>
  // expected-error@+1 {{tile K = 48 is not a power of two}}
  %d = qdot.dot_scaled %a, %b, %acc lhs = bf16 rhs = bf16
     : tensor<64x48xbf16> * tensor<48x64xbf16> -> tensor<64x64xf32>
  qdot.store %c_desc[%c0, %c0], %d : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}
