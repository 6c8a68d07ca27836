// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_120a}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_120a}' --remarks=qdot-lower-local-load -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// The `fallback` unit attribute of qgpu.local_load (passes/lower_local_load.py,
// _fallback_requested): on sm_120a, where the fp4 ldmatrix (.m8n16 .b8x16.b4x16_p64) reads this
// fp4Padded buffer (the last case, and fp4.mlir), the attribute makes the load the scalar
// fallback instead — one 16-bit ld.shared per register, spread into 0000xxxx bytes
// (fp4-fallback.mlir) — and the remark names the attribute as the reason. An fp4Unpacked load
// from a buffer that is not fp4Padded needs the attribute (the verifier refuses it otherwise)
// and takes the same fallback.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#kmajor = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], fp4Padded = true}>

// CHECK-LABEL:    func.func @padded_fallback
// CHECK-NOT:      ptx.ldmatrix
// CHECK-COUNT-16: ptx.ld_shared %{{.*}} : i16
// CHECK-NOT:      ptx.ld_shared
// CHECK-NOT:      ptx.ldmatrix
// CHECK:          func.return
// REMARK:         fallback-attr.mlir:[[# @LINE + 2]]:3: remark: qdot-lower-local-load: rhs operand 32x32xi8 (kWidth 2, fp4Unpacked): scalar ld.shared fallback: the op's fallback attribute asks for it; 16 wavefronts, no bank conflict per warp{{$}}
func.func @padded_fallback(%m: !qgpu.memdesc<32x32xi8, #kmajor>) -> tensor<32x32xi8, #bu> {
  %b = qgpu.local_load %m {fallback} : !qgpu.memdesc<32x32xi8, #kmajor> -> tensor<32x32xi8, #bu>
  func.return %b : tensor<32x32xi8, #bu>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#plain = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 2, order = [0, 1]}>

// CHECK-LABEL:    func.func @unpadded_fallback
// CHECK-NOT:      ptx.ldmatrix
// CHECK-COUNT-16: ptx.ld_shared %{{.*}} : i16
// CHECK-NOT:      ptx.ld_shared
// CHECK-NOT:      ptx.ldmatrix
// CHECK:          func.return
// REMARK:         fallback-attr.mlir:[[# @LINE + 2]]:3: remark: qdot-lower-local-load: rhs operand 32x32xi8 (kWidth 2, fp4Unpacked): scalar ld.shared fallback: the op's fallback attribute asks for it; 32 wavefronts where 16 would do (2-way bank conflicts) per warp{{$}}
func.func @unpadded_fallback(%m: !qgpu.memdesc<32x32xi8, #plain>) -> tensor<32x32xi8, #bu> {
  %b = qgpu.local_load %m {fallback} : !qgpu.memdesc<32x32xi8, #plain> -> tensor<32x32xi8, #bu>
  func.return %b : tensor<32x32xi8, #bu>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#kmajor = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], fp4Padded = true}>

// The same load without the attribute: four fp4 ldmatrix.x4, no ld.shared.
// CHECK-LABEL:    func.func @padded
// CHECK-COUNT-4:  ptx.ldmatrix m8n16 x4 b8x16.b4x16_p64
// CHECK-NOT:      ptx.ld_shared
// CHECK:          func.return
// REMARK:         fallback-attr.mlir:[[# @LINE + 2]]:3: remark: qdot-lower-local-load: rhs operand 32x32xi8 (kWidth 2, fp4Unpacked): 4 × ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64; 16 wavefronts, no bank conflict per warp{{$}}
func.func @padded(%m: !qgpu.memdesc<32x32xi8, #kmajor>) -> tensor<32x32xi8, #bu> {
  %b = qgpu.local_load %m : !qgpu.memdesc<32x32xi8, #kmajor> -> tensor<32x32xi8, #bu>
  func.return %b : tensor<32x32xi8, #bu>
}
