// qgpu.warp_group_dot and qgpu.warp_group_dot_wait, in custom syntax, printed back, and
// through the generic form; the #qgpu.mma of versionMajor = 3 and #qgpu.shared rowElems
// they use.
// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP

// One warpgroup, 64×64 bf16 tiles with K = 64: 128-byte swizzled rows (vec 8, perPhase 1,
// maxPhase 8); A is K-contiguous [M, K] (order [1, 0]), B K-contiguous [K, N] (order [0, 1]).
// The asynchronous dot ({pendings = 1}) chains on the synchronous one, then the wait.
#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#sa = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>

// CHECK-LABEL: func.func @bf16
// CHECK-SAME:  (%[[A:[^:]*]]: !qgpu.memdesc<64x64xbf16, #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>, %[[B:[^:]*]]: !qgpu.memdesc<64x64xbf16, #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>>, %[[C:[^:]*]]: tensor<64x64xf32, #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>)
// CHECK-NEXT:  %[[D:.*]] = qgpu.warp_group_dot %[[A]], %[[B]], %[[C]] lhs = bf16 rhs = bf16 : !qgpu.memdesc<64x64xbf16, {{.*}}>, !qgpu.memdesc<64x64xbf16, {{.*}}>, tensor<64x64xf32, {{.*}}> -> tensor<64x64xf32, #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>
// CHECK-NEXT:  %[[E:.*]] = qgpu.warp_group_dot %[[A]], %[[B]], %[[D]] lhs = bf16 rhs = bf16 {pendings = 1 : i64} :
// CHECK-NEXT:  %[[R:.*]] = qgpu.warp_group_dot_wait %[[E]] {pendings = 0 : i64} : tensor<64x64xf32, #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>
// CHECK-NEXT:  func.return %[[R]]
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "bf16"
// CHECK-GENERIC: "qgpu.warp_group_dot"(%{{.*}}, %{{.*}}, %{{.*}}) <{lhs = #qgpu<format bf16>, rhs = #qgpu<format bf16>}> : (
// CHECK-GENERIC: "qgpu.warp_group_dot"(%{{.*}}, %{{.*}}, %{{.*}}) <{lhs = #qgpu<format bf16>, rhs = #qgpu<format bf16>, pendings = 1 : i64}> : (
// CHECK-GENERIC: "qgpu.warp_group_dot_wait"(%{{.*}}) <{pendings = 0 : i64}> : (tensor<64x64xf32, #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>>) -> tensor<64x64xf32,
func.func @bf16(%a: !qgpu.memdesc<64x64xbf16, #sa>, %b: !qgpu.memdesc<64x64xbf16, #sb>, %c: tensor<64x64xf32, #mma3>) -> tensor<64x64xf32, #mma3> {
  %d = qgpu.warp_group_dot %a, %b, %c lhs = bf16 rhs = bf16 : !qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64x64xbf16, #sb>, tensor<64x64xf32, #mma3> -> tensor<64x64xf32, #mma3>
  %e = qgpu.warp_group_dot %a, %b, %d lhs = bf16 rhs = bf16 {pendings = 1} : !qgpu.memdesc<64x64xbf16, #sa>, !qgpu.memdesc<64x64xbf16, #sb>, tensor<64x64xf32, #mma3> -> tensor<64x64xf32, #mma3>
  %r = qgpu.warp_group_dot_wait %e {pendings = 0} : tensor<64x64xf32, #mma3>
  func.return %r : tensor<64x64xf32, #mma3>
}

// -----

// Two warpgroups (warpsPerCTA [8, 1]), f16, K = 128: 256-byte rows split into two 128-byte
// swizzle atoms (rowElems = 64), mutable ring stages.
#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>
#sa = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], rowElems = 64}>
#sb = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], rowElems = 64}>

// CHECK-LABEL: func.func @f16_two_atoms
// CHECK:       qgpu.warp_group_dot %{{.*}}, %{{.*}}, %{{.*}} lhs = fp16 rhs = fp16 : !qgpu.memdesc<128x128xf16, #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], rowElems = 64}>, mutable>, !qgpu.memdesc<128x128xf16, #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], rowElems = 64}>, mutable>, tensor<128x128xf32, #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>> -> tensor<128x128xf32,
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "f16_two_atoms"
// CHECK-GENERIC: "qgpu.warp_group_dot"(%{{.*}}, %{{.*}}, %{{.*}}) <{lhs = #qgpu<format fp16>, rhs = #qgpu<format fp16>}> : (!qgpu.memdesc<128x128xf16, #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], rowElems = 64}>, mutable>
func.func @f16_two_atoms(%a: !qgpu.memdesc<128x128xf16, #sa, mutable>, %b: !qgpu.memdesc<128x128xf16, #sb, mutable>,
                         %c: tensor<128x128xf32, #mma3>) -> tensor<128x128xf32, #mma3> {
  %d = qgpu.warp_group_dot %a, %b, %c lhs = fp16 rhs = fp16 : !qgpu.memdesc<128x128xf16, #sa, mutable>, !qgpu.memdesc<128x128xf16, #sb, mutable>, tensor<128x128xf32, #mma3> -> tensor<128x128xf32, #mma3>
  func.return %d : tensor<128x128xf32, #mma3>
}

// -----

// K = 32: 64-byte rows (perPhase 2, maxPhase 4), the 64-byte swizzle; A [64, 32] and
// B [32, 8], N = 8 (the smallest wgmma).
#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8, 16]}>
#sa = #qgpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]}>

// CHECK-LABEL: func.func @k32_n8
// CHECK:       qgpu.warp_group_dot %{{.*}}, %{{.*}}, %{{.*}} lhs = bf16 rhs = bf16 : !qgpu.memdesc<64x32xbf16, #qgpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>>, !qgpu.memdesc<32x8xbf16, #qgpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]}>>, tensor<64x8xf32, #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8, 16]}>>
func.func @k32_n8(%a: !qgpu.memdesc<64x32xbf16, #sa>, %b: !qgpu.memdesc<32x8xbf16, #sb>, %c: tensor<64x8xf32, #mma3>) -> tensor<64x8xf32, #mma3> {
  %d = qgpu.warp_group_dot %a, %b, %c lhs = bf16 rhs = bf16 : !qgpu.memdesc<64x32xbf16, #sa>, !qgpu.memdesc<32x8xbf16, #sb>, tensor<64x8xf32, #mma3> -> tensor<64x8xf32, #mma3>
  func.return %d : tensor<64x8xf32, #mma3>
}

// -----

// K = 16: 32-byte rows (perPhase 4, maxPhase 2), the 32-byte swizzle.
#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]}>
#sa = #qgpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [0, 1]}>

// CHECK-LABEL: func.func @k16
// CHECK:       qgpu.warp_group_dot %{{.*}}, %{{.*}}, %{{.*}} lhs = fp16 rhs = fp16 : !qgpu.memdesc<64x16xf16, #qgpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [1, 0]}>>, !qgpu.memdesc<16x16xf16, #qgpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [0, 1]}>>
func.func @k16(%a: !qgpu.memdesc<64x16xf16, #sa>, %b: !qgpu.memdesc<16x16xf16, #sb>, %c: tensor<64x16xf32, #mma3>) -> tensor<64x16xf32, #mma3> {
  %d = qgpu.warp_group_dot %a, %b, %c lhs = fp16 rhs = fp16 : !qgpu.memdesc<64x16xf16, #sa>, !qgpu.memdesc<16x16xf16, #sb>, tensor<64x16xf32, #mma3> -> tensor<64x16xf32, #mma3>
  func.return %d : tensor<64x16xf32, #mma3>
}
