// Every ptx op in custom syntax, printed back, and through the generic form.
// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP

// CHECK-LABEL: func.func @special_regs
// CHECK: ptx.special_reg tid.x
// CHECK: ptx.special_reg ctaid.y
// CHECK: ptx.special_reg laneid
// CHECK-GENERIC: "ptx.special_reg"() <{reg = #ptx<special_reg tid.x>}> : () -> i32
func.func @special_regs() -> (i32, i32, i32) {
  %t = ptx.special_reg tid.x
  %b = ptx.special_reg ctaid.y
  %l = ptx.special_reg laneid
  func.return %t, %b, %l : i32, i32, i32
}

// -----

// CHECK-LABEL: func.func @ldmatrix_forms
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = ptx.ldmatrix m8n8 x4 b16 %[[OFF:.*]]
// CHECK: ptx.ldmatrix m8n8 x2 trans b16 %[[OFF]]
// CHECK: ptx.ldmatrix m16n16 x2 trans b8 %[[OFF]]
// CHECK: ptx.ldmatrix m16n16 x1 trans b8x16.b6x16_p32 %[[OFF]]
// CHECK: ptx.ldmatrix m8n16 x4 b8x16.b4x16_p64 %[[OFF]] {tag = "kept"}
// CHECK-GENERIC: "ptx.ldmatrix"(%{{.*}}) <{shape = #ptx<ldmatrix_shape m8n8>, num = 4 : i32, elt = #ptx<ldmatrix_elt b16>}> : (i32) -> (i32, i32, i32, i32)
// CHECK-GENERIC: "ptx.ldmatrix"(%{{.*}}) <{shape = #ptx<ldmatrix_shape m8n8>, num = 2 : i32, trans, elt = #ptx<ldmatrix_elt b16>}> : (i32) -> (i32, i32)
// CHECK-GENERIC: <{shape = #ptx<ldmatrix_shape m8n16>, num = 4 : i32, elt = #ptx<ldmatrix_elt b8x16.b4x16_p64>}> {tag = "kept"}
func.func @ldmatrix_forms(%off: i32) -> (i32, i32, i32, i32, i32) {
  %a:4 = ptx.ldmatrix m8n8 x4 b16 %off
  %b:2 = ptx.ldmatrix m8n8 x2 trans b16 %off
  %c:4 = ptx.ldmatrix m16n16 x2 trans b8 %off
  %d:2 = ptx.ldmatrix m16n16 x1 trans b8x16.b6x16_p32 %off
  %e:4 = ptx.ldmatrix m8n16 x4 b8x16.b4x16_p64 %off {tag = "kept"}
  func.return %a#0, %b#1, %c#3, %d#1, %e#2 : i32, i32, i32, i32, i32
}

// -----

// CHECK-LABEL: func.func @mma_integer
// CHECK: ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]
// CHECK: ptx.mma_sync m16n8k16 satfinite s32.u8.s8.s32 A[%{{.*}}, %{{.*}}] B[%{{.*}}] C[
// CHECK-GENERIC: "ptx.mma_sync"({{.*}}) <{shape = #ptx<mma_shape m16n8k32>, dType = #ptx<mma_type s32>, aType = #ptx<mma_type s8>, bType = #ptx<mma_type s8>, cType = #ptx<mma_type s32>, operandSegmentSizes = array<i32: 4, 2, 4, 0, 0>}>
func.func @mma_integer(%a: i32, %c: i32) -> (i32, i32) {
  %d:4 = ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
  %e:4 = ptx.mma_sync m16n8k16 satfinite s32.u8.s8.s32 A[%a, %a] B[%a] C[%c, %c, %c, %c]
  func.return %d#0, %e#3 : i32, i32
}

// -----

// CHECK-LABEL: func.func @mma_float
// CHECK: ptx.mma_sync m16n8k16 f32.bf16.bf16.f32 A[
// CHECK: ptx.mma_sync m16n8k32 f16.e4m3.e5m2.f16 A[%{{.*}}] B[%{{.*}}] C[%{{[^,]*}}, %{{[^,]*}}]
// CHECK: ptx.mma_sync m16n8k32 kind::f8f6f4 f32.e4m3.e2m1.f32 A[
func.func @mma_float(%a: i32, %c: f32, %h: vector<2xf16>) -> (f32, vector<2xf16>, f32) {
  %d:4 = ptx.mma_sync m16n8k16 f32.bf16.bf16.f32 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
  %e:2 = ptx.mma_sync m16n8k32 f16.e4m3.e5m2.f16 A[%a, %a, %a, %a] B[%a, %a] C[%h, %h]
  %f:4 = ptx.mma_sync m16n8k32 kind::f8f6f4 f32.e4m3.e2m1.f32 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
  func.return %d#0, %e#1, %f#2 : f32, vector<2xf16>, f32
}

// -----

// CHECK-LABEL: func.func @mma_block_scaled
// CHECK: ptx.mma_sync m16n8k32 kind::mxf8f6f4 scale_vec::1X f32.e4m3.e2m1.f32.ue8m0 A[{{.*}}] B[{{.*}}] C[{{.*}}] scale_a[%[[SA:[^,]*]], %[[SEL:[^,]*]], %[[SEL]]] scale_b[%[[SA]], %[[SEL]], %[[SEL]]]
// CHECK: ptx.mma_sync m16n8k64 kind::mxf4 scale_vec::2X f32.e2m1.e2m1.f32.ue8m0
// CHECK: ptx.mma_sync m16n8k64 kind::mxf4nvf4 scale_vec::4X f32.e2m1.e2m1.f32.ue4m3
// CHECK-GENERIC: scaleVec = #ptx<scale_vec "1X">, scaleType = #ptx<scale_type ue8m0>, operandSegmentSizes = array<i32: 4, 2, 4, 3, 3>
func.func @mma_block_scaled(%a: i32, %c: f32, %sa: i32, %sel: i16) -> (f32, f32, f32) {
  %d:4 = ptx.mma_sync m16n8k32 kind::mxf8f6f4 scale_vec::1X f32.e4m3.e2m1.f32.ue8m0 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%sa, %sel, %sel] scale_b[%sa, %sel, %sel]
  %e:4 = ptx.mma_sync m16n8k64 kind::mxf4 scale_vec::2X f32.e2m1.e2m1.f32.ue8m0 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%sa, %sel, %sel] scale_b[%sa, %sel, %sel]
  %f:4 = ptx.mma_sync m16n8k64 kind::mxf4nvf4 scale_vec::4X f32.e2m1.e2m1.f32.ue4m3 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%sa, %sel, %sel] scale_b[%sa, %sel, %sel]
  func.return %d#0, %e#1, %f#3 : f32, f32, f32
}

// -----

// Constant selectors at the top of their ranges (ptx.md §4.3) verify: byte-id 3 (1X) and 2 (2X), thread-id-a 1,
// thread-id-b 3. (invalid.mlir has the values just past them.)
// CHECK-LABEL: func.func @mma_block_scaled_constant_selectors
// CHECK: scale_a[%sa, %byte3, %thread1] scale_b[%sa, %byte3, %thread3]
// CHECK: scale_a[%sa, %byte2, %thread1] scale_b[%sa, %byte2, %thread3]
func.func @mma_block_scaled_constant_selectors(%a: i32, %c: f32, %sa: i32) -> (f32, f32) {
  %byte3 = arith.constant 3 : i16
  %byte2 = arith.constant 2 : i16
  %thread1 = arith.constant 1 : i16
  %thread3 = arith.constant 3 : i16
  %d:4 = ptx.mma_sync m16n8k32 kind::mxf8f6f4 scale_vec::1X f32.e4m3.e2m1.f32.ue8m0 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%sa, %byte3, %thread1] scale_b[%sa, %byte3, %thread3]
  %e:4 = ptx.mma_sync m16n8k64 kind::mxf4 scale_vec::2X f32.e2m1.e2m1.f32.ue8m0 A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] scale_a[%sa, %byte2, %thread1] scale_b[%sa, %byte2, %thread3]
  func.return %d#0, %e#1 : f32, f32
}

// -----

// CHECK-LABEL: func.func @copies
// CHECK: ptx.cp_async cg %[[DST:.*]], %[[SRC:.*]], 16{{$}}
// CHECK: ptx.cp_async ca %[[DST]], %[[SRC]], 4, %{{.*}}
// CHECK: ptx.cp_async cg l2_prefetch 128 %[[DST]], %[[SRC]], 16, %{{.*}}
// CHECK: ptx.cp_async_commit
// CHECK: ptx.cp_async_wait 1
// CHECK: ptx.bar_sync{{$}}
// CHECK: ptx.bar_sync 3
// CHECK-GENERIC: "ptx.cp_async"(%{{.*}}, %{{.*}}, %{{.*}}) <{cache = #ptx<cache_op ca>, bytes = 4 : i32, operandSegmentSizes = array<i32: 1, 1, 1>}>
// CHECK-GENERIC: "ptx.cp_async"(%{{.*}}, %{{.*}}, %{{.*}}) <{cache = #ptx<cache_op cg>, bytes = 16 : i32, l2_prefetch = 128 : i32, operandSegmentSizes = array<i32: 1, 1, 1>}>
// CHECK-GENERIC: "ptx.cp_async_wait"() <{pending = 1 : i32}> : () -> ()
func.func @copies(%dst: i32, %src: i64, %n: i32) {
  ptx.cp_async cg %dst, %src, 16
  ptx.cp_async ca %dst, %src, 4, %n
  ptx.cp_async cg l2_prefetch 128 %dst, %src, 16, %n
  ptx.cp_async_commit
  ptx.cp_async_wait 1
  ptx.bar_sync
  ptx.bar_sync 3
  func.return
}

// -----

// CHECK-LABEL: func.func @loads_and_stores
// CHECK: %[[V:.*]] = ptx.ld_shared %{{.*}} : vector<4xi32>
// CHECK: ptx.st_shared %{{.*}}, %[[V]] : vector<4xi32>
// CHECK: %[[G:.*]] = ptx.ld_global nc %{{.*}} if %{{.*}} : vector<2xf32>
// CHECK: ptx.ld_global %{{.*}} : i8
// CHECK: ptx.st_global %{{.*}}, %[[G]] if %{{.*}} : vector<2xf32>
// CHECK-GENERIC: "ptx.ld_global"(%{{.*}}, %{{.*}}) <{nc}> : (i64, i1) -> vector<2xf32>
func.func @loads_and_stores(%off: i32, %addr: i64, %p: i1) -> i8 {
  %v = ptx.ld_shared %off : vector<4xi32>
  ptx.st_shared %off, %v : vector<4xi32>
  %g = ptx.ld_global nc %addr if %p : vector<2xf32>
  %b = ptx.ld_global %addr : i8
  ptx.st_global %addr, %g if %p : vector<2xf32>
  func.return %b : i8
}

// -----

// CHECK-LABEL: func.func @register_ops
// CHECK: ptx.shfl_sync bfly %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: ptx.prmt %{{.*}}, %{{.*}}, %{{.*}}
// CHECK: ptx.lop3 %{{.*}}, %{{.*}}, %{{.*}} lut 0xea
// CHECK: ptx.cvt relu f16x2.e4m3x2 %{{.*}}
// CHECK: ptx.cvt e4m3x2.f32 %{{.*}}, %{{.*}}
// CHECK: ptx.cvt f16x2.e2m1x2 %{{.*}}
// CHECK: ptx.cvt f32.bf16 %{{.*}}
// CHECK: ptx.fma_rn_bf16x2 %{{.*}}, %{{.*}}, %{{.*}}
// CHECK: ptx.mul_rn_bf16x2 %{{.*}}, %{{.*}}
// CHECK: ptx.bitcast %{{.*}} : vector<2xf16> -> i32
// CHECK-GENERIC: "ptx.lop3"(%{{.*}}, %{{.*}}, %{{.*}}) <{lut = 234 : i32}> : (i32, i32, i32) -> i32
// CHECK-GENERIC: "ptx.cvt"(%{{.*}}) <{kind = #ptx<cvt_kind f16x2.e4m3x2>, relu}> : (i16) -> vector<2xf16>
// CHECK-GENERIC: "ptx.bitcast"(%{{.*}}) : (vector<2xf16>) -> i32
func.func @register_ops(%f: f32, %i: i32, %h: i16, %b: i8, %bf: bf16, %x: vector<2xbf16>) {
  %s = ptx.shfl_sync bfly %f, %i, %i, %i : f32
  %p = ptx.prmt %i, %i, %i
  %l = ptx.lop3 %i, %i, %i lut 0xEA
  %c1 = ptx.cvt relu f16x2.e4m3x2 %h
  %c2 = ptx.cvt e4m3x2.f32 %f, %f
  %c3 = ptx.cvt f16x2.e2m1x2 %b
  %c4 = ptx.cvt f32.bf16 %bf
  %fm = ptx.fma_rn_bf16x2 %x, %x, %x
  %mu = ptx.mul_rn_bf16x2 %x, %x
  %bits = ptx.bitcast %c1 : vector<2xf16> -> i32
  "test.op"(%s, %p, %l, %c1, %c2, %c3, %c4, %fm, %mu, %bits) : (f32, i32, i32, vector<2xf16>, i16, vector<2xf16>, f32, vector<2xbf16>, vector<2xbf16>, i32) -> ()
  func.return
}
