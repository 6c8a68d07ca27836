// One case per verifier rule of ptx.wgmma, ptx.wgmma_wait, ptx.pack and ptx.unpack; each names the
// operand and the numbers.
// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s

// N must be a multiple of 8.
%a, %c = "test.op"() : () -> (i32, f32)
%d:6 = "ptx.wgmma"(%a, %a, %c, %c, %c, %c, %c, %c) <{n = 12 : i32, aType = #ptx<mma_type bf16>, bType = #ptx<mma_type bf16>, aSwizzle = 128 : i32, aLbo = 16 : i32, aSbo = 1024 : i32, bSwizzle = 128 : i32, bLbo = 16 : i32, bSbo = 1024 : i32}> : (i32, i32, f32, f32, f32, f32, f32, f32) -> (f32, f32, f32, f32, f32, f32)
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.wgmma' op wgmma N must be a multiple of 8 in 8..256, got 12

// -----

// N at most 256 (the shape is checked before the accumulator count).
%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = "ptx.wgmma"(%a, %a, %c, %c, %c, %c) <{n = 264 : i32, aType = #ptx<mma_type bf16>, bType = #ptx<mma_type bf16>, aSwizzle = 128 : i32, aLbo = 16 : i32, aSbo = 1024 : i32, bSwizzle = 128 : i32, bLbo = 16 : i32, bSbo = 1024 : i32}> : (i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.wgmma' op wgmma N must be a multiple of 8 in 8..256, got 264

// -----

// The custom syntax refuses N in the shape, before the accumulator list is sized from it.
%a, %c = "test.op"() : () -> (i32, f32)
%d:6 = ptx.wgmma m64n12k16 f32.bf16.bf16 A[%a] B[%a] C[%c, %c, %c, %c, %c, %c] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:18: error: wgmma N must be a multiple of 8 in 8..256, got 12 in 'm64n12k16'

// -----

// A huge N with no C operands: refused before N/2 results are built.
%a = "test.op"() : () -> i32
%d = ptx.wgmma m64n99999999999k16 f32.bf16.bf16 A[%a] B[%a] C[] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:16: error: wgmma N must be a multiple of 8 in 8..256, got 99999999999 in 'm64n99999999999k16'

// -----

// m64n8: 64·8 f32 over 128 threads = 4 accumulators, not 2.
%a, %c = "test.op"() : () -> (i32, f32)
%d:2 = ptx.wgmma m64n8k16 f32.bf16.bf16 A[%a] B[%a] C[%c, %c] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.wgmma' op m64n8 takes 4 f32 accumulators (C, or none for D = A·B, and D), got 2 and 2

// -----

// The results must match C too (only the generic form can write them apart).
%a, %c = "test.op"() : () -> (i32, f32)
%d:2 = "ptx.wgmma"(%a, %a, %c, %c, %c, %c) <{n = 8 : i32, aType = #ptx<mma_type bf16>, bType = #ptx<mma_type bf16>, aSwizzle = 128 : i32, aLbo = 16 : i32, aSbo = 1024 : i32, bSwizzle = 128 : i32, bLbo = 16 : i32, bSbo = 1024 : i32}> : (i32, i32, f32, f32, f32, f32) -> (f32, f32)
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.wgmma' op m64n8 takes 4 f32 accumulators (C, or none for D = A·B, and D), got 4 and 2

// -----

// Without C the results still number N / 2 (only the generic form can write them apart).
%a = "test.op"() : () -> i32
%d:2 = "ptx.wgmma"(%a, %a) <{n = 8 : i32, aType = #ptx<mma_type s8>, bType = #ptx<mma_type s8>, aSwizzle = 128 : i32, aLbo = 16 : i32, aSbo = 1024 : i32, bSwizzle = 128 : i32, bLbo = 16 : i32, bSbo = 1024 : i32}> : (i32, i32) -> (i32, i32)
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.wgmma' op m64n8 takes 4 s32 accumulators (C, or none for D = A·B, and D), got 0 and 2

// -----

// f32 operands are a different wgmma (tf32), not emitted.
%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.wgmma m64n8k16 f32.f32.f32 A[%a] B[%a] C[%c, %c, %c, %c] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.wgmma' op wgmma A type must be one of bf16, f16, e4m3, e5m2, s8, got f32

// -----

%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.wgmma m64n8k16 f32.bf16.e2m1 A[%a] B[%a] C[%c, %c, %c, %c] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.wgmma' op wgmma B type must be one of bf16, f16, e4m3, e5m2, s8, got e2m1

// -----

// A 16-bit A with an 8-bit B.
%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.wgmma m64n8k16 f32.bf16.e4m3 A[%a] B[%a] C[%c, %c, %c, %c] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.wgmma' op wgmma A and B types must match (or both be fp8), got bf16 and e4m3

// -----

// Mixed A/B types: both bf16 or both f16 (only the two fp8 types mix).
%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.wgmma m64n8k16 f32.bf16.f16 A[%a] B[%a] C[%c, %c, %c, %c] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.wgmma' op wgmma A and B types must match (or both be fp8), got bf16 and f16

// -----

// s8 accumulates in s32: f32 accumulators are another instruction.
%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.wgmma m64n8k32 f32.s8.s8 A[%a] B[%a] C[%c, %c, %c, %c] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:27: error: expected <accumulator type>.<a type>.<b type> (f32.bf16.bf16, s32.s8.s8, …)

// -----

// The generic form can give an s8 wgmma f32 accumulators; the verifier names the type.
%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = "ptx.wgmma"(%a, %a, %c, %c, %c, %c) <{n = 8 : i32, aType = #ptx<mma_type s8>, bType = #ptx<mma_type s8>, aSwizzle = 128 : i32, aLbo = 16 : i32, aSbo = 1024 : i32, bSwizzle = 128 : i32, bLbo = 16 : i32, bSbo = 1024 : i32}> : (i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.wgmma' op a wgmma on s8 operands accumulates in s32, got a f32 accumulator

// -----

// A swizzle the descriptor has no mode for.
%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.wgmma m64n8k16 f32.bf16.bf16 A[%a] B[%a] C[%c, %c, %c, %c] desc_a<swizzle = 16, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.wgmma' op desc_a: swizzle must be 0, 32, 64 or 128 bytes, got 16

// -----

// The descriptor stores lbo / 16.
%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.wgmma m64n8k16 f32.bf16.bf16 A[%a] B[%a] C[%c, %c, %c, %c] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 8, sbo = 1024>
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.wgmma' op desc_b: lbo must be a multiple of 16 below 2^18 bytes, got 8

// -----

// sbo has 14 bits of 16-byte units: 2^18 bytes is one too many.
%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.wgmma m64n8k16 f32.bf16.bf16 A[%a] B[%a] C[%c, %c, %c, %c] desc_a<swizzle = 128, lbo = 16, sbo = 262144> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.wgmma' op desc_a: sbo must be a multiple of 16 below 2^18 bytes, got 262144

// -----

// One instruction reads 32 bytes of each row: k16 of a 16-bit type, k32 of an 8-bit one.
%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.wgmma m64n8k32 f32.bf16.bf16 A[%a] B[%a] C[%c, %c, %c, %c] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:27: error: a wgmma on bf16 operands is k16, got 'm64n8k32'

// -----

%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.wgmma m64n8k16 f32.e4m3.e4m3 A[%a] B[%a] C[%c, %c, %c, %c] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:27: error: a wgmma on e4m3 operands is k32, got 'm64n8k16'

// -----

%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.wgmma m64n8k8 f32.bf16.bf16 A[%a] B[%a] C[%c, %c, %c, %c] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:18: error: expected a wgmma shape m64nNk16 or m64nNk32, got 'm64n8k8'

// -----

// wgmma.wait_group counts pending groups: never negative.
ptx.wgmma_wait -1
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.wgmma_wait' op pending must be from 0 to 2147483647 (a wait_group count is a 32-bit integer), got -1

// -----

%x = "test.op"() : () -> i32
%v = ptx.pack %x, %x, %x : i32, i32, i32 -> vector<3xi32>
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.pack' op pack takes 2 or 4 registers, got 3

// -----

%h = "test.op"() : () -> f16
%v = ptx.pack %h, %h : f16, f16 -> vector<2xi32>
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.pack' op every part must be a 32-bit register, got f16

// -----

%x = "test.op"() : () -> i32
%v = "ptx.pack"(%x, %x, %x, %x) : (i32, i32, i32, i32) -> vector<2xi32>
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.pack' op result must be vector<4xi32>, got vector<2xi32>

// -----

%v = "test.op"() : () -> vector<4xi32>
%a, %b = "ptx.unpack"(%v) : (vector<4xi32>) -> (i32, i32)
// CHECK: wgmma-invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.unpack' op unpack of vector<4xi32> gives 4 registers, got 2
