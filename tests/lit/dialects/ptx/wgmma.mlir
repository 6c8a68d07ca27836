// The sm_90a warpgroup ops (ptx.wgmma and its fences and groups) and ptx.pack, in custom
// syntax, printed back, and through the generic form.
// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP

// One m64n8k16: 4 accumulators per thread, A and B byte offsets, the two descriptors'
// layout fields spelled out; the discardable attribute survives.
// CHECK-LABEL: func.func @wgmma_m64n8
// CHECK-SAME:  (%[[A:[^:]*]]: i32, %[[B:[^:]*]]: i32, %[[C:[^:]*]]: f32)
// CHECK-NEXT:  ptx.fence_proxy_async{{$}}
// CHECK-NEXT:  ptx.wgmma_fence{{$}}
// CHECK-NEXT:  %[[D0:[^,]*]], %{{[^,]*}}, %{{[^,]*}}, %[[D3:[^ ]*]] = ptx.wgmma m64n8k16 f32.bf16.bf16 A[%[[A]]] B[%[[B]]] C[%[[C]], %[[C]], %[[C]], %[[C]]] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 64, lbo = 16, sbo = 512> {tag = 1 : i64}
// CHECK-NEXT:  ptx.wgmma_commit{{$}}
// CHECK-NEXT:  ptx.wgmma_wait 1{{$}}
// CHECK-NEXT:  ptx.wgmma_wait 0{{$}}
// CHECK-NEXT:  func.return %[[D0]], %[[D3]] : f32, f32
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "wgmma_m64n8"
// CHECK-GENERIC: "ptx.fence_proxy_async"() : () -> ()
// CHECK-GENERIC: "ptx.wgmma_fence"() : () -> ()
// CHECK-GENERIC: "ptx.wgmma"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{n = 8 : i32, aType = #ptx<mma_type bf16>, bType = #ptx<mma_type bf16>, aSwizzle = 128 : i32, aLbo = 16 : i32, aSbo = 1024 : i32, bSwizzle = 64 : i32, bLbo = 16 : i32, bSbo = 512 : i32}> {tag = 1 : i64} : (i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
// CHECK-GENERIC: "ptx.wgmma_commit"() : () -> ()
// CHECK-GENERIC: "ptx.wgmma_wait"() <{pending = 1 : i32}> : () -> ()
func.func @wgmma_m64n8(%a: i32, %b: i32, %c: f32) -> (f32, f32) {
  ptx.fence_proxy_async
  ptx.wgmma_fence
  %d:4 = ptx.wgmma m64n8k16 f32.bf16.bf16 A[%a] B[%b] C[%c, %c, %c, %c] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 64, lbo = 16, sbo = 512> {tag = 1}
  ptx.wgmma_commit
  ptx.wgmma_wait 1
  ptx.wgmma_wait 0
  func.return %d#0, %d#3 : f32, f32
}

// -----

// f16 operands, a wider N (m64n16: 8 accumulators), a chained accumulator, and the 32-byte
// and unswizzled descriptor modes.
// CHECK-LABEL: func.func @wgmma_f16_chain
// CHECK:       %[[D:[^,]*]], %[[D1:[^,]*]], %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[D7:[^ ]*]] = ptx.wgmma m64n16k16 f32.f16.f16 A[%{{.*}}] B[%{{.*}}] C[{{.*}}] desc_a<swizzle = 32, lbo = 16, sbo = 256> desc_b<swizzle = 0, lbo = 128, sbo = 256>{{$}}
// CHECK-NEXT:  %{{.*}} = ptx.wgmma m64n16k16 f32.f16.f16 A[%{{.*}}] B[%{{.*}}] C[%[[D]], %[[D1]], %{{.*}}, %[[D7]]] desc_a<swizzle = 32, lbo = 16, sbo = 256> desc_b<swizzle = 0, lbo = 128, sbo = 256>{{$}}
// CHECK-GENERIC: <{n = 16 : i32, aType = #ptx<mma_type f16>, bType = #ptx<mma_type f16>, aSwizzle = 32 : i32, aLbo = 16 : i32, aSbo = 256 : i32, bSwizzle = 0 : i32, bLbo = 128 : i32, bSbo = 256 : i32}>
func.func @wgmma_f16_chain(%a: i32, %b: i32, %c: f32) -> f32 {
  %d:8 = ptx.wgmma m64n16k16 f32.f16.f16 A[%a] B[%b] C[%c, %c, %c, %c, %c, %c, %c, %c] desc_a<swizzle = 32, lbo = 16, sbo = 256> desc_b<swizzle = 0, lbo = 128, sbo = 256>
  %e:8 = ptx.wgmma m64n16k16 f32.f16.f16 A[%a] B[%b] C[%d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7] desc_a<swizzle = 32, lbo = 16, sbo = 256> desc_b<swizzle = 0, lbo = 128, sbo = 256>
  func.return %e#7 : f32
}

// -----

// ptx.pack gathers four i32 or two 32-bit vector registers into the vector a
// st.shared.v4 / .v2 stores.
// CHECK-LABEL: func.func @pack
// CHECK:       %[[V:.*]] = ptx.pack %[[X:[^,]*]], %[[X]], %[[X]], %[[X]] : i32, i32, i32, i32 -> vector<4xi32>
// CHECK-NEXT:  ptx.st_shared %{{.*}}, %[[V]] : vector<4xi32>
// CHECK-NEXT:  %[[W:.*]] = ptx.pack %[[H:[^,]*]], %[[H]] : vector<2xbf16>, vector<2xbf16> -> vector<2xi32>
// CHECK-NEXT:  ptx.st_shared %{{.*}}, %[[W]] : vector<2xi32>
// CHECK-GENERIC: "ptx.pack"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i32, i32, i32) -> vector<4xi32>
// CHECK-GENERIC: "ptx.pack"(%{{.*}}, %{{.*}}) : (vector<2xbf16>, vector<2xbf16>) -> vector<2xi32>
func.func @pack(%off: i32, %x: i32, %h: vector<2xbf16>) {
  %v = ptx.pack %x, %x, %x, %x : i32, i32, i32, i32 -> vector<4xi32>
  ptx.st_shared %off, %v : vector<4xi32>
  %w = ptx.pack %h, %h : vector<2xbf16>, vector<2xbf16> -> vector<2xi32>
  ptx.st_shared %off, %w : vector<2xi32>
  func.return
}

// -----

// ptx.unpack, its inverse: the registers of a vector load (ld.shared.v4 names them itself).
// CHECK-LABEL: func.func @unpack
// CHECK:       %[[V:.*]] = ptx.ld_shared %{{.*}} : vector<4xi32>
// CHECK-NEXT:  %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = ptx.unpack %[[V]] : vector<4xi32> -> i32, i32, i32, i32
// CHECK-GENERIC: "ptx.unpack"(%{{.*}}) : (vector<4xi32>) -> (i32, i32, i32, i32)
func.func @unpack(%off: i32) -> i32 {
  %v = ptx.ld_shared %off : vector<4xi32>
  %a, %b, %c, %d = ptx.unpack %v : vector<4xi32> -> i32, i32, i32, i32
  func.return %d : i32
}

// -----

// The 8-bit forms read the same 32 bytes of each row, k32 of an 8-bit type: e4m3 (and e5m2,
// which mixes with it) accumulate in f32, s8 in s32.
// CHECK-LABEL: func.func @wgmma_8bit
// CHECK:       ptx.wgmma m64n8k32 f32.e4m3.e5m2 A[%{{.*}}] B[%{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
// CHECK:       ptx.wgmma m64n8k32 s32.s8.s8 A[%{{.*}}] B[%{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] desc_a<swizzle = 0, lbo = 128, sbo = 256> desc_b<swizzle = 0, lbo = 128, sbo = 256>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "wgmma_8bit"
// CHECK-GENERIC: "ptx.wgmma"({{.*}}) <{n = 8 : i32, aType = #ptx<mma_type e4m3>, bType = #ptx<mma_type e5m2>{{.*}} : (i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
// CHECK-GENERIC: "ptx.wgmma"({{.*}}) <{n = 8 : i32, aType = #ptx<mma_type s8>, bType = #ptx<mma_type s8>{{.*}} : (i32, i32, i32, i32, i32, i32) -> (i32, i32, i32, i32)
func.func @wgmma_8bit(%a: i32, %b: i32, %c: f32, %ci: i32) -> (f32, i32) {
  ptx.wgmma_fence
  %d:4 = ptx.wgmma m64n8k32 f32.e4m3.e5m2 A[%a] B[%b] C[%c, %c, %c, %c] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
  %e:4 = ptx.wgmma m64n8k32 s32.s8.s8 A[%a] B[%b] C[%ci, %ci, %ci, %ci] desc_a<swizzle = 0, lbo = 128, sbo = 256> desc_b<swizzle = 0, lbo = 128, sbo = 256>
  ptx.wgmma_commit
  ptx.wgmma_wait 0
  func.return %d#0, %e#0 : f32, i32
}

// -----

// Without C operands it is D = A·B (scale-d 0): a fresh partial product; the result count
// comes from N.
// CHECK-LABEL: func.func @wgmma_fresh
// CHECK:       %{{.*}}, %{{.*}}, %{{.*}}, %[[D3:.*]] = ptx.wgmma m64n8k32 s32.s8.s8 A[%{{.*}}] B[%{{.*}}] C[] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "wgmma_fresh"
// CHECK-GENERIC: "ptx.wgmma"(%{{[^,]*}}, %{{[^,]*}}) <{n = 8 : i32, aType = #ptx<mma_type s8>{{.*}} : (i32, i32) -> (i32, i32, i32, i32)
func.func @wgmma_fresh(%a: i32, %b: i32) -> i32 {
  ptx.wgmma_fence
  %d:4 = ptx.wgmma m64n8k32 s32.s8.s8 A[%a] B[%b] C[] desc_a<swizzle = 128, lbo = 16, sbo = 1024> desc_b<swizzle = 128, lbo = 16, sbo = 1024>
  ptx.wgmma_commit
  ptx.wgmma_wait 0
  func.return %d#3 : i32
}
