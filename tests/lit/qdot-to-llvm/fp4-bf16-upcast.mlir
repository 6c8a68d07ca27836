// RUN: qdot-opt %s -p 'qdot-to-llvm' | filecheck %s
// qgpu.upcast from = e2m1 to = bf16 (dequant-bf16's conversion): each 16-bit half of a source
// register (four packed e2m1 values) becomes two bf16x2 registers in 8 instructions, exactly:
// the magnitude (x & 0x7777, 30583) indexes two byte tables with prmt — the low bytes of the
// eight magnitudes' bf16 (0xC0800000 / 0xC0804000) and their high bytes (0x3F3F3F00 /
// 0x40404040); a third prmt of (x, x << 4) with selector 0x9D8C (40332) copies the top bit of
// bytes 4, 0, 5, 1 — the signs of values 0, 1, 2, 3 — into whole 0x00/0xFF bytes, of which
// 0x80808080 is OR-ed onto the high bytes; two prmt (0x5140 = 20800, 0x7362 = 29538)
// interleave low and high bytes into values (0, 1) and (2, 3). Four table registers, not six:
// under register pressure ptxas rebuilds each table before each use (run 33 of RESULTS.md).

// CHECK-LABEL: func.func @quads
// CHECK-SAME:  (%[[R:.*]]: i32)
// CHECK-NEXT:  %[[M7:.*]] = arith.constant 30583 : i32
// CHECK-NEXT:  %[[IDX:.*]] = arith.andi %[[R]], %[[M7]] : i32
// CHECK-NEXT:  %[[LO0:.*]] = arith.constant -1065353216 : i32
// CHECK-NEXT:  %[[LO1:.*]] = arith.constant -1065336832 : i32
// CHECK-NEXT:  %[[LO:.*]] = ptx.prmt %[[LO0]], %[[LO1]], %[[IDX]]
// CHECK-NEXT:  %[[HI0:.*]] = arith.constant 1061109504 : i32
// CHECK-NEXT:  %[[HI1:.*]] = arith.constant 1077952576 : i32
// CHECK-NEXT:  %[[HI:.*]] = ptx.prmt %[[HI0]], %[[HI1]], %[[IDX]]
// CHECK-NEXT:  %[[FOUR:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[X4:.*]] = arith.shli %[[R]], %[[FOUR]] : i32
// CHECK-NEXT:  %[[SEL:.*]] = arith.constant 40332 : i32
// CHECK-NEXT:  %[[SIGNS:.*]] = ptx.prmt %[[R]], %[[X4]], %[[SEL]]
// CHECK-NEXT:  %[[TOP:.*]] = arith.constant -2139062144 : i32
// CHECK-NEXT:  %[[S:.*]] = arith.andi %[[SIGNS]], %[[TOP]] : i32
// CHECK-NEXT:  %[[HIS:.*]] = arith.ori %[[HI]], %[[S]] : i32
// CHECK-NEXT:  %[[I01:.*]] = arith.constant 20800 : i32
// CHECK-NEXT:  %[[V01:.*]] = ptx.prmt %[[LO]], %[[HIS]], %[[I01]]
// CHECK-NEXT:  %[[I23:.*]] = arith.constant 29538 : i32
// CHECK-NEXT:  %[[V23:.*]] = ptx.prmt %[[LO]], %[[HIS]], %[[I23]]
//              the upper half: the same, from x >> 16
// CHECK-NEXT:  %[[SIXTEEN:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  %[[XH:.*]] = arith.shrui %[[R]], %[[SIXTEEN]] : i32
// CHECK-NEXT:  %[[IDXH:.*]] = arith.andi %[[XH]], %[[M7]] : i32
// CHECK-COUNT-3: ptx.prmt
// CHECK:       %[[V45:.*]] = ptx.prmt
// CHECK-NEXT:  %[[V67:.*]] = ptx.prmt
// CHECK-NEXT:  "test.op"(%[[V01]], %[[V23]], %[[V45]], %[[V67]])
// CHECK-NOT:   arith.select

#raw = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#bf = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @quads(%r: i32) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %q = builtin.unrealized_conversion_cast %r : i32 to tensor<32x4xi8, #raw>
  %u = qgpu.upcast %q from = e2m1 to = bf16 : tensor<32x4xi8, #raw> -> tensor<32x8xbf16, #bf>
  %o:4 = builtin.unrealized_conversion_cast %u : tensor<32x8xbf16, #bf> to i32, i32, i32, i32
  "test.op"(%o#0, %o#1, %o#2, %o#3) : (i32, i32, i32, i32) -> ()
  func.return
}
