// One case per verifier rule of the ptx dialect; each names the operand and the numbers.
// RUN: qdot-opt %s --split-input-file --verify-diagnostics | filecheck %s

%o = "test.op"() : () -> i32
%r:3 = "ptx.ldmatrix"(%o) <{shape = #ptx<ldmatrix_shape m8n8>, num = 3 : i32, elt = #ptx<ldmatrix_elt b16>}> : (i32) -> (i32, i32, i32)
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.ldmatrix' op num must be 1, 2 or 4, got 3

// -----

// The custom syntax refuses the count where it is written, whatever the number of results bound.
%o = "test.op"() : () -> i32
%r:4 = ptx.ldmatrix m8n8 x3 b16 %o
// CHECK: invalid.mlir:[[# @LINE - 1]]:26: error: num must be 1, 2 or 4, got 3

// -----

// A huge count is refused before any result list is sized from it.
%o = "test.op"() : () -> i32
%r:4 = ptx.ldmatrix m8n8 x4294967300 b16 %o
// CHECK: invalid.mlir:[[# @LINE - 1]]:26: error: num must be 1, 2 or 4, got 4294967300

// -----

%o = "test.op"() : () -> i32
%r:4 = ptx.ldmatrix m8n8 x4 b8 %o
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.ldmatrix' op shape m8n8 takes elt b16, got b8

// -----

%o = "test.op"() : () -> i32
%r:2 = ptx.ldmatrix m16n16 x1 b8 %o
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.ldmatrix' op shape m16n16 requires trans

// -----

%o = "test.op"() : () -> i32
%r:8 = ptx.ldmatrix m16n16 x4 trans b8 %o
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.ldmatrix' op shape m16n16 takes num 1 or 2 (x1, x2), got 4

// -----

%o = "test.op"() : () -> i32
%r:2 = ptx.ldmatrix m16n16 x1 trans b16 %o
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.ldmatrix' op shape m16n16 takes elt b8, b8x16.b4x16_p64 or b8x16.b6x16_p32, got b16

// -----

%o = "test.op"() : () -> i32
%r:4 = ptx.ldmatrix m8n16 x4 trans b8x16.b4x16_p64 %o
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.ldmatrix' op shape m8n16 does not allow trans

// -----

%o = "test.op"() : () -> i32
%r:4 = ptx.ldmatrix m8n16 x4 b8 %o
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.ldmatrix' op shape m8n16 takes elt b8x16.b4x16_p64 or b8x16.b6x16_p32, got b8

// -----

%o = "test.op"() : () -> i32
%r:2 = "ptx.ldmatrix"(%o) <{shape = #ptx<ldmatrix_shape m16n16>, num = 2 : i32, trans, elt = #ptx<ldmatrix_elt b8>}> : (i32) -> (i32, i32)
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.ldmatrix' op m16n16 x2 writes 4 registers, got 2 results

// -----

%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.mma_sync m16n8k32 kind::f8f6f4 satfinite f32.e4m3.e4m3.f32 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op satfinite applies to integer mma only, not kind::f8f6f4

// -----

%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.mma_sync m16n8k16 satfinite f32.bf16.bf16.f32 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op satfinite applies to integer mma only, not bf16 x bf16

// -----

%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.mma_sync m16n8k32 scale_vec::1X f32.e4m3.e4m3.f32.ue8m0 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op scale_vec and the scale type need a block-scaled kind (kind::mxf8f6f4, kind::mxf4, kind::mxf4nvf4)

// -----

%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.mma_sync m16n8k64 f32.e4m3.e4m3.f32 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op e4m3 x e4m3 mma takes shape m16n8k16 or m16n8k32, got m16n8k64

// -----

%a, %c = "test.op"() : () -> (i32, vector<2xf16>)
%d:4 = ptx.mma_sync m16n8k32 f32.e4m3.e5m2.f16 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op e4m3 x e5m2 accumulates as f32.f32 or f16.f16 (d.c), got f32.f16

// -----

%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.mma_sync m16n8k32 f32.e4m3.e2m1.f32 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op e4m3 x e2m1 mma requires kind::f8f6f4 (or a block-scaled kind); only e4m3/e5m2 pairs work without one

// -----

%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.mma_sync m16n8k32 f32.bf16.bf16.f32 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op bf16 mma takes shape m16n8k16, got m16n8k32

// -----

%a, %c = "test.op"() : () -> (i32, vector<2xf16>)
%d:2 = ptx.mma_sync m16n8k16 f16.bf16.bf16.f16 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op bf16 x bf16 accumulates as f32.f32 (d.c), got f16.f16

// -----

%a, %c = "test.op"() : () -> (i32, i32)
%d:4 = ptx.mma_sync m16n8k32 s32.s8.s4.s32 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op integer mma multiplies s8/u8 x s8/u8 or s4/u4 x s4/u4, got s8 x s4

// -----

%a, %c = "test.op"() : () -> (i32, i32)
%d:4 = ptx.mma_sync m16n8k64 s32.s8.s8.s32 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op s8 x s8 mma takes shape m16n8k16 or m16n8k32, got m16n8k64

// -----

%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.mma_sync m16n8k32 f32.s8.s8.f32 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op s8 x s8 accumulates as s32.s32 (d.c), got f32.f32

// -----

%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.mma_sync m16n8k16 f32.f32.f32.f32 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op no mma.sync multiplies f32 x f32

// -----

%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.mma_sync m16n8k32 kind::f8f6f4 scale_vec::1X f32.e4m3.e2m1.f32.ue8m0 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op kind::f8f6f4 is not block-scaled; use kind::mxf8f6f4 for scale_vec

// -----

%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.mma_sync m16n8k16 kind::f8f6f4 f32.e4m3.e2m1.f32 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op kind::f8f6f4 takes shape m16n8k32, got m16n8k16

// -----

%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.mma_sync m16n8k32 kind::f8f6f4 f32.s8.e2m1.f32 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op kind::f8f6f4 takes A type e4m3, e5m2, e3m2, e2m3 or e2m1, got s8

// -----

%a, %c = "test.op"() : () -> (i32, f32)
%d:2 = ptx.mma_sync m16n8k32 kind::f8f6f4 f16.e2m1.e4m3.f32 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op e2m1 x e4m3 accumulates as f32.f32 or f16.f16 (d.c), got f16.f32

// -----

%a, %c, %s, %sel = "test.op"() : () -> (i32, f32, i32, i16)
%d:4 = ptx.mma_sync m16n8k64 kind::mxf4 scale_vec::2X f32.e4m3.e2m1.f32.ue8m0 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%s, %sel, %sel] scale_b[%s, %sel, %sel]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op kind::mxf4 multiplies packed e2m1 x e2m1, got e4m3 x e2m1

// -----

%a, %c, %s, %sel = "test.op"() : () -> (i32, vector<2xf16>, i32, i16)
%d:2 = ptx.mma_sync m16n8k32 kind::mxf8f6f4 scale_vec::1X f16.e4m3.e2m1.f16.ue8m0 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c] scale_a[%s, %sel, %sel] scale_b[%s, %sel, %sel]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op block-scaled mma accumulates in f32 (f32.f32), got f16.f16

// -----

%a, %c, %s, %sel = "test.op"() : () -> (i32, f32, i32, i16)
%d:4 = ptx.mma_sync m16n8k32 kind::mxf8f6f4 scale_vec::2X f32.e4m3.e2m1.f32.ue8m0 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%s, %sel, %sel] scale_b[%s, %sel, %sel]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op kind::mxf8f6f4 takes scale_vec::1X with ue8m0, got scale_vec::2X with ue8m0

// -----

%a, %c, %s, %sel = "test.op"() : () -> (i32, f32, i32, i16)
%d:4 = ptx.mma_sync m16n8k32 kind::mxf8f6f4 scale_vec::1X f32.e4m3.e2m1.f32.ue4m3 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%s, %sel, %sel] scale_b[%s, %sel, %sel]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op kind::mxf8f6f4 takes scale_vec::1X with ue8m0, got scale_vec::1X with ue4m3

// -----

%a, %c, %s, %sel = "test.op"() : () -> (i32, f32, i32, i16)
%d:4 = ptx.mma_sync m16n8k64 kind::mxf4 scale_vec::4X f32.e2m1.e2m1.f32.ue8m0 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%s, %sel, %sel] scale_b[%s, %sel, %sel]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op kind::mxf4 takes scale_vec::2X with ue8m0, got scale_vec::4X with ue8m0

// -----

%a, %c, %s, %sel = "test.op"() : () -> (i32, f32, i32, i16)
%d:4 = ptx.mma_sync m16n8k64 kind::mxf4nvf4 scale_vec::4X f32.e2m1.e2m1.f32.ue8m0 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%s, %sel, %sel] scale_b[%s, %sel, %sel]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op kind::mxf4nvf4 scale_vec::4X with ue8m0 scales is rejected by ptxas 13.0 and has no LLVM 22 intrinsic; use ue4m3 with 4X or ue8m0 with 2X

// -----

%a, %c, %s, %sel = "test.op"() : () -> (i32, f32, i32, i16)
%d:4 = ptx.mma_sync m16n8k64 kind::mxf4nvf4 scale_vec::2X f32.e2m1.e2m1.f32.ue4m3 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%s, %sel, %sel] scale_b[%s, %sel, %sel]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op kind::mxf4nvf4 takes scale_vec::2X with ue8m0 or scale_vec::4X with ue4m3, got scale_vec::2X with ue4m3

// -----

%a, %c, %s, %sel = "test.op"() : () -> (i32, f32, i32, i16)
%d:4 = ptx.mma_sync m16n8k32 kind::mxf8f6f4 f32.e4m3.e2m1.f32.ue8m0 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%s, %sel, %sel] scale_b[%s, %sel, %sel]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op kind::mxf8f6f4 needs scale_vec and a scale type

// -----

%a, %c = "test.op"() : () -> (i32, i32)
%d:4 = ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[%a, %a] B[%a, %a] C[%c, %c, %c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op A takes 4 registers for mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32, got 2

// -----

%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.mma_sync m16n8k16 f32.bf16.bf16.f32 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op C takes 4 registers for mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32, got 2

// -----

%a, %c = "test.op"() : () -> (i32, i32)
%d:4 = "ptx.mma_sync"(%a, %a, %a, %a, %a, %a, %c, %c, %c, %c) <{shape = #ptx<mma_shape m16n8k16>, dType = #ptx<mma_type f32>, aType = #ptx<mma_type bf16>, bType = #ptx<mma_type bf16>, cType = #ptx<mma_type f32>, operandSegmentSizes = array<i32: 4, 2, 4, 0, 0>}> : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> (f32, f32, f32, f32)
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op C registers of a f32 accumulator must be f32, got i32

// -----

%a, %c = "test.op"() : () -> (i32, i32)
%d:4 = "ptx.mma_sync"(%a, %a, %a, %a, %a, %a, %c, %c, %c, %c, %a, %a, %a) <{shape = #ptx<mma_shape m16n8k32>, dType = #ptx<mma_type s32>, aType = #ptx<mma_type s8>, bType = #ptx<mma_type s8>, cType = #ptx<mma_type s32>, operandSegmentSizes = array<i32: 4, 2, 4, 3, 0>}> : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op scale_a operands need a block-scaled kind, got 3

// -----

%a, %c, %s, %sel = "test.op"() : () -> (i32, f32, i32, i16)
%d:4 = ptx.mma_sync m16n8k32 kind::mxf8f6f4 scale_vec::1X f32.e4m3.e2m1.f32.ue8m0 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%s, %sel] scale_b[%s, %sel, %sel]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op scale_a takes 3 operands (data, byte-id, thread-id), got 2

// -----

%a, %c, %s = "test.op"() : () -> (i32, f32, i32)
%d:4 = "ptx.mma_sync"(%a, %a, %a, %a, %a, %a, %c, %c, %c, %c, %s, %s, %s, %s, %s, %s) <{shape = #ptx<mma_shape m16n8k32>, kind = #ptx<mma_kind mxf8f6f4>, dType = #ptx<mma_type f32>, aType = #ptx<mma_type e4m3>, bType = #ptx<mma_type e4m3>, cType = #ptx<mma_type f32>, scaleVec = #ptx<scale_vec "1X">, scaleType = #ptx<scale_type ue8m0>, operandSegmentSizes = array<i32: 4, 2, 4, 3, 3>}> : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32, i32, i32, i32, i32, i32, i32) -> (f32, f32, f32, f32)
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op scale_a byte-id must be i16, got i32

// -----

// Constant selectors out of the ISA's range (ptx.md §4.3): ptxas would not see them (LLVM passes them in
// %rs registers), so the verifier refuses them. 1X reads one scale byte, at byte-id 0 to 3.
%a, %c, %s, %sel = "test.op"() : () -> (i32, f32, i32, i16)
%byte = arith.constant 4 : i16
%d:4 = ptx.mma_sync m16n8k32 kind::mxf8f6f4 scale_vec::1X f32.e4m3.e2m1.f32.ue8m0 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%s, %byte, %sel] scale_b[%s, %sel, %sel]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op scale_a byte-id must be 0, 1, 2 or 3 for scale_vec::1X, got 4

// -----

// 2X reads a byte pair: byte-id 0 or 2.
%a, %c, %s, %sel = "test.op"() : () -> (i32, f32, i32, i16)
%byte = arith.constant 1 : i16
%d:4 = ptx.mma_sync m16n8k64 kind::mxf4 scale_vec::2X f32.e2m1.e2m1.f32.ue8m0 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%s, %sel, %sel] scale_b[%s, %byte, %sel]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op scale_b byte-id must be 0 or 2 for scale_vec::2X, got 1

// -----

// 4X reads the whole register: byte-id 0.
%a, %c, %s, %sel = "test.op"() : () -> (i32, f32, i32, i16)
%byte = arith.constant 2 : i16
%d:4 = ptx.mma_sync m16n8k64 kind::mxf4nvf4 scale_vec::4X f32.e2m1.e2m1.f32.ue4m3 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%s, %byte, %sel] scale_b[%s, %sel, %sel]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op scale_a byte-id must be 0 for scale_vec::4X, got 2

// -----

// thread-id-a picks one of the two lane pairs of a quad.
%a, %c, %s, %sel = "test.op"() : () -> (i32, f32, i32, i16)
%thread = arith.constant 2 : i16
%d:4 = ptx.mma_sync m16n8k32 kind::mxf8f6f4 scale_vec::1X f32.e4m3.e2m1.f32.ue8m0 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%s, %sel, %thread] scale_b[%s, %sel, %sel]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op scale_a thread-id must be 0 or 1, got 2

// -----

// thread-id-b picks one lane of a quad; a negative constant is read as the unsigned 16-bit selector.
%a, %c, %s, %sel = "test.op"() : () -> (i32, f32, i32, i16)
%thread = arith.constant -1 : i16
%d:4 = ptx.mma_sync m16n8k32 kind::mxf8f6f4 scale_vec::1X f32.e4m3.e2m1.f32.ue8m0 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%s, %sel, %sel] scale_b[%s, %sel, %thread]
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.mma_sync' op scale_b thread-id must be 0, 1, 2 or 3, got 65535

// -----

%a, %c = "test.op"() : () -> (i32, f32)
%d:4 = ptx.mma_sync m16n8k32 f32.e4m3.e4m3.e4m3 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
// CHECK: invalid.mlir:[[# @LINE - 1]]:30: error: mma accumulators (dtype, ctype) must be s32, f32 or f16, got 'f32.e4m3.e4m3.e4m3'

// -----

%d, %s = "test.op"() : () -> (i32, i64)
ptx.cp_async ca %d, %s, 12
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.cp_async' op bytes must be 4, 8 or 16, got 12

// -----

%d, %s = "test.op"() : () -> (i32, i64)
ptx.cp_async cg %d, %s, 8
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.cp_async' op cache operator cg requires bytes = 16, got 8

// -----

%d, %s = "test.op"() : () -> (i32, i64)
"ptx.cp_async"(%d, %s) <{cache = #ptx<cache_op cg>, bytes = 16 : i32, l2_prefetch = 32 : i32, operandSegmentSizes = array<i32: 1, 1, 0>}> : (i32, i64) -> ()
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.cp_async' op l2_prefetch must be 64, 128 or 256 (bytes), got 32

// -----

// The custom syntax refuses the size where it is written (it may not even fit the i32 property).
%d, %s = "test.op"() : () -> (i32, i64)
ptx.cp_async cg l2_prefetch 99999999999 %d, %s, 16
// CHECK: invalid.mlir:[[# @LINE - 1]]:29: error: l2_prefetch must be 64, 128 or 256 (bytes), got 99999999999

// -----

ptx.cp_async_wait -1
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.cp_async_wait' op pending must be from 0 to 2147483647 (a wait_group count is a 32-bit integer), got -1

// -----

ptx.bar_sync 16
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.bar_sync' op barrier id must be in 0..15, got 16

// -----

%o = "test.op"() : () -> i32
%v = ptx.ld_shared %o : vector<3xi32>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.ld_shared' op accessed type vector must have 2 or 4 elements (.v2/.v4), got 3

// -----

%o = "test.op"() : () -> i32
%v = ptx.ld_shared %o : vector<4xi64>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.ld_shared' op accessed type vector must be at most 16 bytes, got 32

// -----

%a, %v = "test.op"() : () -> (i64, i1)
ptx.st_global %a, %v : i1
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.st_global' op accessed type must be a scalar i8/i16/i32/i64/f16/bf16/f32/f64 or a vector of 2 or 4 of them, got i1

// -----

%a = "test.op"() : () -> i64
%v = ptx.ld_global %a : vector<2xi1>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.ld_global' op accessed type vector element must be i8, i16, i32, i64, f16, bf16, f32 or f64, got i1

// -----

%v, %i = "test.op"() : () -> (i16, i32)
%s = ptx.shfl_sync idx %v, %i, %i, %i : i16
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.shfl_sync' op value must be i32 or f32, got i16

// -----

%i = "test.op"() : () -> i32
%l = ptx.lop3 %i, %i, %i lut 256
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.lop3' op lut must be in 0..255 (0x00..0xff), got 256

// -----

%f = "test.op"() : () -> f32
%c = ptx.cvt e4m3x2.f32 %f
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.cvt' op cvt e4m3x2.f32 takes 2 operand(s), got 1

// -----

%h = "test.op"() : () -> i32
%c = "ptx.cvt"(%h) <{kind = #ptx<cvt_kind f16x2.e4m3x2>}> : (i32) -> vector<2xf16>
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.cvt' op cvt f16x2.e4m3x2 operand #0 must be i16, got i32

// -----

%h = "test.op"() : () -> f16
%c = ptx.cvt relu f32.f16 %h
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.cvt' op cvt f32.f16 has no relu form

// -----

%h = "test.op"() : () -> i16
%c = "ptx.cvt"(%h) <{kind = #ptx<cvt_kind f16x2.e4m3x2>}> : (i16) -> i32
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.cvt' op cvt f16x2.e4m3x2 result must be vector<2xf16>, got i32

// -----

%h = "test.op"() : () -> vector<2xf16>
%c = ptx.bitcast %h : vector<2xf16> -> i64
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.bitcast' op source has 32 bits but result has 64; bitcast keeps the width

// -----

%h = "test.op"() : () -> i1
%c = ptx.bitcast %h : i1 -> i8
// CHECK: invalid.mlir:[[# @LINE - 1]]:1: error: 'ptx.bitcast' op source must be an integer, float or 1-D vector of them, got i1
