// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_80}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_120a strategy=native}' | filecheck %s
// What --remarks says of an iq4_xs side (and of its int8 partner):
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' --remarks --verify-diagnostics | filecheck %s --check-prefix=REMARK
// No iq4_xs dot reads a block sum, pads one, or makes a second (fold) mma, in any case of the file (one
// s8 mma per super-block: 1 + 1 + 2 + 1); its scale is its `scale` part (no `d`, `d16`, q4_K's `scale16`
// or min), its upcast is iq4_nl's (there is no iq4_xs register format), nothing is u8 or e2m1:
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90}' > %t.ir
// RUN: grep -c 'qgpu.mma ' %t.ir | filecheck %s --check-prefix=MMA-COUNT
// RUN: not grep -e 'part = "s"' -e '_pad' -e 'fold' -e 'd16' -e 'scale16' -e 'part = "min"' -e 'format = "iq4_xs", part = "d"' -e 'from = iq4_xs' -e 'e2m1' -e 'u8' %t.ir
// MMA-COUNT: {{^5$}}
//
// ggml's iq4_xs (block_iq4_xs: fp16 d at byte 0, uint16 scales_h at 2, uint8 scales_l[4] at 4, then
// qs[128] at 8: eight 32-value spans of iq4_nl's 16 nibble-pair bytes, value p the low nibble of byte p,
// p + 16 its high nibble, each nibble an index into kvalues_iq4nl; 256 values per 136-byte super-block)
// on iq4_nl's lookup (mmq-iq4_nl.mlir) and q4_K's super-block plan (mmq-q4k.mlir), on every arch and
// under every strategy that takes ggml blocks. The decisions this file pins:
// * an iq4_xs tile is staged raw — !qdot.block<iq4_xs> elements, unswizzled, blocks contiguous along
//   K — like every ggml block;
// * its `qs` view (128 bytes per super-block) is loaded with kWidth = 4 and upcast by iq4_nl's table
//   lookup, `qgpu.upcast from = iq4_nl to = s8` (NIBBLE_UPCASTS reuses RegFormat.IQ4_NL: the same
//   layout per 32 values), doubling K and keeping kWidth 4 — exact in s8, no offset to take out, so no
//   block sum of the other side and no rank-1 fold;
// * its scale is the derived part `scale`, d · (ls − 32) per 32 values (its 6-bit ls a nibble of
//   scales_l and two bits of scales_h), always decoded once per CTA (PACKED_SCALES): a blocked load of
//   the `scale` view right after the allocs, stored to an f32 shared buffer, read back in the
//   #qgpu.dot_scale layout of its side — on the decode kernel's M side too, where iq4_nl's `d` (4 readers
//   a value) is read in place;
// * a tile of several super-blocks along K is read one super-block at a time (SUPER_BLOCKS), each slice
//   with its own scale decode and mma, chained through the accumulator;
// * one s8 × s8 mma per super-block with rescale = per_block and qdot.scale_bits = 17 (an fp16 d times
//   ls − 32, |ls − 32| ≤ 32: the magic-number fold holds), no fold operands.

// The prefill kernel of compiler/mmq_template.py with MmqConfig(weights="iq4_xs") (q8_1_mmq activations
// as the lhs, tokens on M; one iq4_xs super-block per column and K step of 256), trimmed to one 32 × 16
// tile and one warp.
// CHECK-LABEL: func.func @mmq_iq4_xs
// CHECK-NOT:   qgpu.convert_layout
// CHECK:       scf.for {{.*}} -> (tensor<32x16xf32, [[MMA:#qgpu.mma<[^>]*>]]>) {
// CHECK:         %[[X:.*]] = qdot.load %x_desc
// CHECK:         %[[W:.*]] = qdot.load %w_desc
// CHECK-NEXT:    %[[XS:.*]] = qgpu.local_alloc %[[X]] : (tensor<32x2x!qdot.block<q8_1_mmq>>) -> !qgpu.memdesc<32x2x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:    %[[WS:.*]] = qgpu.local_alloc %[[W]] : (tensor<1x16x!qdot.block<iq4_xs>>) -> !qgpu.memdesc<1x16x!qdot.block<iq4_xs>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
//
// W's scales decoded once, right after the allocs: a blocked load of the `scale` view (a column's 8
// spans per thread), stored back to an f32 shared buffer with columns contiguous.
// CHECK-NEXT:    %[[SCV:.*]] = qgpu.block_part %[[WS]] {part = "scale"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[SCR:.*]] = qgpu.local_load %[[SCV]] : {{.*}} -> tensor<16x8xf32, #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NEXT:    %[[SC:.*]] = qgpu.local_alloc %[[SCR]] : (tensor<16x8xf32, #qgpu.blocked<{{[^>]*}}>>) -> !qgpu.memdesc<16x8xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
//
// X: quants and d as for every block dot.
// CHECK-NEXT:    %[[XQV:.*]] = qgpu.block_part %[[XS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<32x256xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1}>>
// CHECK-NEXT:    %[[XQ:.*]] = qgpu.local_load %[[XQV]] : {{.*}} -> tensor<32x256xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[XDV:.*]] = qgpu.block_part %[[XS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<32x8xf32, #qgpu.block_part<{format = "q8_1_mmq", part = "d", blocks = 2, valueDim = 1}>>
// CHECK-NEXT:    %[[XD:.*]] = qgpu.local_load %[[XDV]] : {{.*}} -> tensor<32x8xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
//
// W: the raw qs view, 128 bytes of nibbles per column, 256 s8 values after iq4_nl's lookup (K doubles
// along dimension 0, the rhs's K), kWidth 4 on both sides of the upcast ...
// CHECK-NEXT:    %[[WQV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<128x16xi8, #qgpu.block_part<{format = "iq4_xs", part = "qs", blocks = 1, valueDim = 0}>>
// CHECK-NEXT:    %[[WQ:.*]] = qgpu.local_load %[[WQV]] : {{.*}} -> tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[WU:.*]] = qgpu.upcast %[[WQ]] from = iq4_nl to = s8 : tensor<128x16xi8, {{.*}}> -> tensor<256x16xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// ... and d · (ls − 32) per span (8 per column) as its scale, read from the decoded f32 buffer.
// CHECK-NEXT:    %[[WD:.*]] = qgpu.local_load %[[SC]] : !qgpu.memdesc<16x8xf32, #qgpu.shared<{{[^>]*}}>> -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
//
// One s8 × s8 mma, per-block scales, no fold operands; nothing after it but the yield.
// CHECK-NEXT:    %[[R:.*]] = qgpu.mma %[[XQ]], %[[WU]], %{{.*}} scale %[[XD]], %[[WD]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"} : {{.*}} -> tensor<32x16xf32, [[MMA]]>
// CHECK-NEXT:    scf.yield %[[R]] : tensor<32x16xf32, [[MMA]]>
// CHECK:       qdot.store %y_desc[%{{.*}}, %{{.*}}], %{{.*}} : !qdot.desc<32x16xf32>, tensor<32x16xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>>
// CHECK-NOT:   qgpu.convert_layout
// REMARK: mmq-iq4_xs.mlir:[[# @LINE + 21]]:5: remark: qdot-accelerate-matmul: strategy promote-int8 for q8_1_mmq × iq4_xs: ggml block formats run on the s8 mma per 32-value block, llama.cpp's MMQ
// REMARK: mmq-iq4_xs.mlir:[[# @LINE + 20]]:5: remark: qdot-accelerate-matmul: mma.sync s8 in 16x8 tiles, warps 1x1 (a 32x16 tile each), kWidth 4, scales applied to the f32 accumulator per 32-value block{{$}}
// REMARK: mmq-iq4_xs.mlir:[[# @LINE + 19]]:5: remark: qdot-accelerate-matmul: lhs q8_1_mmq → s8: whole blocks staged in shared memory, the int8 quants read as s8; rhs iq4_xs → s8: whole blocks staged in shared memory, the packed nibbles looked up as s8 in kvalues_iq4nl at use, d · (ls − 32) per 32 values{{$}}
func.func @mmq_iq4_xs(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<iq4_xs>>, %y_ptr: !qdot.ptr<f32>,
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
  %w_desc = qdot.make_desc %w_ptr, [%kw, %n], [%c1, %kw] : !qdot.ptr<!qdot.block<iq4_xs>> -> !qdot.desc<1x16x!qdot.block<iq4_xs>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<32x16xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %x = qdot.load %x_desc[%c0, %kkx] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<1x16x!qdot.block<iq4_xs>> -> tensor<1x16x!qdot.block<iq4_xs>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1_mmq rhs = iq4_xs
         : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<1x16x!qdot.block<iq4_xs>> -> tensor<32x16xf32>
    scf.yield %d : tensor<32x16xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<32x16xf32>, tensor<32x16xf32>
  func.return
}

// -----

// The decode kernel (M ≤ 8, `small_m`, split-K) exactly as compiler/mmq_template.py tiles it with
// MmqConfig(weights="iq4_xs") (16 weight rows, one super-block per K step), trimmed to one warp: iq4_xs
// is the lhs, so its chain moves to opIdx 0 — the qs view runs along dimension 1 (valueDim = 1), the
// upcast doubles K along dimension 1, the scale is the lhs scale — and X's quants and d are read K-major
// (valueDim = 0) for opIdx 1. Each scale is read by the 4 lanes of a quad only, yet it is still decoded
// once per CTA (PACKED_SCALES: a packed 6-bit ls, two loads and eight instructions to unpack), unlike
// iq4_nl's d here (mmq-iq4_nl.mlir: read in place). The split-K store keeps {reduce = "add"}.
// CHECK-LABEL: func.func @small_m_iq4_xs
// CHECK-NOT:   qgpu.convert_layout
// CHECK:       scf.for {{.*}} -> (tensor<16x8xf32, [[MMA:#qgpu.mma<[^>]*>]]>) {
// CHECK:         %[[W:.*]] = qdot.load %w_desc
// CHECK:         %[[X:.*]] = qdot.load %x_desc
// CHECK-NEXT:    %[[WS:.*]] = qgpu.local_alloc %[[W]] : (tensor<16x1x!qdot.block<iq4_xs>>) -> !qgpu.memdesc<16x1x!qdot.block<iq4_xs>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:    %[[XS:.*]] = qgpu.local_alloc %[[X]] : (tensor<2x8x!qdot.block<q8_1_mmq>>) -> !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:    %[[SCV:.*]] = qgpu.block_part %[[WS]] {part = "scale"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:    %[[SCR:.*]] = qgpu.local_load %[[SCV]] : {{.*}} -> tensor<16x8xf32, #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>>
// CHECK-NEXT:    %[[SC:.*]] = qgpu.local_alloc %[[SCR]] : (tensor<16x8xf32, #qgpu.blocked<{{[^>]*}}>>) -> !qgpu.memdesc<16x8xf32, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:    %[[WQV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<16x128xi8, #qgpu.block_part<{format = "iq4_xs", part = "qs", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:    %[[WQ:.*]] = qgpu.local_load %[[WQV]] : {{.*}} -> tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[WU:.*]] = qgpu.upcast %[[WQ]] from = iq4_nl to = s8 : tensor<16x128xi8, {{.*}}> -> tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// the decoded scales in the lhs scale layout:
// CHECK-NEXT:    %[[WD:.*]] = qgpu.local_load %[[SC]] : !qgpu.memdesc<16x8xf32, #qgpu.shared<{{[^>]*}}>> -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[XQV:.*]] = qgpu.block_part %[[XS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<256x8xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 0}>>
// CHECK-NEXT:    %[[XQ:.*]] = qgpu.local_load %[[XQV]] : {{.*}} -> tensor<256x8xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:    %[[XDV:.*]] = qgpu.block_part %[[XS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<8x8xf32, #qgpu.block_part<{format = "q8_1_mmq", part = "d", blocks = 2, valueDim = 0}>>
// CHECK-NEXT:    %[[XD:.*]] = qgpu.local_load %[[XDV]] : {{.*}} -> tensor<8x8xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:    %[[R:.*]] = qgpu.mma %[[WU]], %[[XQ]], %{{.*}} scale %[[WD]], %[[XD]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"} : {{.*}} -> tensor<16x8xf32, [[MMA]]>
// CHECK-NEXT:    scf.yield %[[R]] : tensor<16x8xf32, [[MMA]]>
// CHECK:       qdot.store %yt_desc[%{{.*}}, %{{.*}}], %{{.*}} {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>>
// CHECK-NOT:   qgpu.convert_layout
// REMARK: mmq-iq4_xs.mlir:[[# @LINE + 27]]:5: remark: qdot-accelerate-matmul: strategy promote-int8 for iq4_xs × q8_1_mmq: ggml block formats run on the s8 mma per 32-value block, llama.cpp's MMQ
// REMARK: mmq-iq4_xs.mlir:[[# @LINE + 26]]:5: remark: qdot-accelerate-matmul: mma.sync s8 in 16x8 tiles, warps 1x1 (a 16x8 tile each), kWidth 4, scales applied to the f32 accumulator per 32-value block{{$}}
// REMARK: mmq-iq4_xs.mlir:[[# @LINE + 25]]:5: remark: qdot-accelerate-matmul: lhs iq4_xs → s8: whole blocks staged in shared memory, the packed nibbles looked up as s8 in kvalues_iq4nl at use, d · (ls − 32) per 32 values; rhs q8_1_mmq → s8: whole blocks staged in shared memory, the int8 quants read as s8{{$}}
func.func @small_m_iq4_xs(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<iq4_xs>>, %y_ptr: !qdot.ptr<f32>,
                          %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %pid_k = qdot.program_id y
  %splits = qdot.num_programs y
  %k_per = arith.ceildivui %kw, %splits : index
  %k_lo = arith.muli %pid_k, %k_per : index
  %k_end = arith.addi %k_lo, %k_per : index
  %k_hi = arith.minui %k_end, %kw : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<iq4_xs>> -> !qdot.desc<16x1x!qdot.block<iq4_xs>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %k_lo to %k_hi step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x1x!qdot.block<iq4_xs>> -> tensor<16x1x!qdot.block<iq4_xs>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = iq4_xs rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<iq4_xs>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

// -----

// A decode tile of two super-blocks along K (MmqConfig(k_blocks=2)) is read one super-block at a time:
// the scale of super-block 0 decoded and its s8 mma, then super-block 1's views (`first = 1`; of the
// activations' q8_1_mmq blocks 0-1, then 2-3), its own decode into a second buffer and its mma, chained
// through the accumulator — a slice's scales are live only around its own mma.
// CHECK-LABEL: func.func @two_super_blocks
// CHECK:       %[[WS:[0-9]+]] = qgpu.local_alloc %w : (tensor<16x2x!qdot.block<iq4_xs>>)
// CHECK-NEXT:  %[[XS:[0-9]+]] = qgpu.local_alloc %x : (tensor<4x8x!qdot.block<q8_1_mmq>>)
// CHECK-NEXT:  %[[SV0:[0-9]+]] = qgpu.block_part %[[WS]] {part = "scale", count = 1 : i64} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 2, valueDim = 1}>>
// CHECK-NEXT:  %[[SR0:[0-9]+]] = qgpu.local_load %[[SV0]] : {{.*}} -> tensor<16x8xf32, #qgpu.blocked<{{[^>]*}}>>
// CHECK-NEXT:  %[[S0:[0-9]+]] = qgpu.local_alloc %[[SR0]] : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.shared<{{[^>]*}}>>
// CHECK-NEXT:  qgpu.block_part %[[WS]] {part = "qs", count = 1 : i64} : {{.*}} -> !qgpu.memdesc<16x128xi8, #qgpu.block_part<{format = "iq4_xs", part = "qs", blocks = 2, valueDim = 1}>>
// CHECK:       %[[U0:[0-9]+]] = qgpu.upcast %{{[0-9]+}} from = iq4_nl to = s8
// CHECK-NEXT:  %[[D0:[0-9]+]] = qgpu.local_load %[[S0]] : {{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 0, parent = #qgpu.mma<{{[^>]*}}>}>>
// CHECK:       qgpu.block_part %[[XS]] {part = "qs", count = 2 : i64}
// CHECK:       %[[INT0:[0-9]+]] = qgpu.mma %[[U0]], %{{[0-9]+}}, %acc_i scale %[[D0]], %{{[0-9]+}} lhs = s8 rhs = s8
// CHECK-NEXT:  %[[SV1:[0-9]+]] = qgpu.block_part %[[WS]] {part = "scale", first = 1 : i64, count = 1 : i64} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 2, valueDim = 1, first = 1}>>
// CHECK-NEXT:  %[[SR1:[0-9]+]] = qgpu.local_load %[[SV1]] : {{.*}} -> tensor<16x8xf32, #qgpu.blocked<{{[^>]*}}>>
// CHECK-NEXT:  %[[S1:[0-9]+]] = qgpu.local_alloc %[[SR1]]
// CHECK-NEXT:  qgpu.block_part %[[WS]] {part = "qs", first = 1 : i64, count = 1 : i64} : {{.*}} blocks = 2, valueDim = 1, first = 1}>>
// CHECK:       %[[U1:[0-9]+]] = qgpu.upcast %{{[0-9]+}} from = iq4_nl to = s8
// CHECK-NEXT:  %[[D1:[0-9]+]] = qgpu.local_load %[[S1]]
// CHECK:       qgpu.block_part %[[XS]] {part = "qs", first = 2 : i64, count = 2 : i64}
// CHECK:       %[[INT1:[0-9]+]] = qgpu.mma %[[U1]], %{{[0-9]+}}, %[[INT0]] scale %[[D1]], %{{[0-9]+}} lhs = s8 rhs = s8
// CHECK-NEXT:  scf.yield %[[INT1]]
func.func @two_super_blocks(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<iq4_xs>>,
                            %y_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<iq4_xs>> -> !qdot.desc<16x2x!qdot.block<iq4_xs>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<4x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c2 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x2x!qdot.block<iq4_xs>> -> tensor<16x2x!qdot.block<iq4_xs>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<4x8x!qdot.block<q8_1_mmq>> -> tensor<4x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = iq4_xs rhs = q8_1_mmq
         : tensor<16x2x!qdot.block<iq4_xs>> * tensor<4x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

// -----

// iq4_xs weights (lhs) × q8_1 (32-value activation blocks, d and the sum s): the sums go unread (no min to
// fold them against), the q8_1 side keeps its `d` and raw s8 quants (no upcast); eight q8_1 blocks meet one
// iq4_xs super-block.
// CHECK-LABEL: func.func @iq4_xs_q8_1
// CHECK:       %[[WS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<16x1x!qdot.block<iq4_xs>>) -> !qgpu.memdesc<16x1x!qdot.block<iq4_xs>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-NEXT:  %[[XS:.*]] = qgpu.local_alloc %{{.*}} : (tensor<8x32x!qdot.block<q8_1>>) -> !qgpu.memdesc<8x32x!qdot.block<q8_1>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>>
// CHECK-NEXT:  %[[SCV:.*]] = qgpu.block_part %[[WS]] {part = "scale"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "iq4_xs", part = "scale", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:  %[[SCR:.*]] = qgpu.local_load %[[SCV]] : {{.*}} -> tensor<16x8xf32, #qgpu.blocked<{{[^>]*}}>>
// CHECK-NEXT:  %[[SC:.*]] = qgpu.local_alloc %[[SCR]]
// CHECK-NEXT:  %[[WQV:.*]] = qgpu.block_part %[[WS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<16x128xi8, #qgpu.block_part<{format = "iq4_xs", part = "qs", blocks = 1, valueDim = 1}>>
// CHECK-NEXT:  %[[WQ:.*]] = qgpu.local_load %[[WQV]] : {{.*}} -> tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 4}>>
// CHECK-NEXT:  %[[WU:.*]] = qgpu.upcast %[[WQ]] from = iq4_nl to = s8 : tensor<16x128xi8, {{.*}}> -> tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:  %[[WD:.*]] = qgpu.local_load %[[SC]] : {{.*}} -> tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 0, parent = [[MMA]]}>>
// CHECK-NEXT:  %[[XQV:.*]] = qgpu.block_part %[[XS]] {part = "qs"} : {{.*}} -> !qgpu.memdesc<256x32xi8, #qgpu.block_part<{format = "q8_1", part = "qs", blocks = 8, valueDim = 0}>>
// CHECK-NEXT:  %[[XQ:.*]] = qgpu.local_load %[[XQV]] : {{.*}} -> tensor<256x32xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK-NEXT:  %[[XDV:.*]] = qgpu.block_part %[[XS]] {part = "d"} : {{.*}} -> !qgpu.memdesc<32x8xf32, #qgpu.block_part<{format = "q8_1", part = "d", blocks = 8, valueDim = 0}>>
// CHECK-NEXT:  %[[XD:.*]] = qgpu.local_load %[[XDV]] : {{.*}} -> tensor<32x8xf32, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]]}>>
// CHECK-NEXT:  %[[R:.*]] = qgpu.mma %[[WU]], %[[XQ]], %{{.*}} scale %[[WD]], %[[XD]] lhs = s8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"} : {{.*}} -> tensor<16x32xf32, [[MMA]]>
// CHECK-NEXT:  scf.yield %[[R]]
// REMARK: mmq-iq4_xs.mlir:[[# @LINE + 19]]:5: remark: qdot-accelerate-matmul: strategy promote-int8 for iq4_xs × q8_1: ggml block formats run on the s8 mma per 32-value block, llama.cpp's MMQ
func.func @iq4_xs_q8_1(%w_ptr: !qdot.ptr<!qdot.block<iq4_xs>>, %x_ptr: !qdot.ptr<!qdot.block<q8_1>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %kb = arith.divui %k, %c32 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<iq4_xs>> -> !qdot.desc<16x1x!qdot.block<iq4_xs>>
  %x_desc = qdot.make_desc %x_ptr, [%kb, %m], [%c1, %kb] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<8x32x!qdot.block<q8_1>>
  %y_desc = qdot.make_desc %y_ptr, [%n, %m], [%m, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<16x32xf32>) {
    %kkx = arith.muli %kk, %c8 : index
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x1x!qdot.block<iq4_xs>> -> tensor<16x1x!qdot.block<iq4_xs>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<8x32x!qdot.block<q8_1>> -> tensor<8x32x!qdot.block<q8_1>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = iq4_xs rhs = q8_1
         : tensor<16x1x!qdot.block<iq4_xs>> * tensor<8x32x!qdot.block<q8_1>> -> tensor<16x32xf32>
    scf.yield %d : tensor<16x32xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<16x32xf32>, tensor<16x32xf32>
  func.return
}
