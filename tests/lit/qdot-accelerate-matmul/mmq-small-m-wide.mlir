// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s
// RUN: qdot-translate %s --arch sm_90 --num-stages 2 | filecheck %s --check-prefix=PTX
// The weights-once kernel widened to 32 tokens (compiler/mmq_template.py, MmqConfig(small_m=True, block_n=64,
// num_warps=4, split_k=True, max_m=32)), for 9 <= M <= 32: the same kernel as the M <= 8 one — the grid over
// weight rows and K splits only, so each weight byte is read once for all the tokens — with an n tile of 32
// tokens instead of 8. The accumulator is 64 weight rows × 32 tokens, one m16 row of tiles per warp (warpsPerCTA
// [4, 1]), the activation tile 2 q8_1_mmq blocks × 32 tokens; each warp issues 4 n8 tiles × 8 k32 steps = 32
// int8 mma per super-block (the 8-token kernel on 2 warps: 2 m16 tiles × 8 = 16) and the 4 fp16 mma of the dmin
// fold, and the output Yᵀ tile is added into Y.

// CHECK-LABEL: func.func @small_m_q8_1_q4_K_64_w4_splitk_m32
// CHECK:       arith.constant dense<0.000000e+00> : tensor<64x32xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>>
// CHECK:       scf.for {{.*}} -> (tensor<64x32xf32, [[MMA:#qgpu.mma<[^>]*>]]>) {
// CHECK:         qgpu.local_alloc %x : (tensor<2x32x!qdot.block<q8_1_mmq>>)
// CHECK:         qgpu.mma {{.*}} lhs = u8 rhs = s8 {{.*}} : tensor<64x256xi8, {{.*}}>, tensor<256x32xi8, {{.*}}> -> tensor<64x32xf32, [[MMA]]>
// CHECK:         qgpu.mma {{.*}} lhs = fp16 rhs = fp16 {qdot.fold = "dmin", {{.*}} -> tensor<64x32xf32, [[MMA]]>
// CHECK:       qdot.store %yt_desc[%off_n, %c0], %acc {reduce = "add"} : !qdot.desc<64x32xf32>, tensor<64x32xf32, [[MMA]]>

// PTX:           .entry small_m_q8_1_q4_K_64_w4_splitk_m32(
// PTX-COUNT-32:  mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32
// PTX-NOT:       mma.sync.aligned.m16n8k32
// PTX:           red.global.add.f32
func.func @small_m_q8_1_q4_K_64_w4_splitk_m32(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %pid = qdot.program_id x
  %off_n = arith.muli %pid, %c64 : index
  %pid_k = qdot.program_id y
  %splits = qdot.num_programs y
  %k_per = arith.ceildivui %kw, %splits : index
  %k_lo = arith.muli %pid_k, %k_per : index
  %k_end = arith.addi %k_lo, %k_per : index
  %k_hi = arith.minui %k_end, %kw : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<64x1x!qdot.block<q4_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x32x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<64x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x32xf32>
  %acc = scf.for %kk = %k_lo to %k_hi step %c1 iter_args(%acc_i = %zero) -> (tensor<64x32xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%off_n, %kk] : !qdot.desc<64x1x!qdot.block<q4_K>> -> tensor<64x1x!qdot.block<q4_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x32x!qdot.block<q8_1_mmq>> -> tensor<2x32x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_K rhs = q8_1_mmq
         : tensor<64x1x!qdot.block<q4_K>> * tensor<2x32x!qdot.block<q8_1_mmq>> -> tensor<64x32xf32>
    scf.yield %d : tensor<64x32xf32>
  }
  qdot.store %yt_desc[%off_n, %c0], %acc {reduce = "add"} : !qdot.desc<64x32xf32>, tensor<64x32xf32>
  func.return
}

