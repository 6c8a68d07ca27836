// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_80 strategy=promote-int8}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' --remarks --verify-diagnostics | filecheck %s --check-prefix=REMARK
// One mma per q2_K dot, no block sum read (the min term takes the activations' values, not their sums),
// no half-block factors (no lhs_sub / rhs_sub: the scales are in the codes), no scale unpacked once per
// CTA into an i32 buffer (the 4-bit scales are one byte each, read where used) and no i32 part or tensor
// at all (sc and mn are i8, four to a register):
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' > %t.ir
// RUN: grep -c 'qgpu.mma ' %t.ir | filecheck %s --check-prefix=MMA-COUNT
// RUN: not grep -e 'part = "s"' -e 'part = "s_pad"' -e 'part = "s_pair"' -e 'lhs_sub' -e 'rhs_sub' -e 'xi32' %t.ir
// MMA-COUNT: {{^2$}}
//
// ggml's q2_K (block_q2_K: scales[16] a 4-bit scale and a 4-bit min per 16 values, qs[64] 2-bit codes,
// fp16 d, fp16 dmin; 256 values in 84 bytes), both orientations. Its value is d · sc · q − dmin · m per 16
// values. The decisions this file pins:
// * the tile is staged raw, unswizzled, blocks contiguous along K, like every ggml block;
// * its quants are one raw view, `qs` (64 bytes per block: four 2-bit fields per byte, values 32 apart,
//   q3_K's low bits), loaded into the ISA arrangement with kWidth 4 and made u8 by
//   `qgpu.upcast from = q2_K to = u8` (K = 4 × qs's, no high operand) with its 4-bit scales as the upcast's
//   integer `scale`: the part `sc` (i8 per 16 values, one byte each) in the side's *operand* scale layout
//   (`operand = true`: the threads of the operand's values), multiplied into the codes (sc · code ≤ 45
//   fits a byte) — so the mma is s8 × u8 with no `lhs_sub` / `rhs_sub` (q3_K's 6-bit scales − 32 do not
//   fit a byte and weight two half-block sums instead, mmq-q3_K.mlir);
// * its per-32 scale is the part `d` (the fp16 d as it is);
// * the min term is a fold: the block's `dmin` (per 32) and, on the activations' side, their `d` — the
//   same value as their scale operand, not their block sums `s` (q8_1 keeps one sum per 32, and the mins
//   are per 16) — weighted by the part `mn` (q2_K's 4-bit mins, i8 per 16 values) in the operand scale
//   layout, the mma's `lhs_min` / `rhs_min`: qdot-lower-mma's second mma (q2_K-mins.mlir);
// * one mma per dot, rescale = per_block, qdot.scale_bits = 17 (which speaks for the fold factors too, fp16
//   d and dmin: qdot-lower-mma takes the magic form for both sums).

// The prefill kernel of compiler/mmq_template.py with MmqConfig(weights="q2_K"), trimmed to one
// 32 × 16 tile and one warp: q8_1_mmq activations as the lhs, W the rhs, one super-block per K step.
// CHECK-LABEL: func.func @mmq_q2_K
// CHECK:       scf.for {{.*}} -> (tensor<32x16xf32, [[MMA:#qgpu.mma<[^>]*>]]>) {
// CHECK:         %[[XS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<32x2x!qdot.block<q8_1_mmq>>) -> !qgpu.memdesc<32x2x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:    %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<1x16x!qdot.block<q2_K>>) -> !qgpu.memdesc<1x16x!qdot.block<q2_K>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:    qgpu.block_part %[[XS]] {part = "qs"}
// CHECK-NEXT:    %[[X:.*]] = qgpu.local_load %{{.*}} -> tensor<32x256xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    qgpu.block_part %[[XS]] {part = "d"}
// CHECK-NEXT:    %[[XD:.*]] = qgpu.local_load %{{.*}} -> tensor<32x8xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[QV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<64x16xi8, #qgpu.block_part<{format = "q2_K", part = "qs", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[Q:.*]] = qgpu.local_load %[[QV]] : {{.*}} -> tensor<64x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[SV:.*]] = qgpu.block_part %[[WS]] {part = "sc"} : {{.*}} -> !qgpu.memdesc<16x16xi8, #qgpu.block_part<{format = "q2_K", part = "sc", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[S:.*]] = qgpu.local_load %[[SV]] : {{.*}} -> tensor<16x16xi8, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]], operand = true}>>
// CHECK-NEXT:    %[[W:.*]] = qgpu.upcast %[[Q]] scale %[[S]] from = q2_K to = u8 : tensor<64x16xi8, {{.*}}>, tensor<16x16xi8, {{.*}}> -> tensor<256x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[DV:.*]] = qgpu.block_part %[[WS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q2_K", part = "d", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[D:.*]] = qgpu.local_load %[[DV]] : {{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[DMV:.*]] = qgpu.block_part %[[WS]] {part = "dmin"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q2_K", part = "dmin", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[DM:.*]] = qgpu.local_load %[[DMV]] : {{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[MV:.*]] = qgpu.block_part %[[WS]] {part = "mn"} : {{.*}} -> !qgpu.memdesc<16x16xi8, #qgpu.block_part<{format = "q2_K", part = "mn", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[M:.*]] = qgpu.local_load %[[MV]] : {{.*}} -> tensor<16x16xi8, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]], operand = true}>>
// CHECK-NEXT:    %[[R:.*]] = qgpu.mma %[[X]], %[[W]], %{{.*}} scale %[[XD]], %[[D]] fold %[[XD]], %[[DM]] rhs_min %[[M]] lhs = s8 rhs = u8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"}
// CHECK-NEXT:    scf.yield %[[R]]
// REMARK: mmq-q2_K.mlir:[[# @LINE + 20]]:5: remark: qdot-accelerate-matmul: strategy promote-int8 for q8_1_mmq × q2_K: ggml block formats run on the s8 mma per 32-value block, llama.cpp's MMQ
// REMARK: mmq-q2_K.mlir:[[# @LINE + 19]]:5: remark: qdot-accelerate-matmul: lhs q8_1_mmq → s8: whole blocks staged in shared memory, the int8 quants read as s8; rhs q2_K → u8: whole blocks staged in shared memory, the qs bit pairs made u8 (codes 0..3) at use and multiplied by their 4-bit scale per 16 values, its 4-bit min per 16 values a second mma against the other side
func.func @mmq_q2_K(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q2_K>>, %y_ptr: !qdot.ptr<f32>,
                    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<32x2x!qdot.block<q8_1_mmq>>
  %w_desc = qdot.make_desc %w_ptr, [%kw, %n], [%c1, %kw] : !qdot.ptr<!qdot.block<q2_K>> -> !qdot.desc<1x16x!qdot.block<q2_K>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<32x16xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %x = qdot.load %x_desc[%c0, %kkx] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<1x16x!qdot.block<q2_K>> -> tensor<1x16x!qdot.block<q2_K>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = q2_K
         : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<1x16x!qdot.block<q2_K>> -> tensor<32x16xf32>
    scf.yield %d : tensor<32x16xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<32x16xf32>, tensor<32x16xf32>
  func.return
}

// -----

// The decode kernel (M ≤ 8, `small_m`): q2_K is the lhs, so its chain moves to opIdx 0 — qs runs along
// dimension 1 (valueDim = 1), sc is loaded in the A side's operand scale layout (rows g and g + 8 of the
// threads that hold them), the upcast makes K four times qs's along dimension 1, d is the lhs scale, dmin
// the lhs fold and mn the mma's `lhs_min` — and X is read K-major (valueDim = 0) for opIdx 1, its d both
// the rhs scale and the rhs fold.
// CHECK-LABEL: func.func @small_m_q2_K
// CHECK:       scf.for {{.*}} -> (tensor<16x8xf32, [[MMA:#qgpu.mma<[^>]*>]]>) {
// CHECK:         %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<16x1x!qdot.block<q2_K>>) -> !qgpu.memdesc<16x1x!qdot.block<q2_K>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:    %[[XS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<2x8x!qdot.block<q8_1_mmq>>)
// CHECK-NEXT:    %[[QV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<16x64xi8, #qgpu.block_part<{format = "q2_K", part = "qs", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:    %[[Q:.*]] = qgpu.local_load %[[QV]] : {{.*}} -> tensor<16x64xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    qgpu.block_part %[[WS]] {part = "sc"} : {{.*}} -> !qgpu.memdesc<16x16xi8, #qgpu.block_part<{format = "q2_K", part = "sc", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:    %[[S:.*]] = qgpu.local_load %{{.*}} -> tensor<16x16xi8, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]], operand = true}>>
// CHECK-NEXT:    %[[W:.*]] = qgpu.upcast %[[Q]] scale %[[S]] from = q2_K to = u8 : {{.*}} -> tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    qgpu.block_part %[[WS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q2_K", part = "d", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:    %[[D:.*]] = qgpu.local_load %{{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK-NEXT:    qgpu.block_part %[[WS]] {part = "dmin"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q2_K", part = "dmin", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:    %[[DM:.*]] = qgpu.local_load %{{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK-NEXT:    qgpu.block_part %[[WS]] {part = "mn"} : {{.*}} -> !qgpu.memdesc<16x16xi8, #qgpu.block_part<{format = "q2_K", part = "mn", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:    %[[M:.*]] = qgpu.local_load %{{.*}} -> tensor<16x16xi8, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]], operand = true}>>
// CHECK-NEXT:    qgpu.block_part %[[XS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<256x8xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 0}>>
// CHECK-NEXT:    %[[X:.*]] = qgpu.local_load %{{.*}} -> tensor<256x8xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    qgpu.block_part %[[XS]] {part = "d"}
// CHECK-NEXT:    %[[XD:.*]] = qgpu.local_load %{{.*}} -> tensor<8x8xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:    qgpu.mma %[[W]], %[[X]], %{{.*}} scale %[[D]], %[[XD]] fold %[[DM]], %[[XD]] lhs_min %[[M]] lhs = u8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"}
// REMARK: mmq-q2_K.mlir:[[# @LINE + 19]]:5: remark: qdot-accelerate-matmul: lhs q2_K → u8: whole blocks staged in shared memory, the qs bit pairs made u8 (codes 0..3) at use and multiplied by their 4-bit scale per 16 values, its 4-bit min per 16 values a second mma against the other side; rhs q8_1_mmq → s8: whole blocks staged in shared memory, the int8 quants read as s8
func.func @small_m_q2_K(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q2_K>>, %y_ptr: !qdot.ptr<f32>,
                        %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q2_K>> -> !qdot.desc<16x1x!qdot.block<q2_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x1x!qdot.block<q2_K>> -> tensor<16x1x!qdot.block<q2_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q2_K rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<q2_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}
