// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_80 strategy=promote-int8}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' --remarks --verify-diagnostics | filecheck %s --check-prefix=REMARK
// No q3_K dot reads a block sum or folds (one mma each):
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' > %t.ir
// RUN: grep -c 'qgpu.mma ' %t.ir | filecheck %s --check-prefix=MMA-COUNT
// RUN: not grep -e 'part = "s"' -e 'part = "s_pad"' -e 'fold' %t.ir
// MMA-COUNT: {{^2$}}
//
// ggml's q3_K (block_q3_K: hmask[32] top bits, qs[64] low two bits, scales[12] sixteen 6-bit scales
// per 16 values, fp16 d; 256 values in 110 bytes) on q6_K's plan (mmq-q6_K.mlir), both orientations.
// The decisions this file pins:
// * the tile is staged raw, unswizzled, blocks contiguous along K, like every ggml block;
// * its quants are two raw views, `qs` (64 bytes per block: four 2-bit fields per byte, values 32
//   apart) and `hmask` (32: a top bit per value, eight values 32 apart per byte), each loaded into the
//   ISA arrangement with kWidth 4; `qgpu.upcast from = q3_K to = s8` takes qs as its source and hmask
//   as its `high` operand and gives K = 4 × qs's = 8 × hmask's s8 values (32 · (code − 4), exact);
// * its per-32 scale is the part `d32` (the super-block's fp16 d / 32, undoing the upcast's 32), and
//   its 6-bit scales the part `sc` (code − 32, i32 per 16 values), the mma's `lhs_sub` / `rhs_sub` as
//   q6_K's int8 ones are — but unpacked from scales[12] once per CTA, first thing after the allocs (a
//   blocked load of the `sc` view, a row's 16 scales per thread, stored to an i32 buffer), not where
//   each of its readers needs it (two byte loads and seven to nine more instructions per value);
// * one s8 × s8 mma, rescale = per_block, qdot.scale_bits = 17, no fold operands, no `s` read.

// The prefill kernel of compiler/mmq_template.py with MmqConfig(weights="q3_K"), trimmed to one
// 32 × 16 tile and one warp: q8_1_mmq activations as the lhs, W the rhs, one super-block per K step.
// CHECK-LABEL: func.func @mmq_q3_K
// CHECK:       scf.for {{.*}} -> (tensor<32x16xf32, [[MMA:#qgpu.mma<[^>]*>]]>) {
// CHECK:         %[[XS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<32x2x!qdot.block<q8_1_mmq>>) -> !qgpu.memdesc<32x2x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:    %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<1x16x!qdot.block<q3_K>>) -> !qgpu.memdesc<1x16x!qdot.block<q3_K>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:    %[[SV:.*]] = qgpu.block_part %[[WS]] {part = "sc"} : {{.*}} -> !qgpu.memdesc<16x16xi32, #qgpu.block_part<{format = "q3_K", part = "sc", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[SR:.*]] = qgpu.local_load %[[SV]] : {{.*}} -> tensor<16x16xi32, #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NEXT:    %[[SS:.*]] = qgpu.local_alloc %[[SR]] : {{.*}} -> !qgpu.memdesc<16x16xi32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK:         %[[XD:.*]] = qgpu.local_load %{{.*}} -> tensor<32x8xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[QV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<64x16xi8, #qgpu.block_part<{format = "q3_K", part = "qs", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[Q:.*]] = qgpu.local_load %[[QV]] : {{.*}} -> tensor<64x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[HV:.*]] = qgpu.block_part %[[WS]] {part = "hmask"} : {{.*}} -> !qgpu.memdesc<32x16xi8, #qgpu.block_part<{format = "q3_K", part = "hmask", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[H:.*]] = qgpu.local_load %[[HV]] : {{.*}} -> tensor<32x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[W:.*]] = qgpu.upcast %[[Q]] high %[[H]] from = q3_K to = s8 : tensor<64x16xi8, {{.*}}> high tensor<32x16xi8, {{.*}}> -> tensor<256x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[DV:.*]] = qgpu.block_part %[[WS]] {part = "d32"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q3_K", part = "d32", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[D:.*]] = qgpu.local_load %[[DV]] : {{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[S:.*]] = qgpu.local_load %[[SS]] : !qgpu.memdesc<16x16xi32, #qgpu.shared<{{[^>]*}}>> -> tensor<16x16xi32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[R:.*]] = qgpu.mma %{{.*}}, %[[W]], %{{.*}} scale %[[XD]], %[[D]] rhs_sub %[[S]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"}
// CHECK-NEXT:    scf.yield %[[R]]
// REMARK: mmq-q3_K.mlir:[[# @LINE + 20]]:5: remark: qdot-accelerate-matmul: strategy promote-int8 for q8_1_mmq × q3_K: ggml block formats run on the s8 mma per 32-value block, llama.cpp's MMQ
// REMARK: mmq-q3_K.mlir:[[# @LINE + 19]]:5: remark: qdot-accelerate-matmul: lhs q8_1_mmq → s8: whole blocks staged in shared memory, the int8 quants read as s8; rhs q3_K → s8: whole blocks staged in shared memory, the qs bit pairs and hmask bits joined into s8 (32 · (code − 4)) at use, its 6-bit scale per 16 values weighting the two m16n8k16 halves of each block
func.func @mmq_q3_K(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q3_K>>, %y_ptr: !qdot.ptr<f32>,
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
  %w_desc = qdot.make_desc %w_ptr, [%kw, %n], [%c1, %kw] : !qdot.ptr<!qdot.block<q3_K>> -> !qdot.desc<1x16x!qdot.block<q3_K>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<32x16xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %x = qdot.load %x_desc[%c0, %kkx] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<1x16x!qdot.block<q3_K>> -> tensor<1x16x!qdot.block<q3_K>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = q3_K
         : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<1x16x!qdot.block<q3_K>> -> tensor<32x16xf32>
    scf.yield %d : tensor<32x16xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<32x16xf32>, tensor<32x16xf32>
  func.return
}

// -----

// The decode kernel (M ≤ 8, `small_m`): q3_K is the lhs, so its chain moves to opIdx 0 — qs and hmask
// run along dimension 1 (valueDim = 1), the upcast makes K eight times hmask's along dimension 1, d32 is
// the lhs scale and sc, unpacked once (its readers are the 4 lanes of a quad here), the mma's `lhs_sub`
// — and X is read K-major (valueDim = 0) for opIdx 1.
// CHECK-LABEL: func.func @small_m_q3_K
// CHECK:       scf.for {{.*}} -> (tensor<16x8xf32, [[MMA:#qgpu.mma<[^>]*>]]>) {
// CHECK:         %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<16x1x!qdot.block<q3_K>>) -> !qgpu.memdesc<16x1x!qdot.block<q3_K>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:    qgpu.local_alloc %{{.*}} : (tensor<2x8x!qdot.block<q8_1_mmq>>)
// CHECK-NEXT:    %[[SV:.*]] = qgpu.block_part %[[WS]] {part = "sc"} : {{.*}} -> !qgpu.memdesc<16x16xi32, #qgpu.block_part<{format = "q3_K", part = "sc", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:    %[[SR:.*]] = qgpu.local_load %[[SV]] : {{.*}} -> tensor<16x16xi32, #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NEXT:    %[[SS:.*]] = qgpu.local_alloc %[[SR]]
// CHECK-NEXT:    %[[QV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<16x64xi8, #qgpu.block_part<{format = "q3_K", part = "qs", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:    %[[Q:.*]] = qgpu.local_load %[[QV]] : {{.*}} -> tensor<16x64xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[HV:.*]] = qgpu.block_part %[[WS]] {part = "hmask"} : {{.*}} -> !qgpu.memdesc<16x32xi8, #qgpu.block_part<{format = "q3_K", part = "hmask", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:    %[[H:.*]] = qgpu.local_load %[[HV]] : {{.*}} -> tensor<16x32xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[W:.*]] = qgpu.upcast %[[Q]] high %[[H]] from = q3_K to = s8 : {{.*}} -> tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    qgpu.block_part %[[WS]] {part = "d32"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q3_K", part = "d32", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:    %[[D:.*]] = qgpu.local_load %{{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[S:.*]] = qgpu.local_load %[[SS]] : {{.*}} -> tensor<16x16xi32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK:         %[[XD:.*]] = qgpu.local_load %{{.*}} -> tensor<8x8xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:    qgpu.mma %[[W]], %{{.*}}, %{{.*}} scale %[[D]], %[[XD]] lhs_sub %[[S]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"}
func.func @small_m_q3_K(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q3_K>>, %y_ptr: !qdot.ptr<f32>,
                        %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q3_K>> -> !qdot.desc<16x1x!qdot.block<q3_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x1x!qdot.block<q3_K>> -> tensor<16x1x!qdot.block<q3_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q3_K rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<q3_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}
