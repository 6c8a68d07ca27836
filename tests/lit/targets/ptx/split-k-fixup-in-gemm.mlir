// REQUIRES: ptxas
// RUN: qdot-translate %s --target ptx --arch sm_90 > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90 -o /dev/null %t.ptx
// The decode split-K kernel with its fix-up in the GEMM exactly as compiler/mmq_template.py writes it
// (mmq_kernel(MmqConfig(small_m=True, block_n=16, num_warps=1, split_k=True, fixup=True, fixup_in_gemm=True))),
// to PTX: after the K loop no red.global.add — the partial Yᵀ tile goes to the split's workspace slot (st.global),
// then the arrival (bar.sync, fence.acq_rel.gpu, thread 0's atom.global.add.u32 on the tile's counter, a second
// fence, the counter's reset, bar.red.or.pred) and, in the last program only (the branch on the vote), the
// pieces' loads — sixteen before the first addition, four single ld.global per thread each (the columns are
// bounded by M: no 16-byte runs), then a loop — and the sum's stores into Y.
// CHECK:       .entry small_m_q8_1_q4_K_16_w1_splitk_fixup_ingemm(
// CHECK-NOT:   red.global.add
// CHECK:       mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32
// CHECK:       st.global
// CHECK:       bar.sync 0;
// CHECK:       fence.acq_rel.gpu;
// CHECK:       atom.global.add.u32
// CHECK:       fence.acq_rel.gpu;
// CHECK:       st.global.b32
// CHECK:       bar.red.or.pred [[LAST:%p[0-9]+]], 0,
// CHECK:       not.pred [[SKIP:%p[0-9]+]], [[LAST]];
// CHECK-NEXT:  @[[SKIP]] bra
// CHECK-COUNT-64: ld.global.b32
// CHECK:       add.rn.f32
// CHECK:       st.global
// CHECK-NOT:   red.global.add
// CHECK-NOT:   mma.sync
func.func @small_m_q8_1_q4_K_16_w1_splitk_fixup_ingemm(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>, %part_ptr: !qdot.ptr<f32>, %count_ptr: !qdot.ptr<i32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c10 = arith.constant 10 : index
  %c11 = arith.constant 11 : index
  %c12 = arith.constant 12 : index
  %c13 = arith.constant 13 : index
  %c14 = arith.constant 14 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %pid = qdot.program_id x
  %off_n = arith.muli %pid, %c16 : index
  %pid_k = qdot.program_id y
  %splits = qdot.num_programs y
  %k_per = arith.ceildivui %kw, %splits : index
  %k_lo = arith.muli %pid_k, %k_per : index
  %k_end = arith.addi %k_lo, %k_per : index
  %k_hi = arith.minui %k_end, %kw : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<16x1x!qdot.block<q4_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %k_lo to %k_hi step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%off_n, %kk] : !qdot.desc<16x1x!qdot.block<q4_K>> -> tensor<16x1x!qdot.block<q4_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_K rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<q4_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  %fx_tiles = arith.ceildivui %n, %c16 : index
  %per_split = arith.muli %fx_tiles, %c16 : index
  %fx_rows = arith.muli %splits, %per_split : index
  %part_desc = qdot.make_desc %part_ptr, [%fx_rows, %m], [%c8, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %split_row = arith.muli %pid_k, %per_split : index
  %part_row = arith.addi %split_row, %off_n : index
  qdot.store %part_desc[%part_row, %c0], %acc : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  %last = qdot.last_arrival %count_ptr[%pid], %splits : !qdot.ptr<i32>
  scf.if %last {
    %sum_desc = qdot.make_desc %part_ptr, [%fx_rows, %m], [%c8, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
    %ysum_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
    %fx_zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
    scf.for %ch = %c0 to %c16 step %c16 {
      %ch_row = arith.addi %off_n, %ch : index
      %fx_split_row_0 = arith.muli %per_split, %c0 : index
      %fx_part_row_0 = arith.addi %fx_split_row_0, %ch_row : index
      %fx_piece_0 = qdot.load %sum_desc[%fx_part_row_0, %c0] : !qdot.desc<16x8xf32> -> tensor<16x8xf32>
      %fx_split_row_1 = arith.muli %per_split, %c1 : index
      %fx_part_row_1 = arith.addi %fx_split_row_1, %ch_row : index
      %fx_piece_1 = qdot.load %sum_desc[%fx_part_row_1, %c0] : !qdot.desc<16x8xf32> -> tensor<16x8xf32>
      %fx_split_row_2 = arith.muli %per_split, %c2 : index
      %fx_part_row_2 = arith.addi %fx_split_row_2, %ch_row : index
      %fx_piece_2 = qdot.load %sum_desc[%fx_part_row_2, %c0] : !qdot.desc<16x8xf32> -> tensor<16x8xf32>
      %fx_split_row_3 = arith.muli %per_split, %c3 : index
      %fx_part_row_3 = arith.addi %fx_split_row_3, %ch_row : index
      %fx_piece_3 = qdot.load %sum_desc[%fx_part_row_3, %c0] : !qdot.desc<16x8xf32> -> tensor<16x8xf32>
      %fx_split_row_4 = arith.muli %per_split, %c4 : index
      %fx_part_row_4 = arith.addi %fx_split_row_4, %ch_row : index
      %fx_piece_4 = qdot.load %sum_desc[%fx_part_row_4, %c0] : !qdot.desc<16x8xf32> -> tensor<16x8xf32>
      %fx_split_row_5 = arith.muli %per_split, %c5 : index
      %fx_part_row_5 = arith.addi %fx_split_row_5, %ch_row : index
      %fx_piece_5 = qdot.load %sum_desc[%fx_part_row_5, %c0] : !qdot.desc<16x8xf32> -> tensor<16x8xf32>
      %fx_split_row_6 = arith.muli %per_split, %c6 : index
      %fx_part_row_6 = arith.addi %fx_split_row_6, %ch_row : index
      %fx_piece_6 = qdot.load %sum_desc[%fx_part_row_6, %c0] : !qdot.desc<16x8xf32> -> tensor<16x8xf32>
      %fx_split_row_7 = arith.muli %per_split, %c7 : index
      %fx_part_row_7 = arith.addi %fx_split_row_7, %ch_row : index
      %fx_piece_7 = qdot.load %sum_desc[%fx_part_row_7, %c0] : !qdot.desc<16x8xf32> -> tensor<16x8xf32>
      %fx_split_row_8 = arith.muli %per_split, %c8 : index
      %fx_part_row_8 = arith.addi %fx_split_row_8, %ch_row : index
      %fx_piece_8 = qdot.load %sum_desc[%fx_part_row_8, %c0] : !qdot.desc<16x8xf32> -> tensor<16x8xf32>
      %fx_split_row_9 = arith.muli %per_split, %c9 : index
      %fx_part_row_9 = arith.addi %fx_split_row_9, %ch_row : index
      %fx_piece_9 = qdot.load %sum_desc[%fx_part_row_9, %c0] : !qdot.desc<16x8xf32> -> tensor<16x8xf32>
      %fx_split_row_10 = arith.muli %per_split, %c10 : index
      %fx_part_row_10 = arith.addi %fx_split_row_10, %ch_row : index
      %fx_piece_10 = qdot.load %sum_desc[%fx_part_row_10, %c0] : !qdot.desc<16x8xf32> -> tensor<16x8xf32>
      %fx_split_row_11 = arith.muli %per_split, %c11 : index
      %fx_part_row_11 = arith.addi %fx_split_row_11, %ch_row : index
      %fx_piece_11 = qdot.load %sum_desc[%fx_part_row_11, %c0] : !qdot.desc<16x8xf32> -> tensor<16x8xf32>
      %fx_split_row_12 = arith.muli %per_split, %c12 : index
      %fx_part_row_12 = arith.addi %fx_split_row_12, %ch_row : index
      %fx_piece_12 = qdot.load %sum_desc[%fx_part_row_12, %c0] : !qdot.desc<16x8xf32> -> tensor<16x8xf32>
      %fx_split_row_13 = arith.muli %per_split, %c13 : index
      %fx_part_row_13 = arith.addi %fx_split_row_13, %ch_row : index
      %fx_piece_13 = qdot.load %sum_desc[%fx_part_row_13, %c0] : !qdot.desc<16x8xf32> -> tensor<16x8xf32>
      %fx_split_row_14 = arith.muli %per_split, %c14 : index
      %fx_part_row_14 = arith.addi %fx_split_row_14, %ch_row : index
      %fx_piece_14 = qdot.load %sum_desc[%fx_part_row_14, %c0] : !qdot.desc<16x8xf32> -> tensor<16x8xf32>
      %fx_split_row_15 = arith.muli %per_split, %c15 : index
      %fx_part_row_15 = arith.addi %fx_split_row_15, %ch_row : index
      %fx_piece_15 = qdot.load %sum_desc[%fx_part_row_15, %c0] : !qdot.desc<16x8xf32> -> tensor<16x8xf32>
      %fx_sum_0 = arith.addf %fx_zero, %fx_piece_0 : tensor<16x8xf32>
      %fx_sum_1 = arith.addf %fx_sum_0, %fx_piece_1 : tensor<16x8xf32>
      %fx_sum_2 = arith.addf %fx_sum_1, %fx_piece_2 : tensor<16x8xf32>
      %fx_sum_3 = arith.addf %fx_sum_2, %fx_piece_3 : tensor<16x8xf32>
      %fx_sum_4 = arith.addf %fx_sum_3, %fx_piece_4 : tensor<16x8xf32>
      %fx_sum_5 = arith.addf %fx_sum_4, %fx_piece_5 : tensor<16x8xf32>
      %fx_sum_6 = arith.addf %fx_sum_5, %fx_piece_6 : tensor<16x8xf32>
      %fx_sum_7 = arith.addf %fx_sum_6, %fx_piece_7 : tensor<16x8xf32>
      %fx_sum_8 = arith.addf %fx_sum_7, %fx_piece_8 : tensor<16x8xf32>
      %fx_sum_9 = arith.addf %fx_sum_8, %fx_piece_9 : tensor<16x8xf32>
      %fx_sum_10 = arith.addf %fx_sum_9, %fx_piece_10 : tensor<16x8xf32>
      %fx_sum_11 = arith.addf %fx_sum_10, %fx_piece_11 : tensor<16x8xf32>
      %fx_sum_12 = arith.addf %fx_sum_11, %fx_piece_12 : tensor<16x8xf32>
      %fx_sum_13 = arith.addf %fx_sum_12, %fx_piece_13 : tensor<16x8xf32>
      %fx_sum_14 = arith.addf %fx_sum_13, %fx_piece_14 : tensor<16x8xf32>
      %fx_sum_15 = arith.addf %fx_sum_14, %fx_piece_15 : tensor<16x8xf32>
      %fx_sum = scf.for %fx_s = %c16 to %splits step %c1 iter_args(%fx_acc = %fx_sum_15) -> (tensor<16x8xf32>) {
        %fx_split_row = arith.muli %per_split, %fx_s : index
        %fx_part_row = arith.addi %fx_split_row, %ch_row : index
        %fx_piece = qdot.load %sum_desc[%fx_part_row, %c0] : !qdot.desc<16x8xf32> -> tensor<16x8xf32>
        %fx_next = arith.addf %fx_acc, %fx_piece : tensor<16x8xf32>
        scf.yield %fx_next : tensor<16x8xf32>
      }
      qdot.store %ysum_desc[%ch_row, %c0], %fx_sum : !qdot.desc<16x8xf32>, tensor<16x8xf32>
    }
  }
  func.return
}
