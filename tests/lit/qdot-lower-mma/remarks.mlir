// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-mma' --remarks=qdot-lower-mma -o /dev/null 2>&1 | filecheck %s
// What --remarks says qdot-lower-mma chose for each qgpu.mma / qgpu.warp_group_dot
// (passes/lower_mma.py, _remark; passes/support/warp_group.py, warp_group_remark): the
// instruction form, which fp4Unpacked side takes the 00xxxx00 shift, how many block scales the
// block-scaled forms take per k tile, and the q4_K dmin term's form (f16 mma or FMA fold) and the
// q6_K sub-scale halves. The instructions themselves are pinned by block-scale.mlir,
// fp4-shift.mlir, q4k-dmin-mma.mlir, q4k-fold.mlir, sub-scales.mlir and wgmma.mlir; these checks
// pin what the remark says of them, one remark per op (CHECK-NEXT from one op to the next).

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#au = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// The fp4Unpacked operand is the lhs here: its 4 registers are shifted, not the rhs's.
// CHECK:      remarks.mlir:[[# @LINE + 2]]:3: remark: qdot-lower-mma: 1 × mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.e2m1.e4m3.f32 per warp (1 m × 1 n × 1 k tiles); lhs fp4Unpacked 0000xxxx → 00xxxx00: shl 2 on its 4 registers{{$}}
func.func @lhs_shift(%a: tensor<16x16xi8, #au>, %b: tensor<32x8xf8E4M3FN, #b>, %c: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c lhs = e2m1 rhs = e4m3 : tensor<16x16xi8, #au>, tensor<32x8xf8E4M3FN, #b>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>

// Packed MXFP4 × MXFP4: the m16n8k64 mxf4 form, two ue8m0 scales per k tile, no shift.
// CHECK-NEXT: remarks.mlir:[[# @LINE + 3]]:3: remark: qdot-lower-mma: 1 × mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0 per warp (1 m × 1 n × 1 k tiles); block scales to the instruction, 2 per k tile and row{{$}}
func.func @mxf4(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                %sa: tensor<16x2xf8E8M0FNU, #sa>, %sb: tensor<8x2xf8E8M0FNU, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = e2m1 rhs = e2m1 {rescale = "hw"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x2xf8E8M0FNU, #sa>, tensor<8x2xf8E8M0FNU, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>

// NVFP4 (ue4m3 scales): the mxf4nvf4 form, four scales per k tile.
// CHECK-NEXT: remarks.mlir:[[# @LINE + 3]]:3: remark: qdot-lower-mma: 1 × mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 per warp (1 m × 1 n × 1 k tiles); block scales to the instruction, 4 per k tile and row{{$}}
func.func @nvfp4(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                 %sa: tensor<16x4xf8E4M3FN, #sa>, %sb: tensor<8x4xf8E4M3FN, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = e2m1 rhs = e2m1 {rescale = "hw"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x4xf8E4M3FN, #sa>, tensor<8x4xf8E4M3FN, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// {qdot.fold = "dmin"}: the q4_K dmin term as one f16 mma per super-block, then the per-block rescale.
// CHECK-NEXT: remarks.mlir:[[# @LINE + 4]]:3: remark: qdot-lower-mma: 1 × mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 per warp (1 m × 1 n × 1 k tiles); the q4_K dmin term: one f16 mma per super-block, scaled by dmin and -1; per-block rescale: each block's mma from a zero accumulator, its sum converted to f32 and acc += d · sa · sb by FMA{{$}}
func.func @dmin_mma(%m: tensor<16x16xf16, #a>, %s: tensor<16x8xf16, #b>, %c: tensor<16x8xf32, #mma>,
                    %dmin: tensor<16x1xf32, #sa>) -> tensor<16x8xf32, #mma> {
  %neg = arith.constant dense<-1.000000e+00> : tensor<8x1xf32, #sb>
  %d = qgpu.mma %m, %s, %c scale %dmin, %neg lhs = fp16 rhs = fp16 {qdot.fold = "dmin", rescale = "per_block"}
     : tensor<16x16xf16, #a>, tensor<16x8xf16, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// `fold %fa, %fb` (q4_K × plain q8_1): the dmin term as one more FMA per register and block,
// no second mma (unstated scale bits: the zero-accumulator rescale).
// CHECK-NEXT: remarks.mlir:[[# @LINE + 4]]:3: remark: qdot-lower-mma: 1 × mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 per warp (1 m × 1 n × 1 k tiles); per-block rescale: each block's mma from a zero accumulator, its sum converted to f32 and acc += d · sa · sb by FMA; q4_K dmin fold: one FMA per register and block{{$}}
func.func @dmin_fold(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                     %sa: tensor<16x1xf32, #sa>, %sb: tensor<8x1xf32, #sb>,
                     %fa: tensor<16x1xf32, #sa>, %fb: tensor<8x1xf32, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb fold %fa, %fb lhs = s8 rhs = s8 {rescale = "per_block"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb>
       fold tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// rhs_sub (q6_K's factor per 16 values): two m16n8k16 halves per k tile, and never the magic
// form, although qdot.scale_bits = 17 would allow it without the sub-scales.
// CHECK-NEXT: remarks.mlir:[[# @LINE + 3]]:3: remark: qdot-lower-mma: 1 × mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 per warp (1 m × 1 n × 1 k tiles); per-block rescale: each block's mma from a zero accumulator, its sum converted to f32 and acc += d · sa · sb by FMA; each k tile as two m16n8k16 halves, summed in s32 weighted by the integer factors per 16 values (rhs_sub){{$}}
func.func @rhs_sub(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                   %sa: tensor<16x1xf32, #sa>, %sb: tensor<8x1xf32, #sb>, %sub: tensor<8x2xi32, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb rhs_sub %sub lhs = s8 rhs = s8 {rescale = "per_block", qdot.scale_bits = 17 : i64}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> rhs_sub tensor<8x2xi32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

#sa = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
#mma = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>

// qgpu.warp_group_dot: wgmma per warpgroup, two 64-row slices of the 256-row tile on two
// warpgroups, four k16 steps, and a wait for all of them (no pendings asked).
// CHECK-NEXT: remarks.mlir:[[# @LINE + 4]]:3: remark: qdot-lower-mma: 8 × wgmma.mma_async m64n64k16 bf16 per warpgroup (2 64-row slices × 4 k16 steps), operands by shared-memory descriptor, then wgmma.wait_group 0{{$}}
func.func @warp_group(%c: tensor<256x64xf32, #mma>) attributes {qdot.kernel, qdot.num_warps = 8 : i64} {
  %a = qgpu.local_alloc : () -> !qgpu.memdesc<256x64xbf16, #sa, mutable>
  %b = qgpu.local_alloc : () -> !qgpu.memdesc<64x64xbf16, #sb, mutable>
  %d = qgpu.warp_group_dot %a, %b, %c lhs = bf16 rhs = bf16
     : !qgpu.memdesc<256x64xbf16, #sa, mutable>, !qgpu.memdesc<64x64xbf16, #sb, mutable>, tensor<256x64xf32, #mma>
     -> tensor<256x64xf32, #mma>
  "test.op"(%d) : (tensor<256x64xf32, #mma>) -> ()
  func.return
}
