// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-lower-local-load{arch=sm_90}' > %t
// RUN: filecheck %s < %t
// RUN: grep -c 'ptx.ld_shared .* : i16$' %t | filecheck %s --check-prefix=HALVES
// RUN: grep -c 'ptx.ld_shared .* : i32$' %t | filecheck %s --check-prefix=WORDS
// RUN: grep -c ' error: ' %t | filecheck %s --check-prefix=ERRORS
// RUN: not grep -e 'ptx.ld_shared .* : i8$' -e 'arith.extui' -e 'arith.extsi' -e 'arith.mulf' -e 'arith.subi' %t
// HALVES: {{^32$}}
// WORDS: {{^12$}}
// ERRORS: {{^1$}}
// Loads from views of raw q2_K blocks in shared memory (block_q2_K: scales[16] at byte 0, qs[64] at 16,
// fp16 d at 80, fp16 dmin at 82; 84 bytes per block, 4-aligned). The decisions this file pins:
// * `qs` is read a word at a time (4 ld.shared.b32 per thread: 84 is a multiple of 4, so unlike q3_K's
//   2-aligned 110-byte blocks no register is split into 16-bit loads), raw: the upcast unpacks it;
// * `sc` (i8 per 16 values, four to a register: the factor the upcast multiplies into the codes) is the
//   low nibble of scales[j]: a register's four consecutive bytes scales[4r..4r+3] are one ld.shared.b32
//   (4-aligned: scales at byte 0 of an 84-byte block) and `and 0x0F0F0F0F` (252645135) — no byte loads
//   (none is i8), no extension (no extui / extsi) and no offset (no subi: q3_K's scales are code − 32,
//   q2_K's are the code);
// * `mn` (i8 per 16 values, the mma's min operand) is the high nibble of the same words: shift right 4,
//   then the same mask (the shift brings each next byte's low nibble into the top of a byte);
// * both in the *operand* scale layout (`operand = true`), as qdot-accelerate-matmul loads them: a thread
//   reads the 16 bytes of column g, the B-operand column whose values it holds, as 4 words (bytes 0, 4, 8,
//   12 of column g's block) — 12 word loads in all with qs's 4;
// * `d` and `dmin` (per 32 values: the mma's scale and the fold factor of the mins) are the fp16 fields
//   at bytes 80 and 82, widened exactly and not rescaled (no mulf: the u8 codes are the codes), the same
//   for the 8 32-value blocks of a super-block (16 half loads each for a thread's two columns);
// * a layout whose registers do not hold four consecutive bytes of one block is a diagnostic (the last
//   case), not a byte-by-byte fallback.

// q2_K as the rhs (the prefill kernel's W), one super-block per column, columns 84 bytes apart.
// The thread's column offsets: 2t · 84 (the accumulator columns 2t, 2t + 1: d, dmin) and g · 84 (the
// operand column g: qs, sc, mn).
// CHECK-LABEL: func.func @q2_K_parts
// CHECK:       %[[C84:.*]] = arith.constant 84 : i32
// CHECK:       %[[C168:.*]] = arith.constant 168 : i32
// CHECK-NEXT:  %[[COL2T:.*]] = arith.muli %{{.*}}, %[[C168]] : i32
// CHECK-NEXT:  arith.shrui
// CHECK-NEXT:  arith.andi
// CHECK-NEXT:  %[[COLG:.*]] = arith.muli %{{.*}}, %[[C84]] : i32
// qs: four words at bytes 16, 32, 48, 64 (+ 4t + 84g)
// CHECK:       builtin.unrealized_conversion_cast %qsv : {{.*}} to i32
// CHECK:       arith.constant 16 : i32
// CHECK:       ptx.ld_shared %{{.*}} : i32
// CHECK:       arith.constant 64 : i32
// CHECK:       ptx.ld_shared %{{.*}} : i32
// CHECK-NEXT:  %qs = builtin.unrealized_conversion_cast
// d: the fp16 at byte 80 of column 2t's block, widened
// CHECK:       %[[D:.*]] = builtin.unrealized_conversion_cast %dv : {{.*}} to i32
// CHECK-NEXT:  arith.constant 0 : i32
// CHECK-NEXT:  %[[DB:.*]] = arith.addi %[[D]], %[[COL2T]] : i32
// CHECK-NEXT:  %[[C80:.*]] = arith.constant 80 : i32
// CHECK-NEXT:  %[[DA:.*]] = arith.addi %[[DB]], %[[C80]] : i32
// CHECK-NEXT:  %[[DH:.*]] = ptx.ld_shared %[[DA]] : i16
// CHECK-NEXT:  %[[DF:.*]] = arith.bitcast %[[DH]] : i16 to f16
// CHECK-NEXT:  %[[DW:.*]] = arith.extf %[[DF]] : f16 to f32
// CHECK:       %d = builtin.unrealized_conversion_cast %[[DW]], {{.*}} : f32, {{.*}} to tensor<8x8xf32
// dmin: the fp16 at byte 82, widened
// CHECK:       %[[DM:.*]] = builtin.unrealized_conversion_cast %dmv : {{.*}} to i32
// CHECK-NEXT:  arith.constant 0 : i32
// CHECK-NEXT:  %[[MB:.*]] = arith.addi %[[DM]], %[[COL2T]] : i32
// CHECK-NEXT:  %[[C82:.*]] = arith.constant 82 : i32
// CHECK-NEXT:  %[[MA:.*]] = arith.addi %[[MB]], %[[C82]] : i32
// CHECK-NEXT:  %[[MH:.*]] = ptx.ld_shared %[[MA]] : i16
// CHECK-NEXT:  %[[MF:.*]] = arith.bitcast %[[MH]] : i16 to f16
// CHECK-NEXT:  %[[MW:.*]] = arith.extf %[[MF]] : f16 to f32
// CHECK:       %dm = builtin.unrealized_conversion_cast %[[MW]], {{.*}} : f32, {{.*}} to tensor<8x8xf32
// sc: scales[0..3] & 0x0F0F0F0F, scales[4..7] & …, … of column g's block, one word each
// CHECK:       %[[SC:.*]] = builtin.unrealized_conversion_cast %scv : {{.*}} to i32
// CHECK-NEXT:  %[[SA0:.*]] = arith.addi %[[SC]], %[[COLG]] : i32
// CHECK-NEXT:  arith.constant 0 : i32
// CHECK-NEXT:  %[[SW0:.*]] = ptx.ld_shared %[[SA0]] : i32
// CHECK-NEXT:  %[[MASK:.*]] = arith.constant 252645135 : i32
// CHECK-NEXT:  %[[S0:.*]] = arith.andi %[[SW0]], %[[MASK]] : i32
// CHECK-NEXT:  %[[SA1:.*]] = arith.addi %[[SC]], %[[COLG]] : i32
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[SA1B:.*]] = arith.addi %[[SA1]], %[[C4]] : i32
// CHECK-NEXT:  %[[SW1:.*]] = ptx.ld_shared %[[SA1B]] : i32
// CHECK-NEXT:  %[[S1:.*]] = arith.andi %[[SW1]], %[[MASK]] : i32
// CHECK-NEXT:  %[[SA2:.*]] = arith.addi %[[SC]], %[[COLG]] : i32
// CHECK-NEXT:  %[[C8:.*]] = arith.constant 8 : i32
// CHECK-NEXT:  %[[SA2B:.*]] = arith.addi %[[SA2]], %[[C8]] : i32
// CHECK-NEXT:  %[[SW2:.*]] = ptx.ld_shared %[[SA2B]] : i32
// CHECK-NEXT:  %[[S2:.*]] = arith.andi %[[SW2]], %[[MASK]] : i32
// CHECK-NEXT:  %[[SA3:.*]] = arith.addi %[[SC]], %[[COLG]] : i32
// CHECK-NEXT:  %[[C12:.*]] = arith.constant 12 : i32
// CHECK-NEXT:  %[[SA3B:.*]] = arith.addi %[[SA3]], %[[C12]] : i32
// CHECK-NEXT:  %[[SW3:.*]] = ptx.ld_shared %[[SA3B]] : i32
// CHECK-NEXT:  %[[S3:.*]] = arith.andi %[[SW3]], %[[MASK]] : i32
// CHECK-NEXT:  %sc = builtin.unrealized_conversion_cast %[[S0]], %[[S1]], %[[S2]], %[[S3]] : i32, i32, i32, i32 to tensor<8x16xi8, #qgpu.dot_scale<{opIdx = 1, parent = #qgpu.mma<{{[^>]*}}>, operand = true}>>
// mn: (scales[0..3] >> 4) & 0x0F0F0F0F, … the same four words
// CHECK-NEXT:  %mnv = qgpu.block_part
// CHECK-NEXT:  %[[MN:.*]] = builtin.unrealized_conversion_cast %mnv : {{.*}} to i32
// CHECK-NEXT:  %[[NA0:.*]] = arith.addi %[[MN]], %[[COLG]] : i32
// CHECK-NEXT:  arith.constant 0 : i32
// CHECK-NEXT:  %[[NW0:.*]] = ptx.ld_shared %[[NA0]] : i32
// CHECK-NEXT:  %[[NC4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[NH0:.*]] = arith.shrui %[[NW0]], %[[NC4]] : i32
// CHECK-NEXT:  %[[NMASK:.*]] = arith.constant 252645135 : i32
// CHECK-NEXT:  %[[N0:.*]] = arith.andi %[[NH0]], %[[NMASK]] : i32
// CHECK-NEXT:  %[[NA1:.*]] = arith.addi %[[MN]], %[[COLG]] : i32
// CHECK-NEXT:  %[[NA1B:.*]] = arith.addi %[[NA1]], %[[NC4]] : i32
// CHECK-NEXT:  %[[NW1:.*]] = ptx.ld_shared %[[NA1B]] : i32
// CHECK-NEXT:  %[[NH1:.*]] = arith.shrui %[[NW1]], %[[NC4]] : i32
// CHECK-NEXT:  %[[N1:.*]] = arith.andi %[[NH1]], %[[NMASK]] : i32
// CHECK-NEXT:  %[[NA2:.*]] = arith.addi %[[MN]], %[[COLG]] : i32
// CHECK-NEXT:  %[[NC8:.*]] = arith.constant 8 : i32
// CHECK-NEXT:  %[[NA2B:.*]] = arith.addi %[[NA2]], %[[NC8]] : i32
// CHECK-NEXT:  %[[NW2:.*]] = ptx.ld_shared %[[NA2B]] : i32
// CHECK-NEXT:  %[[NH2:.*]] = arith.shrui %[[NW2]], %[[NC4]] : i32
// CHECK-NEXT:  %[[N2:.*]] = arith.andi %[[NH2]], %[[NMASK]] : i32
// CHECK-NEXT:  %[[NA3:.*]] = arith.addi %[[MN]], %[[COLG]] : i32
// CHECK-NEXT:  %[[NC12:.*]] = arith.constant 12 : i32
// CHECK-NEXT:  %[[NA3B:.*]] = arith.addi %[[NA3]], %[[NC12]] : i32
// CHECK-NEXT:  %[[NW3:.*]] = ptx.ld_shared %[[NA3B]] : i32
// CHECK-NEXT:  %[[NH3:.*]] = arith.shrui %[[NW3]], %[[NC4]] : i32
// CHECK-NEXT:  %[[N3:.*]] = arith.andi %[[NH3]], %[[NMASK]] : i32
// CHECK-NEXT:  %mn = builtin.unrealized_conversion_cast %[[N0]], %[[N1]], %[[N2]], %[[N3]] : i32, i32, i32, i32 to tensor<8x16xi8, #qgpu.dot_scale<{opIdx = 1, parent = #qgpu.mma<{{[^>]*}}>, operand = true}>>

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#ob = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#qs = #qgpu.block_part<{format = "q2_K", part = "qs", blocks = 1, valueDim = 0}>
#d = #qgpu.block_part<{format = "q2_K", part = "d", blocks = 1, valueDim = 0}>
#dm = #qgpu.block_part<{format = "q2_K", part = "dmin", blocks = 1, valueDim = 0}>
#sc = #qgpu.block_part<{format = "q2_K", part = "sc", blocks = 1, valueDim = 0}>
#mn = #qgpu.block_part<{format = "q2_K", part = "mn", blocks = 1, valueDim = 0}>
func.func @q2_K_parts(%m: !qgpu.memdesc<1x8x!qdot.block<q2_K>, #sh>) -> (tensor<64x8xi8, #b>, tensor<8x8xf32, #sb>, tensor<8x8xf32, #sb>, tensor<8x16xi8, #ob>, tensor<8x16xi8, #ob>) {
  %qsv = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<1x8x!qdot.block<q2_K>, #sh> -> !qgpu.memdesc<64x8xi8, #qs>
  %qs = qgpu.local_load %qsv : !qgpu.memdesc<64x8xi8, #qs> -> tensor<64x8xi8, #b>
  %dv = qgpu.block_part %m {part = "d"} : !qgpu.memdesc<1x8x!qdot.block<q2_K>, #sh> -> !qgpu.memdesc<8x8xf32, #d>
  %d = qgpu.local_load %dv : !qgpu.memdesc<8x8xf32, #d> -> tensor<8x8xf32, #sb>
  %dmv = qgpu.block_part %m {part = "dmin"} : !qgpu.memdesc<1x8x!qdot.block<q2_K>, #sh> -> !qgpu.memdesc<8x8xf32, #dm>
  %dm = qgpu.local_load %dmv : !qgpu.memdesc<8x8xf32, #dm> -> tensor<8x8xf32, #sb>
  %scv = qgpu.block_part %m {part = "sc"} : !qgpu.memdesc<1x8x!qdot.block<q2_K>, #sh> -> !qgpu.memdesc<8x16xi8, #sc>
  %sc = qgpu.local_load %scv : !qgpu.memdesc<8x16xi8, #sc> -> tensor<8x16xi8, #ob>
  %mnv = qgpu.block_part %m {part = "mn"} : !qgpu.memdesc<1x8x!qdot.block<q2_K>, #sh> -> !qgpu.memdesc<8x16xi8, #mn>
  %mn = qgpu.local_load %mnv : !qgpu.memdesc<8x16xi8, #mn> -> tensor<8x16xi8, #ob>
  func.return %qs, %d, %dm, %sc, %mn : tensor<64x8xi8, #b>, tensor<8x8xf32, #sb>, tensor<8x8xf32, #sb>, tensor<8x16xi8, #ob>, tensor<8x16xi8, #ob>
}

// -----

// A layout whose registers are not four consecutive bytes of one block: order = [0, 1] puts a thread's
// two rows (two columns' blocks, 84 bytes apart) next to each other in its registers, so no 32-bit load
// serves one: refused at the load.
#bl = #qgpu.blocked<{sizePerThread = [2, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [0, 1]}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#sc = #qgpu.block_part<{format = "q2_K", part = "sc", blocks = 1, valueDim = 0}>
func.func @q2_K_sc_rows_together(%m: !qgpu.memdesc<1x8x!qdot.block<q2_K>, #sh>) -> tensor<8x16xi8, #bl> {
  %scv = qgpu.block_part %m {part = "sc"} : !qgpu.memdesc<1x8x!qdot.block<q2_K>, #sh> -> !qgpu.memdesc<8x16xi8, #sc>
  %sc = qgpu.local_load %scv : !qgpu.memdesc<8x16xi8, #sc> -> tensor<8x16xi8, #bl>
  func.return %sc : tensor<8x16xi8, #bl>
}
// CHECK: q2_K-block-parts.mlir:[[# @LINE - 3]]:3: error: 'qgpu.local_load' op part 'sc' of q2_K loads four consecutive bytes of one block per register, 4-aligned; this layout puts others together{{$}}
