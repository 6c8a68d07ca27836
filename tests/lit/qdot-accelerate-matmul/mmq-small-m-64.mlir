// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s
// RUN: qdot-translate %s --arch sm_90 --num-stages 2 | filecheck %s --check-prefix=PTX
// The weights-once kernel widened to 64 tokens, as choose_mmq picks it for 33 <= M <= 64 where W has at most 2^24
// weights (compiler/mmq_choice.py, runs 241-242; MmqConfig(small_m=True, block_n=64, num_warps=4, split_k=True,
// max_m=64)). Its 64 weight rows × 64 tokens split over the 4 warps as warpsPerCTA [2, 2] — the only weights-once
// tile with warps along the tokens: each warp a 32 × 32 slice, where the 32-token tile on 4 warps is [4, 1] (16 × 32,
// mmq-small-m-wide.mlir). Per super-block each warp issues 2 m16 × 4 n8 tiles × 8 k32 steps = 64 int8 mma and the
// 8 fp16 mma of the dmin fold; its 32 × 32 slice of Yᵀ is added into Y, 32 values per thread.

// CHECK-LABEL: func.func @small_m_q8_1_q4_K_64_w4_splitk_m64
// CHECK:       arith.constant dense<0.000000e+00> : tensor<64x64xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
// CHECK:       scf.for {{.*}} -> (tensor<64x64xf32, [[MMA:#qgpu.mma<[^>]*>]]>) {
// CHECK:         qgpu.local_alloc %x : (tensor<2x64x!qdot.block<q8_1_mmq>>)
// CHECK:         qgpu.mma {{.*}} lhs = u8 rhs = s8 {{.*}} : tensor<64x256xi8, {{.*}}>, tensor<256x64xi8, {{.*}}> -> tensor<64x64xf32, [[MMA]]>
// CHECK:         qgpu.mma {{.*}} lhs = fp16 rhs = fp16 {qdot.fold = "dmin", {{.*}} -> tensor<64x64xf32, [[MMA]]>
// CHECK:       qdot.store %yt_desc[%off_n, %c0], %acc {reduce = "add"} : !qdot.desc<64x64xf32>, tensor<64x64xf32, [[MMA]]>

// PTX:           .entry small_m_q8_1_q4_K_64_w4_splitk_m64(
// PTX-COUNT-64:  mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32
// PTX-NOT:       mma.sync.aligned.m16n8k32
// PTX-COUNT-32:  red.global.add.f32
// PTX-NOT:       red.global.add.f32
func.func @small_m_q8_1_q4_K_64_w4_splitk_m64(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
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
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x64x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %kk = %k_lo to %k_hi step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%off_n, %kk] : !qdot.desc<64x1x!qdot.block<q4_K>> -> tensor<64x1x!qdot.block<q4_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x64x!qdot.block<q8_1_mmq>> -> tensor<2x64x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_K rhs = q8_1_mmq
         : tensor<64x1x!qdot.block<q4_K>> * tensor<2x64x!qdot.block<q8_1_mmq>> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  qdot.store %yt_desc[%off_n, %c0], %acc {reduce = "add"} : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}
