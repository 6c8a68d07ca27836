// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm{arch=sm_90}' | filecheck %s
// A splat tensor constant becomes one register word of its codes, in every element type a tensor
// holds: fp8, fp6 and fp4 were an internal error ("no splat encoding"). Four 8-bit codes a word:
// e4m3 2.5 is 0x42, so 0x42424242; e5m2 -3.0 is 0xC2; e2m3 1.125 is 0x09 (fp6 in a byte). Two bf16
// codes a word: 1.005859375 (between 1.0 and 1.0078125, nearer the second) is 0x3F81.

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @e4m3(%q: !qdot.ptr<f8E4M3FN>, %m: index, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = qdot.make_desc %q, [%m, %n], [%n, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<4x32xf8E4M3FN>
  %t = arith.constant dense<2.5> : tensor<4x32xf8E4M3FN, #bl>
  qdot.store %e[%c0, %c0], %t : !qdot.desc<4x32xf8E4M3FN>, tensor<4x32xf8E4M3FN, #bl>
  func.return
}
// CHECK-LABEL: func.func @e4m3
// CHECK:       arith.constant 1111638594 : i32

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @e5m2(%q: !qdot.ptr<f8E5M2>, %m: index, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = qdot.make_desc %q, [%m, %n], [%n, %c1] : !qdot.ptr<f8E5M2> -> !qdot.desc<4x32xf8E5M2>
  %t = arith.constant dense<-3.0> : tensor<4x32xf8E5M2, #bl>
  qdot.store %e[%c0, %c0], %t : !qdot.desc<4x32xf8E5M2>, tensor<4x32xf8E5M2, #bl>
  func.return
}
// CHECK-LABEL: func.func @e5m2
// CHECK:       arith.constant -1027423550 : i32

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @e2m3(%q: !qdot.ptr<f6E2M3FN>, %m: index, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = qdot.make_desc %q, [%m, %n], [%n, %c1] : !qdot.ptr<f6E2M3FN> -> !qdot.desc<4x32xf6E2M3FN>
  %t = arith.constant dense<1.125> : tensor<4x32xf6E2M3FN, #bl>
  qdot.store %e[%c0, %c0], %t : !qdot.desc<4x32xf6E2M3FN>, tensor<4x32xf6E2M3FN, #bl>
  func.return
}
// CHECK-LABEL: func.func @e2m3
// CHECK:       arith.constant 151587081 : i32

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @bf16(%q: !qdot.ptr<bf16>, %m: index, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = qdot.make_desc %q, [%m, %n], [%n, %c1] : !qdot.ptr<bf16> -> !qdot.desc<4x32xbf16>
  %t = arith.constant dense<1.005859375> : tensor<4x32xbf16, #bl>
  qdot.store %e[%c0, %c0], %t : !qdot.desc<4x32xbf16>, tensor<4x32xbf16, #bl>
  func.return
}
// CHECK-LABEL: func.func @bf16
// CHECK:       arith.constant 1065435009 : i32
