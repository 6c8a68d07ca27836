// RUN: qdot-opt %s --split-input-file -p 'agx-hints-and-waits{hints=true waits=needed}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'agx-hints-and-waits{hints=false}' | filecheck %s --check-prefix=NOHINTS
// RUN: qdot-opt %s --split-input-file -p 'agx-hints-and-waits' | filecheck %s --check-prefix=NOHINTS
// One decision per case: which register-cache hints agx-hints-and-waits puts on an MMA with
// hints=true; hints=false, the default, puts none (which hint bit is which is assumption A4).

// A fragment read again later is cached and its last read discards it: %a and %b are each
// read twice (cache, then discard), %b1 and %a2 once (discard). Every C is read once
// (discard). D is cached when a later MMA reads it as C; the final D (only stored) is not.
// With hints=false (and by default) the same MMAs carry no hint and no d_cache, only waits.
// CHECK-LABEL: func.func @reuse
// CHECK:       %[[D0:.*]] = agx.mma8 %[[A:.*]] cache, %[[B:.*]] cache, %{{.*}} discard {{.*}}d_cache :
// CHECK:       %[[D1:.*]] = agx.mma8 %[[A]] discard, %{{.*}} discard, %[[D0]] discard {{.*}}d_cache :
// CHECK:       %[[D2:.*]] = agx.mma8 %{{.*}} discard, %[[B]] discard, %[[D1]] discard wait [4] : {{.*}} -> !agx.frag<fp32>
// NOHINTS-LABEL:  func.func @reuse
// NOHINTS-COUNT-3: agx.mma8 %{{[0-9a-z]+}}, %{{[0-9a-z]+}}, %{{[0-9a-z]+}}{{( wait \[[0-9, ]+\])?}} : !agx.frag<fp16>
// NOHINTS-NOT:     cache
// NOHINTS-NOT:     discard
func.func @reuse(%x: tensor<8x24xf16>, %w: tensor<24x8xf16>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c = agx.load_frag acc %acc[0, 0] : tensor<8x8xf32> -> !agx.frag<fp32>
  %a = agx.load_frag lhs %x[0, 0] : tensor<8x24xf16> -> !agx.frag<fp16>
  %b = agx.load_frag rhs %w[0, 0] : tensor<24x8xf16> -> !agx.frag<fp16>
  %b1 = agx.load_frag rhs %w[8, 0] : tensor<24x8xf16> -> !agx.frag<fp16>
  %a2 = agx.load_frag lhs %x[0, 16] : tensor<8x24xf16> -> !agx.frag<fp16>
  %d0 = agx.mma8 %a, %b, %c : !agx.frag<fp16>, !agx.frag<fp16>, !agx.frag<fp32> -> !agx.frag<fp32>
  %d1 = agx.mma8 %a, %b1, %d0 : !agx.frag<fp16>, !agx.frag<fp16>, !agx.frag<fp32> -> !agx.frag<fp32>
  %d2 = agx.mma8 %a2, %b, %d1 : !agx.frag<fp16>, !agx.frag<fp16>, !agx.frag<fp32> -> !agx.frag<fp32>
  %r = agx.store_tile %d2 : !agx.frag<fp32> -> tensor<8x8xf32>
  func.return %r : tensor<8x8xf32>
}

// -----

// The multiply form has no C, so no C hint.
// CHECK-LABEL: func.func @multiply
// CHECK:       agx.mma8 %{{.*}} discard, %{{.*}} discard, zero wait [0, 1] :
func.func @multiply(%x: tensor<8x8xf16>, %w: tensor<8x8xf16>) -> tensor<8x8xf32> {
  %a = agx.load_frag lhs %x[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16>
  %b = agx.load_frag rhs %w[0, 0] : tensor<8x8xf16> -> !agx.frag<fp16>
  %d = agx.mma8 %a, %b, zero : !agx.frag<fp16>, !agx.frag<fp16> -> !agx.frag<fp32>
  %r = agx.store_tile %d : !agx.frag<fp32> -> tensor<8x8xf32>
  func.return %r : tensor<8x8xf32>
}
