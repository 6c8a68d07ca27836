// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP
// The agx dialect's types and ops print as they parse, custom and generic.

// Fragment types: unplaced, and placed in a register pair.
// CHECK-LABEL: func.func @types
// CHECK-SAME:  !agx.frag<fp16>, %{{.*}}: !agx.frag<fp32, r94>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "types"
// CHECK-GENERIC-SAME:  (!agx.frag<fp16>, !agx.frag<fp32, r94>) -> ()
func.func @types(%a: !agx.frag<fp16>, %b: !agx.frag<fp32, r94>) {
  func.return
}

// -----

// A plain load and a dequantizing load, each with a scoreboard slot.
// CHECK-LABEL: func.func @loads
// CHECK:       agx.load_frag lhs %{{.*}}[8, 0] slot 1 : tensor<16x16xf16> -> !agx.frag<fp16, r0>
// CHECK:       agx.load_frag acc %{{.*}}[0, 8] : tensor<16x16xf32> -> !agx.frag<fp32>
// CHECK:       agx.dequant_frag rhs %{{.*}} scale %{{.*}}[8, 0] e2m1 slot 5 : tensor<16x16xi8>, tensor<16x1xf8E8M0FNU> -> !agx.frag<fp16>
// CHECK:       agx.dequant_frag lhs %{{.*}}[0, 0] e2m1 k_pack = false : tensor<8x32xi8> -> !agx.frag<fp32>
// CHECK:       agx.dequant_frag lhs %{{.*}}[0, 248] q4_K : tensor<8x1x!qdot.block<q4_K>> -> !agx.frag<fp16>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "loads"
// CHECK-GENERIC:       "agx.load_frag"(%{{.*}}) <{operand = "lhs", row = #builtin.int<8>, col = #builtin.int<0>, slot = #builtin.int<1>}> : (tensor<16x16xf16>) -> !agx.frag<fp16, r0>
// CHECK-GENERIC:       "agx.dequant_frag"(%{{.*}}, %{{.*}}) <{operand = "rhs", row = #builtin.int<8>, col = #builtin.int<0>, format = #qdot<format e2m1>, k_pack = true, slot = #builtin.int<5>}>
func.func @loads(%x: tensor<16x16xf16>, %c: tensor<16x16xf32>, %w: tensor<16x16xi8>, %s: tensor<16x1xf8E8M0FNU>,
                 %p: tensor<8x32xi8>, %q: tensor<8x1x!qdot.block<q4_K>>) {
  %0 = agx.load_frag lhs %x[8, 0] slot 1 : tensor<16x16xf16> -> !agx.frag<fp16, r0>
  %1 = agx.load_frag acc %c[0, 8] : tensor<16x16xf32> -> !agx.frag<fp32>
  %2 = agx.dequant_frag rhs %w scale %s[8, 0] e2m1 slot 5 : tensor<16x16xi8>, tensor<16x1xf8E8M0FNU> -> !agx.frag<fp16>
  %3 = agx.dequant_frag lhs %p[0, 0] e2m1 k_pack = false : tensor<8x32xi8> -> !agx.frag<fp32>
  %4 = agx.dequant_frag lhs %q[0, 248] q4_K : tensor<8x1x!qdot.block<q4_K>> -> !agx.frag<fp16>
  "test.op"(%0, %1, %2, %3, %4) : (!agx.frag<fp16, r0>, !agx.frag<fp32>, !agx.frag<fp16>, !agx.frag<fp32>, !agx.frag<fp16>) -> ()
  func.return
}

// -----

// The accumulate form with every hint and a wait list, and the multiply form.
// CHECK-LABEL: func.func @mma
// CHECK:       agx.mma8 %{{.*}} discard, %{{.*}} cache, %{{.*}} discard wait [0, 5] d_cache : !agx.frag<fp16, r0>, !agx.frag<fp16, r2>, !agx.frag<fp32, r8> -> !agx.frag<fp32, r8>
// CHECK:       agx.mma8 %{{.*}}, %{{.*}}, zero : !agx.frag<fp32>, !agx.frag<fp16> -> !agx.frag<fp32>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "mma"
// CHECK-GENERIC:       "agx.mma8"(%{{.*}}, %{{.*}}, %{{.*}}) <{a_hint = "discard", b_hint = "cache", c_hint = "discard", wait = array<i64: 0, 5>, d_cache}>
// CHECK-GENERIC:       "agx.mma8"(%{{.*}}, %{{.*}}) : (!agx.frag<fp32>, !agx.frag<fp16>) -> !agx.frag<fp32>
func.func @mma(%a: !agx.frag<fp16, r0>, %b: !agx.frag<fp16, r2>, %c: !agx.frag<fp32, r8>, %e: !agx.frag<fp32>, %f: !agx.frag<fp16>) {
  %d = agx.mma8 %a discard, %b cache, %c discard wait [0, 5] d_cache : !agx.frag<fp16, r0>, !agx.frag<fp16, r2>, !agx.frag<fp32, r8> -> !agx.frag<fp32, r8>
  %g = agx.mma8 %e, %f, zero : !agx.frag<fp32>, !agx.frag<fp16> -> !agx.frag<fp32>
  "test.op"(%d, %g) : (!agx.frag<fp32, r8>, !agx.frag<fp32>) -> ()
  func.return
}

// -----

// The result tile: fragments row-major by 8x8 block.
// CHECK-LABEL: func.func @store
// CHECK:       agx.store_tile %{{.*}}, %{{.*}} : !agx.frag<fp32, r0>, !agx.frag<fp32> -> tensor<8x16xf32>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "store"
// CHECK-GENERIC:       "agx.store_tile"(%{{.*}}, %{{.*}}) : (!agx.frag<fp32, r0>, !agx.frag<fp32>) -> tensor<8x16xf32>
func.func @store(%a: !agx.frag<fp32, r0>, %b: !agx.frag<fp32>) -> tensor<8x16xf32> {
  %r = agx.store_tile %a, %b : !agx.frag<fp32, r0>, !agx.frag<fp32> -> tensor<8x16xf32>
  func.return %r : tensor<8x16xf32>
}
