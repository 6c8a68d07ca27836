// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' | filecheck %s
// The table paths of qgpu.upcast (passes/support/upcasts.py), taken where a destination
// register's values all come from one source register in order, instead of decoding each value
// through f32: packed e2m1 → s8 (promote-int8) and → e4m3 (promote-fp8) by a signed 16-entry
// prmt table (reference/ptx.md §6.3 R1), and e4m3 → bf16 (dequant-bf16's e4m3 side) by placing
// the e4m3 bits in a bf16 and multiplying by 2^120 (§6.3 R2). Each is a few integer
// instructions per register where the generic path is ~10 per value plus a conversion.

#raw = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#s8 = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>

// e2m1 → s8, the value × 2 (S8_FACTOR; 6 → 12 fits a byte): four values (one 16-bit half) per
// destination register in three prmt. The magnitude x & 0x7777 (30583) indexes the positive
// table (0x03020100, 0x0C080604: 0, 1, 2, 3, 4, 6, 8, 12) and the negative one (0xFDFEFF00,
// 0xF4F8FAFC: -0, -1, ..., -12); the signs (x & 0x8888) >> 1, OR 0x3210 (12816), select byte
// i of one or the other for value i.
// CHECK-LABEL: func.func @e2m1_to_s8
// CHECK-SAME:  (%[[R:.*]]: i32)
// CHECK-NEXT:  %[[M7:.*]] = arith.constant 30583 : i32
// CHECK-NEXT:  %[[IDX:.*]] = arith.andi %[[R]], %[[M7]] : i32
// CHECK-NEXT:  %[[M8:.*]] = arith.constant 34952 : i32
// CHECK-NEXT:  %[[SIGNS:.*]] = arith.andi %[[R]], %[[M8]] : i32
// CHECK-NEXT:  %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:  %[[SH:.*]] = arith.shrui %[[SIGNS]], %[[ONE]] : i32
// CHECK-NEXT:  %[[BYTES:.*]] = arith.constant 12816 : i32
// CHECK-NEXT:  %[[SEL:.*]] = arith.ori %[[SH]], %[[BYTES]] : i32
// CHECK-NEXT:  %[[P0:.*]] = arith.constant 50462976 : i32
// CHECK-NEXT:  %[[P1:.*]] = arith.constant 201852420 : i32
// CHECK-NEXT:  %[[POS:.*]] = ptx.prmt %[[P0]], %[[P1]], %[[IDX]]
// CHECK-NEXT:  %[[N0:.*]] = arith.constant -33620224 : i32
// CHECK-NEXT:  %[[N1:.*]] = arith.constant -185009412 : i32
// CHECK-NEXT:  %[[NEG:.*]] = ptx.prmt %[[N0]], %[[N1]], %[[IDX]]
// CHECK-NEXT:  %[[V03:.*]] = ptx.prmt %[[POS]], %[[NEG]], %[[SEL]]
//              values 4-7: the same, from x >> 16
// CHECK-NEXT:  %[[SIXTEEN:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  %[[XH:.*]] = arith.shrui %[[R]], %[[SIXTEEN]] : i32
// CHECK-NEXT:  %[[IDXH:.*]] = arith.andi %[[XH]], %[[M7]] : i32
// CHECK:       ptx.prmt %[[P0]], %[[P1]], %[[IDXH]]
// CHECK-NEXT:  ptx.prmt %[[N0]], %[[N1]], %[[IDXH]]
// CHECK-NEXT:  %[[V47:.*]] = ptx.prmt
// CHECK-NEXT:  "test.op"(%[[V03]], %[[V47]])
// CHECK-NOT:   arith.fptosi
func.func @e2m1_to_s8(%r: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r : i32 to tensor<32x4xi8, #raw>
  %u = qgpu.upcast %q from = e2m1 to = s8 : tensor<32x4xi8, #raw> -> tensor<32x8xi8, #s8>
  %o:2 = builtin.unrealized_conversion_cast %u : tensor<32x8xi8, #s8> to i32, i32
  "test.op"(%o#0, %o#1) : (i32, i32) -> ()
  func.return
}

// -----

#raw = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#f8 = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>

// e2m1 → e4m3: the same three prmt with the e4m3 codes of the eight magnitudes (0x3C383000,
// 0x4C484440: 0, 0.5, 1, 1.5, 2, 3, 4, 6) and of their negatives (0xBCB8B080, 0xCCC8C4C0).
// CHECK-LABEL: func.func @e2m1_to_e4m3
// CHECK-SAME:  (%[[R:.*]]: i32)
// CHECK-NEXT:  %[[M7:.*]] = arith.constant 30583 : i32
// CHECK-NEXT:  %[[IDX:.*]] = arith.andi %[[R]], %[[M7]] : i32
// CHECK:       %[[SEL:.*]] = arith.ori %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:  %[[P0:.*]] = arith.constant 1010315264 : i32
// CHECK-NEXT:  %[[P1:.*]] = arith.constant 1279804480 : i32
// CHECK-NEXT:  %[[POS:.*]] = ptx.prmt %[[P0]], %[[P1]], %[[IDX]]
// CHECK-NEXT:  %[[N0:.*]] = arith.constant -1128746880 : i32
// CHECK-NEXT:  %[[N1:.*]] = arith.constant -859257664 : i32
// CHECK-NEXT:  %[[NEG:.*]] = ptx.prmt %[[N0]], %[[N1]], %[[IDX]]
// CHECK-NEXT:  %[[V03:.*]] = ptx.prmt %[[POS]], %[[NEG]], %[[SEL]]
// CHECK:       ptx.prmt %[[N0]], %[[N1]], %{{.*}}
// CHECK-NEXT:  %[[V47:.*]] = ptx.prmt
// CHECK-NEXT:  "test.op"(%[[V03]], %[[V47]])
// CHECK-NOT:   ptx.cvt
func.func @e2m1_to_e4m3(%r: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r : i32 to tensor<32x4xi8, #raw>
  %u = qgpu.upcast %q from = e2m1 to = e4m3 : tensor<32x4xi8, #raw> -> tensor<32x8xf8E4M3FN, #f8>
  %o:2 = builtin.unrealized_conversion_cast %u : tensor<32x8xf8E4M3FN, #f8> to i32, i32
  "test.op"(%o#0, %o#1) : (i32, i32) -> ()
  func.return
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>

// e4m3 → bf16, two side-by-side bytes per destination register: prmt with 0 (selector 0x1404 =
// 5124 for bytes 0, 1; 0x3424 = 13348 for bytes 2, 3) puts each e4m3 code in the high byte of
// a 16-bit half; the sign stays (& 0x80008000), exponent and mantissa move down 4 bits into
// bf16's (>> 4, & 0x07F007F0 = 133171184), and one fma.rn.bf16x2 by 2^120 in both halves
// (0x7B807B80 = 2072017792; + -0.0) rebiases e4m3's exponent 7 to bf16's 127, exactly.
// CHECK-LABEL: func.func @e4m3_to_bf16
// CHECK-SAME:  (%[[R:.*]]: i32)
// CHECK-NEXT:  %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT:  %[[SEL01:.*]] = arith.constant 5124 : i32
// CHECK-NEXT:  %[[T:.*]] = ptx.prmt %[[R]], %[[ZERO]], %[[SEL01]]
// CHECK-NEXT:  %[[SIGN:.*]] = arith.constant -2147450880 : i32
// CHECK-NEXT:  %[[S:.*]] = arith.andi %[[T]], %[[SIGN]] : i32
// CHECK-NEXT:  %[[FOUR:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[T4:.*]] = arith.shrui %[[T]], %[[FOUR]] : i32
// CHECK-NEXT:  %[[MAG:.*]] = arith.constant 133171184 : i32
// CHECK-NEXT:  %[[E:.*]] = arith.andi %[[T4]], %[[MAG]] : i32
// CHECK-NEXT:  %[[BITS:.*]] = arith.ori %[[S]], %[[E]] : i32
// CHECK-NEXT:  %[[BIAS:.*]] = arith.constant 2072017792 : i32
// CHECK-NEXT:  %[[X:.*]] = ptx.bitcast %[[BITS]] : i32 -> vector<2xbf16>
// CHECK-NEXT:  %[[Y:.*]] = ptx.bitcast %[[BIAS]] : i32 -> vector<2xbf16>
// CHECK-NEXT:  %{{.*}} = arith.constant -2147450880 : i32
// CHECK-NEXT:  %[[MZ:.*]] = ptx.bitcast %{{.*}} : i32 -> vector<2xbf16>
// CHECK-NEXT:  %[[P:.*]] = ptx.fma_rn_bf16x2 %[[X]], %[[Y]], %[[MZ]]
// CHECK-NEXT:  %[[V01:.*]] = ptx.bitcast %[[P]] : vector<2xbf16> -> i32
// CHECK-NEXT:  %[[SEL23:.*]] = arith.constant 13348 : i32
// CHECK-NEXT:  %{{.*}} = ptx.prmt %[[R]], %[[ZERO]], %[[SEL23]]
// CHECK:       ptx.fma_rn_bf16x2
// CHECK-NEXT:  %[[V23:.*]] = ptx.bitcast %{{.*}} : vector<2xbf16> -> i32
// CHECK-NEXT:  "test.op"(%[[V01]], %[[V23]])
// CHECK-NOT:   arith.mulf
func.func @e4m3_to_bf16(%r: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r : i32 to tensor<32x4xf8E4M3FN, #bl>
  %u = qgpu.upcast %q from = e4m3 to = bf16 : tensor<32x4xf8E4M3FN, #bl> -> tensor<32x4xbf16, #bl>
  %o:2 = builtin.unrealized_conversion_cast %u : tensor<32x4xbf16, #bl> to i32, i32
  "test.op"(%o#0, %o#1) : (i32, i32) -> ()
  func.return
}
