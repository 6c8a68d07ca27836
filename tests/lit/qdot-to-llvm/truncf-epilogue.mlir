// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-to-llvm' > %t.out
// RUN: filecheck %s < %t.out
// RUN: grep -c ' error: ' %t.out | filecheck %s --check-prefix=COUNT
// arith.truncf of an f32 accumulator tile to bf16 (the epilogue of GemmConfig(out="bf16")):
// the 16-bit #qgpu.mma keeps each element in the same thread, two to a register — (c0, c1)
// and (c2, c3) of each 16×8 tile, the even column low — so each destination register is one
// cvt.rn.bf16x2.f32 of two of the thread's own registers, high half first: no shuffles.
// The same for f16 (cvt.rn.f16x2.f32); everything else is refused at the truncf, since the
// lowering moves no value between threads or registers of other lanes (float_casts.py).
// COUNT: {{^4$}}

// CHECK-LABEL: func.func @pairs
// CHECK-SAME:  (%[[R0:[^:]*]]: f32, %[[R1:[^:]*]]: f32, %[[R2:[^:]*]]: f32, %[[R3:[^:]*]]: f32)
// CHECK-NEXT:  %[[P01:.*]] = ptx.cvt bf16x2.f32 %[[R1]], %[[R0]]
// CHECK-NEXT:  %[[O0:.*]] = ptx.bitcast %[[P01]] : vector<2xbf16> -> i32
// CHECK-NEXT:  %[[P23:.*]] = ptx.cvt bf16x2.f32 %[[R3]], %[[R2]]
// CHECK-NEXT:  %[[O1:.*]] = ptx.bitcast %[[P23]] : vector<2xbf16> -> i32
// CHECK-NEXT:  "test.op"(%[[O0]], %[[O1]])
// CHECK-NOT:   arith.truncf

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
func.func @pairs(%r0: f32, %r1: f32, %r2: f32, %r3: f32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %acc = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3 : f32, f32, f32, f32 to tensor<16x8xf32, #mma>
  %c = arith.truncf %acc : tensor<16x8xf32, #mma> to tensor<16x8xbf16, #mma>
  %o:2 = builtin.unrealized_conversion_cast %c : tensor<16x8xbf16, #mma> to i32, i32
  "test.op"(%o#0, %o#1) : (i32, i32) -> ()
  func.return
}

// -----

// GemmConfig(out="f16"): the same pairs, packed by the f16 conversion — the bf16 one would
// write bf16 bit patterns into an f16 tensor.
// CHECK-LABEL: func.func @f16_pairs
// CHECK-SAME:  (%[[R0:[^:]*]]: f32, %[[R1:[^:]*]]: f32, %[[R2:[^:]*]]: f32, %[[R3:[^:]*]]: f32)
// CHECK-NEXT:  %[[P01:.*]] = ptx.cvt f16x2.f32 %[[R1]], %[[R0]]
// CHECK-NEXT:  %[[O0:.*]] = ptx.bitcast %[[P01]] : vector<2xf16> -> i32
// CHECK-NEXT:  %[[P23:.*]] = ptx.cvt f16x2.f32 %[[R3]], %[[R2]]
// CHECK-NEXT:  %[[O1:.*]] = ptx.bitcast %[[P23]] : vector<2xf16> -> i32
// CHECK-NEXT:  "test.op"(%[[O0]], %[[O1]])

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
func.func @f16_pairs(%r0: f32, %r1: f32, %r2: f32, %r3: f32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %acc = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3 : f32, f32, f32, f32 to tensor<16x8xf32, #mma>
  %c = arith.truncf %acc : tensor<16x8xf32, #mma> to tensor<16x8xf16, #mma>
  %o:2 = builtin.unrealized_conversion_cast %c : tensor<16x8xf16, #mma> to i32, i32
  "test.op"(%o#0, %o#1) : (i32, i32) -> ()
  func.return
}

// -----

// An 8-bit result: two f32 per 16-bit register half is all cvt.rn.{bf16,f16}x2 packs.
#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @to_fp8(%r0: f32, %r1: f32, %r2: f32, %r3: f32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %acc = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3 : f32, f32, f32, f32 to tensor<32x4xf32, #bl>
  %c = arith.truncf %acc : tensor<32x4xf32, #bl> to tensor<32x4xf8E4M3FN, #bl>
  %o = builtin.unrealized_conversion_cast %c : tensor<32x4xf8E4M3FN, #bl> to i32
  "test.op"(%o) : (i32) -> ()
  func.return
}
// CHECK: truncf-epilogue.mlir:[[# @LINE - 5]]:3: error: 'arith.truncf' op arith.truncf of a distributed tensor converts f32 to bf16 or f16, not f32 to f8E4M3FN

// -----

// One element per thread: the result register would hold half a pair.
#bl = #qgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @one_per_thread(%r0: f32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %acc = builtin.unrealized_conversion_cast %r0 : f32 to tensor<32x1xf32, #bl>
  %c = arith.truncf %acc : tensor<32x1xf32, #bl> to tensor<32x1xbf16, #bl>
  %o = builtin.unrealized_conversion_cast %c : tensor<32x1xbf16, #bl> to i32
  "test.op"(%o) : (i32) -> ()
  func.return
}
// CHECK: truncf-epilogue.mlir:[[# @LINE - 5]]:3: error: 'arith.truncf' op arith.truncf of a distributed tensor needs a result layout with two elements in every register

// -----

// A result layout other than the accumulator's: lane 0 of the blocked tile holds row 0,
// columns 0-3, but the #mma gives columns 2-3 to lane 1: the conversion would need shuffles.
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @other_threads(%r0: f32, %r1: f32, %r2: f32, %r3: f32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %acc = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3 : f32, f32, f32, f32 to tensor<16x8xf32, #mma>
  %c = arith.truncf %acc : tensor<16x8xf32, #mma> to tensor<16x8xbf16, #bl>
  %o:2 = builtin.unrealized_conversion_cast %c : tensor<16x8xbf16, #bl> to i32, i32
  "test.op"(%o#0, %o#1) : (i32, i32) -> ()
  func.return
}
// CHECK: truncf-epilogue.mlir:[[# @LINE - 5]]:3: error: 'arith.truncf' op arith.truncf of a distributed tensor needs the source and result layouts to give every thread its own elements

// -----

// Both layouts wrap an 8 × 8 tile, and every thread holds its own elements, but in different
// registers per lane: the source keeps row r in register r, the result gives lane l rows
// l / 16 + 2i, i = 0..3, in half i % 2 of register i / 2, so which source register feeds a
// half depends on the lane and no single instruction sequence serves the warp.
#src = #qgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#dst = #qgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @lane_dependent(%r0: f32, %r1: f32, %r2: f32, %r3: f32, %r4: f32, %r5: f32, %r6: f32, %r7: f32)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %acc = builtin.unrealized_conversion_cast %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7 : f32, f32, f32, f32, f32, f32, f32, f32 to tensor<8x8xf32, #src>
  %c = arith.truncf %acc : tensor<8x8xf32, #src> to tensor<8x8xbf16, #dst>
  %o:2 = builtin.unrealized_conversion_cast %c : tensor<8x8xbf16, #dst> to i32, i32
  "test.op"(%o#0, %o#1) : (i32, i32) -> ()
  func.return
}
// CHECK: truncf-epilogue.mlir:[[# @LINE - 5]]:3: error: 'arith.truncf' op arith.truncf: the register mapping depends on the lane; unsupported layout pair
