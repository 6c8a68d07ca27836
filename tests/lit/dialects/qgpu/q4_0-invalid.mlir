// RUN: qdot-opt %s --split-input-file --verify-diagnostics > %t
// RUN: filecheck %s < %t
// RUN: grep -c ' error: ' %t | filecheck %s --check-prefix=COUNT
// What the qgpu verifiers refuse of q4_0, one case per rule. q4_0 nibbles become s8 only
// (16 · (c − 8), exact; u8 cannot hold the negative values, and the float targets are not what
// the s8 mma path reads), so the refusal lists s8 as the one target; the upcast keeps kWidth 4
// and doubles K; and a q4_0 block has exactly two views, `qs` and `d16` (its scale as the
// upcast's values need it: no plain `d`, which would silently scale by 16 too much). On a
// blocked layout (cooperative conversion) each thread's run along K must hold whole nibble spans —
// 32 values for q4_0, 64 for q4_K — since a byte's second nibble is 16 (32) values on: a shorter
// run once passed the verifier and crashed qdot-to-llvm — so did a tensor narrower along K than
// its layout's run (the layout replicates: the thread's run is the tensor's K). An mma operand
// reads nibbles at kWidth 4 only, where a thread's bytes hold its values of both halves of a span.
// COUNT: {{^10$}}

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @to_u8(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = q4_0 to = u8 : tensor<16x32xi8, #a> -> tensor<16x64xi8, #a>
  func.return
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = q4_0 to = u8 is not an exact conversion; q4_0 upcasts to s8{{$}}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @to_bf16(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = q4_0 to = bf16 : tensor<16x32xi8, #a> -> tensor<16x64xbf16, #a>
  func.return
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = q4_0 to = bf16 is not an exact conversion; q4_0 upcasts to s8{{$}}

// -----

// kWidth stays 4 (e2m1 → s8 doubles it; q4_0, like q4_K, does not).
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @kwidth(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = q4_0 to = s8 : tensor<16x32xi8, #a> -> tensor<16x64xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>>
  func.return
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op result kWidth must be 4 (source kWidth = 4 of q4_0), got 8

// -----

// K doubles: two values per byte.
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @k_doubles(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = q4_0 to = s8 : tensor<16x32xi8, #a> -> tensor<16x32xi8, #a>
  func.return
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op result shape must be [16, 64] (the source [16, 32] with K times 2), got [16, 32]

// -----

// A q4_0 block has no `d` view: its scale is `d16`.
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
func.func @no_d(%m: !qgpu.memdesc<8x16x!qdot.block<q4_0>, #sh>) {
  %v = qgpu.block_part %m {part = "d"} : !qgpu.memdesc<8x16x!qdot.block<q4_0>, #sh> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_0", part = "d", blocks = 8, valueDim = 0}>>
  func.return
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:128: error: q4_0 blocks have no part 'd'; parts: d16, qs

// -----

// 16 bytes of qs per block: 8 blocks are 128 bytes along K, not 256.
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
func.func @qs_shape(%m: !qgpu.memdesc<8x16x!qdot.block<q4_0>, #sh>) {
  %v = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<8x16x!qdot.block<q4_0>, #sh> -> !qgpu.memdesc<256x16xi8, #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 0}>>
  func.return
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:102: error: a #qgpu.block_part view of q4_0 'qs': dimension 0 (its values) must be a multiple of 16 (values per block) up to 128 (blocks 0 to 7 of each row), got 256{{$}}

// -----

#src = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#dst = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @blocked_part_block(%x: tensor<32x4xi8, #src>) {
  %u = qgpu.upcast %x from = q4_0 to = s8 : tensor<32x4xi8, #src> -> tensor<32x8xi8, #dst>
  func.return
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op each thread's run of 8 values along K must hold whole 32-value q4_0 spans (a byte's two nibbles are 16 values apart)

// -----

#src = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#dst = #qgpu.blocked<{sizePerThread = [1, 32], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @blocked_q4k_half_chunk(%x: tensor<32x16xi8, #src>) {
  %u = qgpu.upcast %x from = q4_K to = u8 : tensor<32x16xi8, #src> -> tensor<32x32xi8, #dst>
  func.return
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op each thread's run of 32 values along K must hold whole 64-value q4_K spans (a byte's two nibbles are 32 values apart)

// -----

#src = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#dst = #qgpu.blocked<{sizePerThread = [1, 32], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @blocked_replicated_short_k(%x: tensor<32x8xi8, #src>) {
  %u = qgpu.upcast %x from = q4_0 to = s8 : tensor<32x8xi8, #src> -> tensor<32x16xi8, #dst>
  func.return
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op each thread's run of 16 values along K must hold whole 32-value q4_0 spans (a byte's two nibbles are 16 values apart)

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>
func.func @k_width_8(%x: tensor<16x64xi8, #a>) {
  %u = qgpu.upcast %x from = q4_0 to = s8 : tensor<16x64xi8, #a> -> tensor<16x128xi8, #a>
  func.return
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op a q4_0 upcast reads kWidth = 4 (a thread's bytes 4t..4t+3 then hold its values of both halves of a span), got kWidth = 8
