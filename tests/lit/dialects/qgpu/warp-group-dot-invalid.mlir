// One case per verifier rule of qgpu.warp_group_dot, qgpu.warp_group_dot_wait and the
// #qgpu.shared rowElems parameter; each names the operand and the numbers.
// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The accumulator of a wgmma is a #qgpu.mma of versionMajor 3, not the mma.sync one.
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#sa = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
%a, %b, %c = "test.op"() : () -> (!qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64x64xbf16, #sb>, tensor<64x64xf32, #mma>)
%d = qgpu.warp_group_dot %a, %b, %c lhs = bf16 rhs = bf16 : !qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64x64xbf16, #sb>, tensor<64x64xf32, #mma> -> tensor<64x64xf32, #mma>
// CHECK: warp-group-dot-invalid.mlir:[[# @LINE - 1]]:1: error: 'qgpu.warp_group_dot' op result must have a #qgpu.mma encoding of versionMajor = 3 (wgmma), got #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>

// -----

// perPhase 2 on 128-byte rows: rows 0 and 1 share a phase, but the 128-byte swizzle the
// descriptor reads moves row 1's first 16 bytes to chunk 1 (byte 128 + 16).
#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#sa = #qgpu.shared<{vec = 8, perPhase = 2, maxPhase = 8, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
%a, %b, %c = "test.op"() : () -> (!qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64x64xbf16, #sb>, tensor<64x64xf32, #mma3>)
%d = qgpu.warp_group_dot %a, %b, %c lhs = bf16 rhs = bf16 : !qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64x64xbf16, #sb>, tensor<64x64xf32, #mma3> -> tensor<64x64xf32, #mma3>
// CHECK: warp-group-dot-invalid.mlir:[[# @LINE - 1]]:1: error: 'qgpu.warp_group_dot' op lhs buffer cannot be read by wgmma: its layout #qgpu.shared<{vec = 8, perPhase = 2, maxPhase = 8, order = [1, 0]}> is not the K-major 128-byte swizzled layout wgmma reads (element [1, 0] at byte 128, the descriptor reads byte 144)

// -----

// An unswizzled B: element [k, n] = [0, 1] (row 1 of the K-major B) at byte 128, read at 144.
#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#sa = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
%a, %b, %c = "test.op"() : () -> (!qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64x64xbf16, #sb>, tensor<64x64xf32, #mma3>)
%d = qgpu.warp_group_dot %a, %b, %c lhs = bf16 rhs = bf16 : !qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64x64xbf16, #sb>, tensor<64x64xf32, #mma3> -> tensor<64x64xf32, #mma3>
// CHECK: warp-group-dot-invalid.mlir:[[# @LINE - 1]]:1: error: 'qgpu.warp_group_dot' op rhs buffer cannot be read by wgmma: its layout #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}> is not the K-major 128-byte swizzled layout wgmma reads (element [0, 1] at byte 128, the descriptor reads byte 144)

// -----

// K = 48 values = 96 bytes: no swizzle width fits a row.
#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#sa = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [0, 1]}>
%a, %b, %c = "test.op"() : () -> (!qgpu.memdesc<64x48xbf16, #sa>, !qgpu.memdesc<48x64xbf16, #sb>, tensor<64x64xf32, #mma3>)
%d = qgpu.warp_group_dot %a, %b, %c lhs = bf16 rhs = bf16 : !qgpu.memdesc<64x48xbf16, #sa>, !qgpu.memdesc<48x64xbf16, #sb>, tensor<64x64xf32, #mma3> -> tensor<64x64xf32, #mma3>
// CHECK: warp-group-dot-invalid.mlir:[[# @LINE - 1]]:1: error: 'qgpu.warp_group_dot' op lhs buffer cannot be read by wgmma: the buffer's K extent must be 16, 32 or a multiple of 64 values (32-, 64- or 128-byte swizzled rows), got 48

// -----

// A 1-D B buffer has no [K, N]: the rank is refused before the shapes are compared.
#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#sa = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#s1 = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [0]}>
%a, %b, %c = "test.op"() : () -> (!qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64xbf16, #s1>, tensor<64x64xf32, #mma3>)
%d = qgpu.warp_group_dot %a, %b, %c lhs = bf16 rhs = bf16 : !qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64xbf16, #s1>, tensor<64x64xf32, #mma3> -> tensor<64x64xf32, #mma3>
// CHECK: warp-group-dot-invalid.mlir:[[# @LINE - 1]]:1: error: 'qgpu.warp_group_dot' op rhs buffer cannot be read by wgmma: a wgmma operand buffer must be 2-D, got 1-D

// -----

// One wgmma spans the whole N: instrShape N = 32 for a 64-wide tile.
#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>
#sa = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
%a, %b, %c = "test.op"() : () -> (!qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64x64xbf16, #sb>, tensor<64x64xf32, #mma3>)
%d = qgpu.warp_group_dot %a, %b, %c lhs = bf16 rhs = bf16 : !qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64x64xbf16, #sb>, tensor<64x64xf32, #mma3> -> tensor<64x64xf32, #mma3>
// CHECK: warp-group-dot-invalid.mlir:[[# @LINE - 1]]:1: error: 'qgpu.warp_group_dot' op instrShape N = 32 must be the tile's N = 64 (one wgmma per k16 step spans the whole N)

// -----

// Two warpgroups need M a multiple of 128 (the result's layout check says so first).
#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
#sa = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
%a, %b, %c = "test.op"() : () -> (!qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64x64xbf16, #sb>, tensor<64x64xf32, #mma3>)
%d = qgpu.warp_group_dot %a, %b, %c lhs = bf16 rhs = bf16 : !qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64x64xbf16, #sb>, tensor<64x64xf32, #mma3> -> tensor<64x64xf32, #mma3>
// CHECK: warp-group-dot-invalid.mlir:[[# @LINE - 1]]:1: error: 'qgpu.warp_group_dot' op result layout: dimension 0 (M) = 64 must be a multiple of 16·warpsPerCTA[0] = 128

// -----

// Mixed formats: wgmma takes one A/B type.
#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#sa = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
%a, %b, %c = "test.op"() : () -> (!qgpu.memdesc<64x64xf16, #sa>, !qgpu.memdesc<64x64xbf16, #sb>, tensor<64x64xf32, #mma3>)
%d = qgpu.warp_group_dot %a, %b, %c lhs = fp16 rhs = bf16 : !qgpu.memdesc<64x64xf16, #sa>, !qgpu.memdesc<64x64xbf16, #sb>, tensor<64x64xf32, #mma3> -> tensor<64x64xf32, #mma3>
// CHECK: warp-group-dot-invalid.mlir:[[# @LINE - 1]]:1: error: 'qgpu.warp_group_dot' op lhs and rhs must be the same format, got fp16 and bf16

// -----

// Formats wgmma is not emitted for here.
#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#sa = #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1]}>
%a, %b, %c = "test.op"() : () -> (!qgpu.memdesc<64x128xf8E4M3FN, #sa>, !qgpu.memdesc<128x64xf8E4M3FN, #sb>, tensor<64x64xf32, #mma3>)
%d = qgpu.warp_group_dot %a, %b, %c lhs = e4m3 rhs = e4m3 : !qgpu.memdesc<64x128xf8E4M3FN, #sa>, !qgpu.memdesc<128x64xf8E4M3FN, #sb>, tensor<64x64xf32, #mma3> -> tensor<64x64xf32, #mma3>
// CHECK: warp-group-dot-invalid.mlir:[[# @LINE - 1]]:1: error: 'qgpu.warp_group_dot' op lhs must be bf16 or fp16 (the wgmma forms qdot emits), got e4m3

// -----

// The buffer holds what the format names.
#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#sa = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
%a, %b, %c = "test.op"() : () -> (!qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64x64xf16, #sb>, tensor<64x64xf32, #mma3>)
%d = qgpu.warp_group_dot %a, %b, %c lhs = bf16 rhs = bf16 : !qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64x64xf16, #sb>, tensor<64x64xf32, #mma3> -> tensor<64x64xf32, #mma3>
// CHECK: warp-group-dot-invalid.mlir:[[# @LINE - 1]]:1: error: 'qgpu.warp_group_dot' op rhs buffer must hold bf16 for rhs = bf16, got f16

// -----

// At most one dot may be left running.
#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#sa = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
%a, %b, %c = "test.op"() : () -> (!qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64x64xbf16, #sb>, tensor<64x64xf32, #mma3>)
%d = qgpu.warp_group_dot %a, %b, %c lhs = bf16 rhs = bf16 {pendings = 2} : !qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64x64xbf16, #sb>, tensor<64x64xf32, #mma3> -> tensor<64x64xf32, #mma3>
// CHECK: warp-group-dot-invalid.mlir:[[# @LINE - 1]]:1: error: 'qgpu.warp_group_dot' op pendings must be 0 or 1, got 2

// -----

// The wait is for wgmma accumulators only.
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
%c = "test.op"() : () -> tensor<64x64xf32, #mma>
%r = qgpu.warp_group_dot_wait %c {pendings = 0} : tensor<64x64xf32, #mma>
// CHECK: warp-group-dot-invalid.mlir:[[# @LINE - 1]]:1: error: 'qgpu.warp_group_dot_wait' op the accumulator must have a #qgpu.mma encoding of versionMajor = 3, got #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>

// -----

// The wait's count lowers to wgmma.wait_group's 32-bit N.
#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
%c = "test.op"() : () -> tensor<64x64xf32, #mma3>
%r = qgpu.warp_group_dot_wait %c {pendings = 2147483648} : tensor<64x64xf32, #mma3>
// CHECK: warp-group-dot-invalid.mlir:[[# @LINE - 1]]:1: error: 'qgpu.warp_group_dot_wait' op pendings must be from 0 to 2147483647 (a wait_group count is a 32-bit integer), got 2147483648

// -----

// rowElems: a power of two.
"test.op"() {enc = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], rowElems = 48}>} : () -> ()
// CHECK: warp-group-dot-invalid.mlir:[[# @LINE - 1]]:32: error: #qgpu.shared rowElems must be a positive power of two, got 48

// -----

// rowElems splits rows of real elements; the padded fp4 layout has its own row structure.
"test.op"() {enc = #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0], fp4Padded = true, rowElems = 64}>} : () -> ()
// CHECK: warp-group-dot-invalid.mlir:[[# @LINE - 1]]:32: error: #qgpu.shared rowElems does not combine with fp4Padded
