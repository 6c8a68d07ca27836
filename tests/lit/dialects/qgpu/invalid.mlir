// One case per qgpu verifier rule: attribute and type checks (reported while parsing, at the
// attribute) and op verifiers (reported at the op). Every message names the operand and the rule.
// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s

// blocked: lanes must fill a warp
"test.op"() {enc = #qgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 1], order = [1, 0]}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:33: error: #qgpu.blocked threadsPerWarp must multiply to 32, got [8, 8] = 64

// -----

// blocked: order must be a permutation
"test.op"() {enc = #qgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 1]}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:33: error: #qgpu.blocked order must be a permutation of 0..1, got [1, 1]

// -----

// blocked: one entry per dimension
"test.op"() {enc = #qgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32], warpsPerCTA = [1, 1], order = [1, 0]}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:33: error: #qgpu.blocked threadsPerWarp must have one entry per dimension like sizePerThread (2), got 1

// -----

// blocked: powers of two
"test.op"() {enc = #qgpu.blocked<{sizePerThread = [1, 3], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:33: error: #qgpu.blocked sizePerThread entries must be powers of two, got [1, 3]

// -----

// blocked: at most 32 warps
"test.op"() {enc = #qgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [8, 8], order = [1, 0]}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:33: error: #qgpu.blocked warpsPerCTA asks for 64 warps, more than 32 per CTA

// -----

// mma: version
"test.op"() {enc = #qgpu.mma<{versionMajor = 1, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:29: error: #qgpu.mma supports versionMajor = 2 (mma.sync) or 3 (wgmma), versionMinor = 0, got 1.0

// -----

// mma v3: whole warpgroups along M
"test.op"() {enc = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 128, 16]}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:29: error: #qgpu.mma versionMajor = 3 stacks whole warpgroups along M: warpsPerCTA must be [4·g, 1], got [2, 2]

// -----

// mma v3: instrShape [16, N, 16]
"test.op"() {enc = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:29: error: #qgpu.mma versionMajor = 3 instrShape must be [16, N, 16] with N a multiple of 8 in 8..256 (per warp of an m64nNk16 wgmma), got [16, 8]

// -----

// mma: instrShape
"test.op"() {enc = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 16]}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:29: error: #qgpu.mma instrShape must be [16, 8] (m16n8), got [16, 16]

// -----

// mma: warpsPerCTA rank
"test.op"() {enc = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1, 1], instrShape = [16, 8]}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:29: error: #qgpu.mma warpsPerCTA must have 2 entries [M, N], got [1, 1, 1]

// -----

// mma: warps powers of two
"test.op"() {enc = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [3, 1], instrShape = [16, 8]}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:29: error: #qgpu.mma warpsPerCTA entries must be powers of two, got [3, 1]

// -----

// dot_op: opIdx
"test.op"() {enc = #qgpu.dot_op<{opIdx = 2, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 4}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:32: error: #qgpu.dot_op opIdx must be 0 (A, the lhs) or 1 (B, the rhs), got 2

// -----

// dot_op: kWidth power of two
"test.op"() {enc = #qgpu.dot_op<{opIdx = 0, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 3}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:32: error: #qgpu.dot_op kWidth must be a positive power of two, got 3

// -----

// dot_op: parent must be mma
"test.op"() {enc = #qgpu.dot_op<{opIdx = 0, parent = #qgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>, kWidth = 4}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:32: error: #qgpu.dot_op parent must be a #qgpu.mma encoding, got #qgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>

// -----

// syntax: unknown key
"test.op"() {enc = #qgpu.dot_op<{opIdx = 0, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kwidth = 4}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:147: error: #qgpu.dot_op has no parameter `kwidth`; expected one of: opIdx, parent, kWidth, fp4Unpacked

// -----

// syntax: missing key
"test.op"() {enc = #qgpu.dot_op<{opIdx = 0, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:147: error: #qgpu.dot_op is missing parameter(s): kWidth

// -----

// syntax: duplicate key
"test.op"() {enc = #qgpu.dot_op<{opIdx = 0, opIdx = 1, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 4}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:45: error: #qgpu.dot_op parameter `opIdx` is given twice

// -----

// dot_scale: opIdx
"test.op"() {enc = #qgpu.dot_scale<{opIdx = -1, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:35: error: #qgpu.dot_scale opIdx must be 0 (A, the lhs) or 1 (B, the rhs), got -1

// -----

// shared: vec power of two
"test.op"() {enc = #qgpu.shared<{vec = 12, perPhase = 1, maxPhase = 1, order = [1, 0]}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:32: error: #qgpu.shared vec must be a positive power of two, got 12

// -----

// shared: order permutation
"test.op"() {enc = #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 1, order = [0, 2]}>} : () -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:32: error: #qgpu.shared order must be a permutation of 0..1, got [0, 2]

// -----

// memdesc: encoding must be #qgpu.shared
#blocked = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%m: !qgpu.memdesc<16x16xi8, #blocked>) {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:31: error: !qgpu.memdesc encoding must be a #qgpu.shared or #qgpu.block_part encoding, got #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// -----

// memdesc: swizzle must fit the row
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%m: !qgpu.memdesc<16x16xi8, #sh>) {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:31: error: the swizzle moves runs of vec = 16 elements (16 bytes) over maxPhase = 2 phases, so a row must hold a multiple of 32 bytes; a row of this buffer holds 16

// -----

// memdesc: fp4Padded holds bytes
#shp = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0], fp4Padded = true}>
func.func @f(%m: !qgpu.memdesc<16x64xbf16, #shp>) {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:31: error: fp4Padded needs packed fp4 bytes (an 8-bit element type), got bf16

// -----

// memdesc: rank
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%m: !qgpu.memdesc<64xi8, #sh>) {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:31: error: !qgpu.memdesc of rank 1 cannot carry a #qgpu.shared encoding of rank 2 (order has 2 entries)

// -----

// memdesc: flag
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%m: !qgpu.memdesc<16x64xi8, #sh, readonly>) {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:47: error: Expected 'mutable' (the only flag of !qgpu.memdesc)

// -----

// local_alloc: empty buffers are mutable
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f() {
  %m = qgpu.local_alloc : () -> !qgpu.memdesc<16x64xi8, #sh>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.local_alloc' op a buffer allocated without a source must be mutable (nothing else writes it)

// -----

// local_alloc: filled buffers are immutable
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#blocked = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%t: tensor<16x64xi8, #blocked>) {
  %m = qgpu.local_alloc %t : (tensor<16x64xi8, #blocked>) -> !qgpu.memdesc<16x64xi8, #sh, mutable>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.local_alloc' op a buffer allocated from a source tensor is immutable; drop `mutable`

// -----

// local_alloc: shape
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#blocked = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%t: tensor<32x64xi8, #blocked>) {
  %m = qgpu.local_alloc %t : (tensor<32x64xi8, #blocked>) -> !qgpu.memdesc<16x64xi8, #sh>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.local_alloc' op source shape [32, 64] must equal the buffer shape [16, 64]

// -----

// local_alloc: element type
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#blocked = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%t: tensor<16x64xf8E4M3FN, #blocked>) {
  %m = qgpu.local_alloc %t : (tensor<16x64xf8E4M3FN, #blocked>) -> !qgpu.memdesc<16x64xi8, #sh>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.local_alloc' op source element type f8E4M3FN must equal the buffer's i8

// -----

// local_alloc: source layout
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%t: tensor<16x64xi8, #qgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>) {
  %m = qgpu.local_alloc %t : (tensor<16x64xi8, #qgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>) -> !qgpu.memdesc<16x64xi8, #sh>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.local_alloc' op source layout: a #qgpu.blocked encoding of rank 1 cannot lay out a tensor of shape [16, 64]

// -----

// local_load: fp4Unpacked needs fp4Padded or fallback
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%m: !qgpu.memdesc<32x64xi8, #sh>) {
  %t = qgpu.local_load %m : !qgpu.memdesc<32x64xi8, #sh> -> tensor<32x64xi8, #bu>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.local_load' op a load into an fp4Unpacked operand needs an fp4Padded source buffer (the layout ldmatrix .b4x16_p64 reads) or the `fallback` attribute

// -----

// local_load: no stage dimensions
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%m: !qgpu.memdesc<2x16x64xi8, #sh, mutable>) {
  %t = qgpu.local_load %m : !qgpu.memdesc<2x16x64xi8, #sh, mutable> -> tensor<16x64xi8, #a>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.local_load' op result shape [16, 64] must equal the buffer shape [2, 16, 64]

// -----

// local_load: result layout
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%m: !qgpu.memdesc<16x64xi8, #sh>) {
  %t = qgpu.local_load %m : !qgpu.memdesc<16x64xi8, #sh> -> tensor<16x64xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.local_load' op result layout: kWidth = 2 is not valid for 8-bit elements: it must be 4, 8 or 16

// -----

// local_store: destination mutable
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#blocked = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%t: tensor<16x64xi8, #blocked>, %m: !qgpu.memdesc<16x64xi8, #sh>) {
  qgpu.local_store %t, %m : tensor<16x64xi8, #blocked>, !qgpu.memdesc<16x64xi8, #sh>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.local_store' op destination buffer must be mutable

// -----

// local_store: shape
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#blocked = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%t: tensor<32x64xi8, #blocked>, %m: !qgpu.memdesc<16x64xi8, #sh, mutable>) {
  qgpu.local_store %t, %m : tensor<32x64xi8, #blocked>, !qgpu.memdesc<16x64xi8, #sh, mutable>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.local_store' op value shape [32, 64] must equal the buffer shape [16, 64]

// -----

// async_copy: one offset per dimension
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%d: !qdot.desc<16x64xi8>, %i: index, %m: !qgpu.memdesc<16x64xi8, #sh, mutable>) {
  qgpu.async_copy %d[%i], %m : !qdot.desc<16x64xi8>, !qgpu.memdesc<16x64xi8, #sh, mutable>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.async_copy' op expected one offset per descriptor dimension: 2, got 1

// -----

// async_copy: `if` takes an i1 (qdot-pipeline's test that the loop runs the copy's K position)
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%d: !qdot.desc<16x64xi8>, %i: index, %m: !qgpu.memdesc<16x64xi8, #sh, mutable>) {
  qgpu.async_copy %d[%i, %i], %m if %i : !qdot.desc<16x64xi8>, !qgpu.memdesc<16x64xi8, #sh, mutable>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:37: error: operand is used with type i1, but has been previously used or defined with type index

// -----

// async_copy: in_bounds, one boolean per dimension (the declaration qdot.load carries)
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @async_copy_in_bounds(%d: !qdot.desc<16x64xi8>, %m: !qgpu.memdesc<16x64xi8, #sh, mutable>, %i: index) {
  qgpu.async_copy %d[%i, %i], %m {in_bounds = [true, true, true]} : !qdot.desc<16x64xi8>, !qgpu.memdesc<16x64xi8, #sh, mutable>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.async_copy' op in_bounds must hold one boolean per tile dimension (2), got [true, true, true]

// -----

// async_copy: destination mutable
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%d: !qdot.desc<16x64xi8>, %i: index, %m: !qgpu.memdesc<16x64xi8, #sh>) {
  qgpu.async_copy %d[%i, %i], %m : !qdot.desc<16x64xi8>, !qgpu.memdesc<16x64xi8, #sh>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.async_copy' op destination buffer must be mutable

// -----

// async_copy: tile shape
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%d: !qdot.desc<32x64xi8>, %i: index, %m: !qgpu.memdesc<16x64xi8, #sh, mutable>) {
  qgpu.async_copy %d[%i, %i], %m : !qdot.desc<32x64xi8>, !qgpu.memdesc<16x64xi8, #sh, mutable>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.async_copy' op descriptor tile [32, 64] must equal the buffer shape [16, 64]

// -----

// async_copy: element type
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%d: !qdot.desc<16x64xf8E4M3FN>, %i: index, %m: !qgpu.memdesc<16x64xi8, #sh, mutable>) {
  qgpu.async_copy %d[%i, %i], %m : !qdot.desc<16x64xf8E4M3FN>, !qgpu.memdesc<16x64xi8, #sh, mutable>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.async_copy' op descriptor element type f8E4M3FN must equal the buffer's i8

// -----

// async_wait: 0 <= pending < 2^31
func.func @f() {
  qgpu.async_wait {pending = -1}
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.async_wait' op pending must be from 0 to 2147483647 (a wait_group count is a 32-bit integer), got -1

// -----

// ... so that it survives the lowering to ptx.cp_async_wait's i32 (found by the input fuzz: 2^31
// became -2^31 there, and qdot-to-llvm's output did not verify)
func.func @f() {
  qgpu.async_wait {pending = 2147483648}
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.async_wait' op pending must be from 0 to 2147483647 (a wait_group count is a 32-bit integer), got 2147483648

// -----

// async_wait: pending is required
func.func @f() {
  qgpu.async_wait {}
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:19: error: qgpu.async_wait needs an integer `{pending = N}`

// -----

// memdesc_index: needs a stage dimension
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%m: !qgpu.memdesc<16x64xi8, #sh, mutable>, %i: index) {
  %s = qgpu.memdesc_index %m[%i] : !qgpu.memdesc<16x64xi8, #sh, mutable> -> !qgpu.memdesc<16x64xi8, #sh, mutable>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.memdesc_index' op source [16, 64] has no stage dimension to index: its rank 2 equals the rank of its #qgpu.shared encoding

// -----

// memdesc_index: result type
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%m: !qgpu.memdesc<3x16x64xi8, #sh, mutable>, %i: index) {
  %s = qgpu.memdesc_index %m[%i] : !qgpu.memdesc<3x16x64xi8, #sh, mutable> -> !qgpu.memdesc<16x64xi8, #sh>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.memdesc_index' op result must be !qgpu.memdesc<16x64xi8, #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>, mutable> (the source without its leading dimension), got !qgpu.memdesc<16x64xi8, #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>>

// -----

// memdesc_trans: result encoding
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%m: !qgpu.memdesc<32x64xi8, #sh>) {
  %t = qgpu.memdesc_trans %m {order = array<i64: 1, 0>} : !qgpu.memdesc<32x64xi8, #sh> -> !qgpu.memdesc<64x32xi8, #sh>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.memdesc_trans' op result must be !qgpu.memdesc<64x32xi8, #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [0, 1]}>> (the source permuted by order), got !qgpu.memdesc<64x32xi8, #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>>

// -----

// memdesc_trans: order is a permutation
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%m: !qgpu.memdesc<32x64xi8, #sh>) {
  %t = qgpu.memdesc_trans %m {order = array<i64: 0, 0>} : !qgpu.memdesc<32x64xi8, #sh> -> !qgpu.memdesc<32x64xi8, #sh>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.memdesc_trans' op order must be a permutation of 0..1, got [0, 0]

// -----

// memdesc_trans: no stage dimensions
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%m: !qgpu.memdesc<2x32x64xi8, #sh>) {
  %t = qgpu.memdesc_trans %m {order = array<i64: 0, 2, 1>} : !qgpu.memdesc<2x32x64xi8, #sh> -> !qgpu.memdesc<2x64x32xi8, #sh>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.memdesc_trans' op source has stage dimensions (rank 3, encoding rank 2); select a stage with qgpu.memdesc_index first

// -----

// memdesc_trans: an order of another integer width (an odd one was an internal error: found by
// tests/api/input_fuzz.py, seed 151)
#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%m: !qgpu.memdesc<32x64xi8, #sh>) {
  %t = qgpu.memdesc_trans %m {order = array<i32: 1, 0>} : !qgpu.memdesc<32x64xi8, #sh> -> !qgpu.memdesc<64x32xi8, #sh>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.memdesc_trans' op order must be an i64 array, got element type i32

// -----

#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
func.func @f(%m: !qgpu.memdesc<2x32x64xi8, #sh>) {
  %t = qgpu.memdesc_trans %m {order = array<i17: 0, 2, 1>} : !qgpu.memdesc<2x32x64xi8, #sh> -> !qgpu.memdesc<2x64x32xi8, #sh>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.memdesc_trans' op order must be an i64 array, got element type i17

// -----

// convert_layout: shape
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#blocked = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%t: tensor<16x8xf32, #mma>) {
  %u = qgpu.convert_layout %t : tensor<16x8xf32, #mma> -> tensor<16x16xf32, #blocked>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.convert_layout' op result shape [16, 16] must equal the source shape [16, 8]

// -----

// convert_layout: element type
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#blocked = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%t: tensor<16x8xf32, #mma>) {
  %u = qgpu.convert_layout %t : tensor<16x8xf32, #mma> -> tensor<16x8xi32, #blocked>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.convert_layout' op result element type i32 must equal the source's f32

// -----

// convert_layout: layouts must fit
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#blocked = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%t: tensor<16x8xi8, #blocked>) {
  %u = qgpu.convert_layout %t : tensor<16x8xi8, #blocked> -> tensor<16x8xi8, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.convert_layout' op result layout: an #qgpu.mma tensor must have 32-bit elements (an f32 or i32 accumulator) or 16-bit ones (an accumulator converted to bf16 or f16), got i8

// -----

// mma: result must be #qgpu.mma
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#blocked = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xi32, #blocked>) {
  %d = qgpu.mma %a, %b, %c lhs = s8 rhs = s8 : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xi32, #blocked> -> tensor<16x8xi32, #blocked>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op result must have a #qgpu.mma encoding, got #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// -----

// mma: operand encodings
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%a: tensor<16x32xi8, #b>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xi32, #mma>) {
  %d = qgpu.mma %a, %b, %c lhs = s8 rhs = s8 : tensor<16x32xi8, #b>, tensor<32x8xi8, #b>, tensor<16x8xi32, #mma> -> tensor<16x8xi32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op lhs must have a #qgpu.dot_op encoding with opIdx = 0, got #qgpu.dot_op<{opIdx = 1, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 4}>

// -----

// mma: operand parent
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @f(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #qgpu.dot_op<{opIdx = 1, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 2], instrShape = [16, 8]}>, kWidth = 4}>>, %c: tensor<16x8xi32, #mma>) {
  %d = qgpu.mma %a, %b, %c lhs = s8 rhs = s8 : tensor<16x32xi8, #a>, tensor<32x8xi8, #qgpu.dot_op<{opIdx = 1, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 2], instrShape = [16, 8]}>, kWidth = 4}>>, tensor<16x8xi32, #mma> -> tensor<16x8xi32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op rhs encoding parent #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 2], instrShape = [16, 8]}> must be the result's #qgpu.mma encoding #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// -----

// mma: element type of the format
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>) {
  %d = qgpu.mma %a, %b, %c lhs = e4m3 rhs = s8 : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op lhs format e4m3 travels in f8E4M3FN elements, got i8

// -----

// mma: fp4Unpacked holds e2m1
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
func.func @f(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<16x8xi8, #bu>, %c: tensor<16x8xf32, #mma>) {
  %d = qgpu.mma %a, %b, %c lhs = e4m3 rhs = s8 : tensor<16x32xf8E4M3FN, #a>, tensor<16x8xi8, #bu>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op rhs is fp4Unpacked, which holds e2m1 values, but its format is s8

// -----

// mma: pairs
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
func.func @f(%a: tensor<16x16xbf16, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>, %b: tensor<32x8xf8E4M3FN, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>, %c: tensor<16x8xf32, #mma>) {
  %d = qgpu.mma %a, %b, %c lhs = bf16 rhs = e4m3 : tensor<16x16xbf16, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>, tensor<32x8xf8E4M3FN, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op lhs = bf16 and rhs = e4m3 is not an mma.sync pair: s8 and u8 pair with each other, bf16 and fp16 only with themselves, and e4m3, e5m2, e2m3, e3m2, e2m1 with each other

// -----

// mma: packed e2m1 pairs only with packed e2m1
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%a: tensor<16x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>) {
  %d = qgpu.mma %a, %b, %c lhs = e4m3 rhs = e2m1 : tensor<16x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op rhs holds e2m1 packed two per byte (kind::mxf4, m16n8k64), which pairs only with another packed e2m1 operand; give it fp4Unpacked (one value per byte, kind::f8f6f4) or upcast it

// -----

// mma: kWidth in values
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @f(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<16x8xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4, fp4Unpacked = true}>>, %c: tensor<16x8xf32, #mma>) {
  %d = qgpu.mma %a, %b, %c lhs = e4m3 rhs = e2m1 : tensor<16x32xf8E4M3FN, #a>, tensor<16x8xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4, fp4Unpacked = true}>>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op kWidth must be equal on both sides in values: lhs kWidth = 4 is 4 e4m3 values, rhs kWidth = 4 is 8 e2m1 values

// -----

// mma: K
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
func.func @f(%a: tensor<16x64xf8E4M3FN, #a>, %b: tensor<16x8xi8, #bu>, %c: tensor<16x8xf32, #mma>) {
  %d = qgpu.mma %a, %b, %c lhs = e4m3 rhs = e2m1 : tensor<16x64xf8E4M3FN, #a>, tensor<16x8xi8, #bu>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op K must agree: lhs [16, 64] holds K = 64 values, rhs [16, 8] holds K = 32

// -----

// mma: M and N
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%a: tensor<32x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xi32, #mma>) {
  %d = qgpu.mma %a, %b, %c lhs = s8 rhs = s8 : tensor<32x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xi32, #mma> -> tensor<16x8xi32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op lhs [M, K] = [32, 32] and rhs [K, N] = [32, 8] must match the result [M, N] = [16, 8]

// -----

// mma: i32 accumulator only for s8
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<32x8xf8E4M3FN, #b>, %c: tensor<16x8xi32, #mma>) {
  %d = qgpu.mma %a, %b, %c lhs = e4m3 rhs = e4m3 : tensor<16x32xf8E4M3FN, #a>, tensor<32x8xf8E4M3FN, #b>, tensor<16x8xi32, #mma> -> tensor<16x8xi32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op an i32 accumulator needs s8 / u8 operands and no scales, got lhs = e4m3, rhs = e4m3

// -----

// mma: accumulator type
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf16, #mma>) {
  %d = qgpu.mma %a, %b, %c lhs = s8 rhs = s8 : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf16, #mma> -> tensor<16x8xf16, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op accumulator and result must be f32 (or i32 for s8 / u8 operands), got f16

// -----

// mma: rescale value
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<32x8xf8E4M3FN, #b>, %c: tensor<16x8xf32, #mma>) {
  %d = qgpu.mma %a, %b, %c lhs = e4m3 rhs = e4m3 {rescale = "sometimes"} : tensor<16x32xf8E4M3FN, #a>, tensor<32x8xf8E4M3FN, #b>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op rescale must be one of "none", "hw", "per_block", got "sometimes"

// -----

// mma: rescale without scales
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<32x8xf8E4M3FN, #b>, %c: tensor<16x8xf32, #mma>) {
  %d = qgpu.mma %a, %b, %c lhs = e4m3 rhs = e4m3 {rescale = "hw"} : tensor<16x32xf8E4M3FN, #a>, tensor<32x8xf8E4M3FN, #b>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op rescale = "hw" needs scale operands

// -----

// mma: scales need rescale
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<32x8xf8E4M3FN, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf8E8M0FNU, #sa>, %sb: tensor<8x1xf8E8M0FNU, #sb>) {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = e4m3 rhs = e4m3 : tensor<16x32xf8E4M3FN, #a>, tensor<32x8xf8E4M3FN, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf8E8M0FNU, #sa>, tensor<8x1xf8E8M0FNU, #sb> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op scale operands need rescale = "hw" or "per_block"

// -----

// mma: scale encoding
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<32x8xf8E4M3FN, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf8E8M0FNU, #sb>, %sb: tensor<8x1xf8E8M0FNU, #sb>) {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = e4m3 rhs = e4m3 {rescale = "hw"} : tensor<16x32xf8E4M3FN, #a>, tensor<32x8xf8E4M3FN, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf8E8M0FNU, #sb>, tensor<8x1xf8E8M0FNU, #sb> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op lhs scale must have a #qgpu.dot_scale encoding with opIdx = 0 and the parent #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, got #qgpu.dot_scale<{opIdx = 1, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>}>

// -----

// mma: scale shape
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<32x8xf8E4M3FN, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf8E8M0FNU, #sa>, %sb: tensor<8x2xf8E8M0FNU, #sb>) {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = e4m3 rhs = e4m3 {rescale = "hw"} : tensor<16x32xf8E4M3FN, #a>, tensor<32x8xf8E4M3FN, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf8E8M0FNU, #sa>, tensor<8x2xf8E8M0FNU, #sb> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op rhs scale must have shape [N, K/32] = [8, 1], got [8, 2]

// -----

// mma: scale element type
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<32x8xf8E4M3FN, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf32, #sa>, %sb: tensor<8x1xf32, #sb>) {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = e4m3 rhs = e4m3 {rescale = "hw"} : tensor<16x32xf8E4M3FN, #a>, tensor<32x8xf8E4M3FN, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op lhs scale element type must be f8E8M0FNU (ue8m0, per 32) or f8E4M3FN (ue4m3, per 16), got f32

// -----

// mma: same scale type on both sides
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%a: tensor<16x64xi8, #a>, %b: tensor<64x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x8xf8E4M3FN, #sa>, %sb: tensor<8x4xf8E8M0FNU, #sb>) {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = e2m1 rhs = e2m1 {rescale = "hw"} : tensor<16x64xi8, #a>, tensor<64x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x8xf8E4M3FN, #sa>, tensor<8x4xf8E8M0FNU, #sb> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op lhs and rhs scales must have the same element type, got f8E4M3FN and f8E8M0FNU

// -----

// mma: the same f32 per-block scale type on both sides, but 16 values per lhs scale and 32 per rhs scale
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%a: tensor<16x64xi8, #a>, %b: tensor<64x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x4xf32, #sa>, %sb: tensor<8x2xf32, #sb>) {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block"} : tensor<16x64xi8, #a>, tensor<64x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x4xf32, #sa>, tensor<8x2xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op lhs and rhs scales must have the same group size (values per scale), got 16 for lhs and 32 for rhs

// -----

// mma: hw scales need block-scaled kinds
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf8E8M0FNU, #sa>, %sb: tensor<8x1xf8E8M0FNU, #sb>) {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "hw"} : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf8E8M0FNU, #sa>, tensor<8x1xf8E8M0FNU, #sb> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op rescale = "hw" needs the block-scaled kinds (e4m3, e5m2, e2m3, e3m2, e2m1 operands); lhs = s8, rhs = s8 has none

// -----

// mma: ue4m3 needs packed e2m1
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<16x8xi8, #bu>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x2xf8E4M3FN, #sa>, %sb: tensor<8x2xf8E4M3FN, #sb>) {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = e4m3 rhs = e2m1 {rescale = "hw"} : tensor<16x32xf8E4M3FN, #a>, tensor<16x8xi8, #bu>, tensor<16x8xf32, #mma>, tensor<16x2xf8E4M3FN, #sa>, tensor<8x2xf8E4M3FN, #sb> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op f8E4M3FN scales per 16 (ue4m3) exist only for packed e2m1 × e2m1 (kind::mxf4nvf4), got lhs = e4m3, rhs = e2m1 (fp4Unpacked)

// -----

// mma: hw scales see whole groups
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%a: tensor<16x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 16}>>, %b: tensor<64x8xf8E4M3FN, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 16}>>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x2xf8E8M0FNU, #sa>, %sb: tensor<8x2xf8E8M0FNU, #sb>) {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = e4m3 rhs = e4m3 {rescale = "hw"} : tensor<16x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 16}>>, tensor<64x8xf8E4M3FN, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 16}>>, tensor<16x8xf32, #mma>, tensor<16x2xf8E8M0FNU, #sa>, tensor<8x2xf8E8M0FNU, #sb> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op lhs kWidth = 16 permutes K across the 32-value scale groups of rescale = "hw" (k-tile 0 would need scale 1 where the instruction applies scale 0); use the ISA arrangement kWidth

// -----

// mma: per_block needs one group per instruction
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x2xf32, #sa>, %sb: tensor<8x2xf32, #sb>) {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block"} : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x2xf32, #sa>, tensor<8x2xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op lhs k-tile 0 holds K values of 2 scale groups of 16, but rescale = "per_block" runs one mma per group

// -----

// mma: scales come in pairs (generic form)
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
func.func @f(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<32x8xf8E4M3FN, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf8E8M0FNU, #sa>) {
  %d = "qgpu.mma"(%a, %b, %c, %sa) <{lhs = #qgpu<format e4m3>, rhs = #qgpu<format e4m3>, rescale = "hw", operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0>}> : (tensor<16x32xf8E4M3FN, #a>, tensor<32x8xf8E4M3FN, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf8E8M0FNU, #sa>) -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op scales come in pairs: give both the lhs and the rhs scale, or neither

// -----

// upcast: exact conversions only
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @f(%x: tensor<16x32xf6E3M2FN, #a>) {
  %u = qgpu.upcast %x from = e3m2 to = s8 : tensor<16x32xf6E3M2FN, #a> -> tensor<16x32xi8, #a>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = e3m2 to = s8 is not an exact conversion; e3m2 upcasts to bf16, e4m3, fp16

// -----

// upcast: sources
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
func.func @f(%x: tensor<16x16xbf16, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>) {
  %u = qgpu.upcast %x from = bf16 to = fp16 : tensor<16x16xbf16, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>> -> tensor<16x16xf16, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op from = bf16 cannot be upcast: the sources are e2m1, e2m3, e3m2, e4m3, e5m2, iq4_nl, mxfp4, q2_K, q3_K, q4_0, q4_1, q4_K, q5_0, q5_1, q5_K, q6_K

// -----

// upcast: result encoding
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#blocked = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = e2m1 to = s8 : tensor<16x32xi8, #a> -> tensor<16x64xi8, #blocked>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op source must be #qgpu.blocked like the result, got #qgpu.dot_op<{opIdx = 0, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 4}>

// -----

// upcast: a blocked upcast (cooperative dequantization) keeps each thread's values
#src = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#dst = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%x: tensor<16x32xi8, #src>) {
  %u = qgpu.upcast %x from = e2m1 to = bf16 : tensor<16x32xi8, #src> -> tensor<16x64xbf16, #dst>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op result sizePerThread must be [1, 32] (the source's with dimension 1 times 2), got [1, 16]

// -----

// upcast: a blocked upcast's tensors must be laid out by their encodings (48 rows against a 32-row CTA tile)
#raw = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#h = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%x: tensor<48x4xi8, #raw>) {
  %u = qgpu.upcast %x from = e2m1 to = fp16 : tensor<48x4xi8, #raw> -> tensor<48x8xf16, #h>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op source layout: dimension 0 = 48 must divide or be a multiple of the CTA tile sizePerThread·threadsPerWarp·warpsPerCTA = 32

// -----

// upcast: a rank-2 blocked encoding cannot lay out a rank-3 tile (said before the shapes are compared)
#raw = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#h = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%x: tensor<2x32x4xi8, #raw>) {
  %u = qgpu.upcast %x from = e2m1 to = fp16 : tensor<2x32x4xi8, #raw> -> tensor<2x32x8xf16, #h>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op source layout: a #qgpu.blocked encoding of rank 2 cannot lay out a tensor of shape [2, 32, 4]

// -----

// upcast: a blocked scale holds the scales of each thread's run
#src = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#dst = #qgpu.blocked<{sizePerThread = [1, 32], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#sc = #qgpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @f(%x: tensor<16x32xi8, #src>, %s: tensor<16x2xf8E8M0FNU, #sc>) {
  %u = qgpu.upcast %x scale %s from = e2m1 to = bf16 : tensor<16x32xi8, #src>, tensor<16x2xf8E8M0FNU, #sc> -> tensor<16x64xbf16, #dst>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op scale must be #qgpu.blocked like the result with sizePerThread [1, 1], got #qgpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>

// -----

// upcast: same opIdx and parent
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @f(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = e2m1 to = s8 : tensor<16x32xi8, #a> -> tensor<64x8xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 8}>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op source must have a #qgpu.dot_op encoding with opIdx = 1, got #qgpu.dot_op<{opIdx = 0, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>, kWidth = 4}>

// -----

// upcast: element types
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @f(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = e2m1 to = s8 : tensor<16x32xi8, #a> -> tensor<16x64xf8E4M3FN, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op result format s8 travels in i8 elements, got f8E4M3FN

// -----

// upcast: K doubles for e2m1
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @f(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = e2m1 to = s8 : tensor<16x32xi8, #a> -> tensor<16x32xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op result shape must be [16, 64] (the source [16, 32] with K times 2), got [16, 32]

// -----

// upcast: kWidth doubles for e2m1
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @f(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = e2m1 to = s8 : tensor<16x32xi8, #a> -> tensor<16x64xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op result kWidth must be 8 (source kWidth = 4 of e2m1), got 4

// -----

// upcast: the result holds whole values, not fp4Unpacked
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
func.func @f(%x: tensor<16x32xi8, #a>) {
  %u = qgpu.upcast %x from = e2m1 to = s8 : tensor<16x32xi8, #a> -> tensor<16x32xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4, fp4Unpacked = true}>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op result is fp4Unpacked, which holds e2m1 values, but its format is s8

// -----

// upcast: scales only into bf16/fp16
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
func.func @f(%x: tensor<16x32xi8, #a>, %s: tensor<16x2xf8E8M0FNU, #sa>) {
  %u = qgpu.upcast %x scale %s from = e2m1 to = s8 : tensor<16x32xi8, #a>, tensor<16x2xf8E8M0FNU, #sa> -> tensor<16x64xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op a scale needs to = bf16 or fp16, got to = s8

// -----

// upcast: scale shape
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
func.func @f(%x: tensor<16x32xi8, #a>, %s: tensor<16x1xf8E8M0FNU, #sa>) {
  %u = qgpu.upcast %x scale %s from = e2m1 to = bf16 : tensor<16x32xi8, #a>, tensor<16x1xf8E8M0FNU, #sa> -> tensor<16x64xbf16, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op scale must have shape [M, K/32] = [16, 2], got [16, 1]

// -----

// upcast: ue4m3 scales e2m1 only
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
func.func @f(%x: tensor<16x32xf8E4M3FN, #a>, %s: tensor<16x2xf8E4M3FN, #sa>) {
  %u = qgpu.upcast %x scale %s from = e4m3 to = bf16 : tensor<16x32xf8E4M3FN, #a>, tensor<16x2xf8E4M3FN, #sa> -> tensor<16x32xbf16, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op ue4m3 scales (per 16) scale e2m1 only, got from = e4m3

// -----

// mma: hw block scales take B's scale from the operand column's lane (operand = true)
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%a: tensor<16x32xf8E4M3FN, #a>, %b: tensor<32x8xf8E4M3FN, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf8E8M0FNU, #sa>, %sb: tensor<8x1xf8E8M0FNU, #sb>) {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = e4m3 rhs = e4m3 {rescale = "hw"} : tensor<16x32xf8E4M3FN, #a>, tensor<32x8xf8E4M3FN, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf8E8M0FNU, #sa>, tensor<8x1xf8E8M0FNU, #sb> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op rhs scale for rescale = "hw" must use operand = true

// -----

// mma: per_block rescales the accumulator columns (operand = false)
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>
func.func @f(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf8E8M0FNU, #sa>, %sb: tensor<8x1xf8E8M0FNU, #sb>) {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block"} : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf8E8M0FNU, #sa>, tensor<8x1xf8E8M0FNU, #sb> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op rhs scale for rescale = "per_block" must use the accumulator columns (operand = false)

// -----

// mma: qdot.scale_bits counts the significant bits of an f32 scale
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf32, #sa>, %sb: tensor<8x1xf32, #sb>) {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block", qdot.scale_bits = 0 : i64} : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op qdot.scale_bits must be an integer from 1 to 24 (significant bits of an f32 scale), got 0 : i64

// -----

// mma: qdot.exp gives the two sides' power-of-two shifts, as i64
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>, %sa: tensor<16x1xf8E8M0FNU, #sa>, %sb: tensor<8x1xf8E8M0FNU, #sb>) {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = s8 rhs = s8 {rescale = "per_block", qdot.exp = array<i32: 1, 1, 5>} : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf8E8M0FNU, #sa>, tensor<8x1xf8E8M0FNU, #sb> -> tensor<16x8xf32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op qdot.exp must be array<i64: ea, eb>, two shifts from 0 to 24, got array<i32: 1, 1, 5>

// -----

// mma: qdot.scale_bits describes per-block scales
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @f(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xi32, #mma>) {
  %d = qgpu.mma %a, %b, %c lhs = s8 rhs = s8 {qdot.scale_bits = 17 : i64} : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xi32, #mma> -> tensor<16x8xi32, #mma>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.mma' op qdot.scale_bits describes per-block scales: it needs rescale = "per_block"

// -----

// upcast: a B-side scale follows the operand columns
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b2 = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#b4 = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @f(%y: tensor<16x8xi8, #b2>, %s: tensor<8x1xf8E8M0FNU, #sb>) {
  %v = qgpu.upcast %y scale %s from = e2m1 to = bf16 : tensor<16x8xi8, #b2>, tensor<8x1xf8E8M0FNU, #sb> -> tensor<32x8xbf16, #b4>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.upcast' op a B-side upcast scale must follow the operand columns

// -----

// block_part view: its values span whole blocks of the row (8 q4_0 blocks hold 128 quant bytes, not 256)
#qs = #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 0}>
func.func @f(%m: !qgpu.memdesc<256x16xi8, #qs>) {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:31: error: a #qgpu.block_part view of q4_0 'qs': dimension 0 (its values) must be a multiple of 16 (values per block) up to 128 (blocks 0 to 7 of each row), got 256{{$}}

// -----

// block_part view: from block `first` on, and whole blocks only
#qs = #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1, first = 6}>
func.func @f(%m: !qgpu.memdesc<16x24xi8, #qs>) {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:31: error: a #qgpu.block_part view of q4_0 'qs': dimension 1 (its values) must be a multiple of 16 (values per block) up to 32 (blocks 6 to 7 of each row), got 24{{$}}

// -----

// block_part view: a derived part is [rows, values] whatever the buffer's valueDim (8 blocks, one d16 each)
#d = #qgpu.block_part<{format = "q4_0", part = "d16", blocks = 8, valueDim = 0}>
func.func @f(%m: !qgpu.memdesc<16x16xf32, #d>) {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:31: error: a #qgpu.block_part view of q4_0 'd16': dimension 1 (its values) must be a multiple of 1 (values per block) up to 8 (blocks 0 to 7 of each row), got 16{{$}}

// -----

// block_part view: the part fixes the element type (qs is bytes of nibbles)
#qs = #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 0}>
func.func @f(%m: !qgpu.memdesc<128x16xbf16, #qs>) {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:31: error: a #qgpu.block_part view of q4_0 'qs' holds i8 elements, got bf16{{$}}

// -----

// block_part view: dimensions positive, as a #qgpu.shared buffer's
#qs = #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1}>
func.func @f(%m: !qgpu.memdesc<0x128xi8, #qs>) {
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:31: error: !qgpu.memdesc dimensions must be static and positive, got [0, 128]{{$}}

// -----

// block_part: a view is taken of a buffer of blocks, not of another view
#qs = #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1}>
func.func @f(%m: !qgpu.memdesc<16x128xi8, #qs>) {
  %v = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<16x128xi8, #qs> -> !qgpu.memdesc<16x128xi8, #qs>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.block_part' op source must have a #qgpu.shared encoding (a view is taken of whole blocks in a buffer, not of another view), got #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1}>{{$}}

// -----

// memdesc_trans: not of a block_part view
#qs = #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1}>
#qt = #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 0}>
func.func @f(%m: !qgpu.memdesc<16x128xi8, #qs>) {
  %t = qgpu.memdesc_trans %m {order = array<i64: 1, 0>} : !qgpu.memdesc<16x128xi8, #qs> -> !qgpu.memdesc<128x16xi8, #qt>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.memdesc_trans' op source must have a #qgpu.shared encoding (a #qgpu.block_part view's orientation is its valueDim, fixed by qgpu.block_part), got #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1}>{{$}}

// -----

// memdesc_index: not of a block_part view
#qs = #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1}>
func.func @f(%m: !qgpu.memdesc<16x128xi8, #qs>, %i: index) {
  %t = qgpu.memdesc_index %m[%i] : !qgpu.memdesc<16x128xi8, #qs> -> !qgpu.memdesc<16x128xi8, #qs>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.memdesc_index' op source must have a #qgpu.shared encoding (a #qgpu.block_part view has no stage dimension to index), got #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1}>{{$}}

// -----

// local_load: fp4Unpacked operands come from #qgpu.shared buffers only
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#qs = #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 0}>
func.func @f(%m: !qgpu.memdesc<128x16xi8, #qs>) {
  %r = qgpu.local_load %m {fallback} : !qgpu.memdesc<128x16xi8, #qs> -> tensor<128x16xi8, #bu>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.local_load' op source must have a #qgpu.shared encoding (a load into an fp4Unpacked operand reads nibbles in the operand's order; a block part pairs them as its format does), got #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 0}>{{$}}

// -----

// local_alloc: allocates #qgpu.shared buffers, not views
#qs = #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1}>
func.func @f() {
  %m = qgpu.local_alloc : () -> !qgpu.memdesc<16x128xi8, #qs, mutable>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.local_alloc' op result must have a #qgpu.shared encoding (an allocation is a whole buffer; qgpu.block_part makes views of one), got #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1}>{{$}}

// -----

// async_copy: a block_part view is read-only
#qs = #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1}>
func.func @f(%d: !qdot.desc<16x128xi8>, %i: index, %m: !qgpu.memdesc<16x128xi8, #qs, mutable>) {
  qgpu.async_copy %d[%i, %i], %m : !qdot.desc<16x128xi8>, !qgpu.memdesc<16x128xi8, #qs, mutable>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.async_copy' op destination must have a #qgpu.shared encoding (a #qgpu.block_part view is read-only), got #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1}>{{$}}

// -----

// local_store: a block_part view is read-only
#blocked = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#qs = #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1}>
func.func @f(%t: tensor<16x128xi8, #blocked>, %m: !qgpu.memdesc<16x128xi8, #qs, mutable>) {
  qgpu.local_store %t, %m : tensor<16x128xi8, #blocked>, !qgpu.memdesc<16x128xi8, #qs, mutable>
  func.return
}
// CHECK: invalid.mlir:[[# @LINE - 3]]:3: error: 'qgpu.local_store' op destination must have a #qgpu.shared encoding (a #qgpu.block_part view is read-only), got #qgpu.block_part<{format = "q4_0", part = "qs", blocks = 8, valueDim = 1}>{{$}}

// -----

// mma: e2m1 packed two per byte with no scales. Only kind::mxf4 / mxf4nvf4 (block-scaled, m16n8k64)
// read packed e2m1; the lowering took kind::f8f6f4 m16n8k32, which reads one value per byte.
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
func.func @packed_unscaled(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c lhs = e2m1 rhs = e2m1
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'qgpu.mma' op e2m1 packed two per byte is read only by the block-scaled kind::mxf4 / mxf4nvf4 m16n8k64: it needs scales with rescale = "hw" (unit ue8m0 scales for an unscaled product), or fp4Unpacked operands (one value per byte, kind::f8f6f4)

// -----

// mma: a per-16 sub factor with kWidth = 8. Each m16n8k16 half of a block then holds K values
// 0-3, 8-11, 16-19, 24-27, not one 16-value half, and the factor weighted the wrong values.
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 8}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
func.func @sub_kwidth8(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                       %sa: tensor<16x1xf32, #sa>, %sb: tensor<8x1xf32, #sb>, %sub: tensor<8x2xi32, #sb>) -> tensor<16x8xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb rhs_sub %sub lhs = s8 rhs = s8 {rescale = "per_block"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x1xf32, #sa>, tensor<8x1xf32, #sb> rhs_sub tensor<8x2xi32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}
// CHECK: invalid.mlir:[[# @LINE - 4]]:3: error: 'qgpu.mma' op rhs_sub weights each 16-value half of a block, which an m16n8k16 holds in the ISA's K order only: the lhs operand needs kWidth = 4, got kWidth = 8
