// RUN: qdot-translate %s --target ptx --arch sm_90 --strategy promote-int8 --num-stages 2 | filecheck %s
// RUN: qdot-translate %s --target ptx --arch sm_90 --strategy promote-int8 --num-stages 2 \
// RUN:   | not grep -E '\b(div|rem)\.'
// The decode kernel with its K splits interleaved, exactly as compiler/mmq_template.py writes it
// (mmq_kernel(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True,
// interleave_splits=True))): program (x, y) of S splits reads K steps y, y + S, y + 2S, … so the
// S programs of a row tile read adjacent super-blocks of their rows at the same time (run 106).
// The K loop's induction variable starts at %ctaid.y and steps by %nctaid.y up to the super-block
// count (K / 256); no division splits K into shares (the contiguous form divides K by S).

// CHECK:       shr.u64 [[KW:%rd[0-9]+]], {{%rd[0-9]+}}, 8;
// CHECK:       mov.u32 [[Y:%r[0-9]+]], %ctaid.y;
// CHECK-NEXT:  cvt.u64.u32 [[KK:%rd[0-9]+]], [[Y]];
// CHECK:       setp.le.u64 {{%p[0-9]+}}, [[KW]], [[KK]];
// CHECK:       mov.u32 [[S:%r[0-9]+]], %nctaid.y;
// CHECK-NEXT:  cvt.u64.u32 [[STEP:%rd[0-9]+]], [[S]];
// CHECK:       add.s64 [[KK]], [[KK]], [[STEP]];
// CHECK:       setp.lt.u64 {{%p[0-9]+}}, [[KK]], [[KW]];
// CHECK:       red.global.add.f32

func.func @small_m_q8_1_q4_K_16_w1_splitk_il(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %pid = qdot.program_id x
  %off_n = arith.muli %pid, %c16 : index
  %pid_k = qdot.program_id y
  %splits = qdot.num_programs y
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<16x1x!qdot.block<q4_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %pid_k to %kw step %splits iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%off_n, %kk] : !qdot.desc<16x1x!qdot.block<q4_K>> -> tensor<16x1x!qdot.block<q4_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_K rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<q4_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%off_n, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}
