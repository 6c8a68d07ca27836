// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' | filecheck %s
// qdot.store of a distributed tensor: each thread stores its own elements with a predicated
// st.global, the predicate being (row < M) && (col < N) so partial tiles never write outside
// the tensor. The accumulator is stored straight from its #qgpu.mma layout (thread (g, t)
// holds rows g, g + 8 and columns 2t, 2t + 1 of each 16×8 tile).

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// CHECK-LABEL: func.func @store_acc
// CHECK-SAME:  (%[[C:[^:]*]]: i64, %[[M:[^:]*]]: index, %[[N:[^:]*]]: index, %[[OFF:[^:]*]]: index)
// CHECK-DAG:   %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:   %[[M32:.*]] = arith.index_cast %[[M]] : index to i32
// CHECK-DAG:   %[[N32:.*]] = arith.index_cast %[[N]] : index to i32
// CHECK:       %[[INM:.*]] = arith.cmpi ult, %[[ROW:.*]], %[[M32]] : i32
// CHECK-NEXT:  %[[COL:.*]] = arith.addi
// CHECK-NEXT:  %[[INN:.*]] = arith.cmpi ult, %[[COL]], %[[N32]] : i32
// CHECK-NEXT:  %[[IN:.*]] = arith.andi %[[INM]], %[[INN]] : i1
// CHECK:       %[[BYTES:.*]] = arith.shli %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:  %[[ADDR:.*]] = arith.addi %[[C]], %[[BYTES]] : i64
// CHECK-NEXT:  ptx.st_global %[[ADDR]], %[[ONE]] if %[[IN]] : f32
// Each distinct row and column is tested once: column 2t + 1 gets its test, row g + 8 its own,
// and the last two elements combine tests made before.
// CHECK:       %[[INN1:.*]] = arith.cmpi ult, %{{.*}}, %[[N32]] : i32
// CHECK-NEXT:  %[[IN1:.*]] = arith.andi %[[INM]], %[[INN1]] : i1
// CHECK:       ptx.st_global %{{.*}}, %[[ONE]] if %[[IN1]] : f32
// CHECK:       %[[INM8:.*]] = arith.cmpi ult, %{{.*}}, %[[M32]] : i32
// CHECK-NEXT:  %[[IN8:.*]] = arith.andi %[[INM8]], %[[INN]] : i1
// CHECK:       ptx.st_global %{{.*}}, %[[ONE]] if %[[IN8]] : f32
// CHECK-NEXT:  %[[IN81:.*]] = arith.andi %[[INM8]], %[[INN1]] : i1
// CHECK-NOT:   arith.cmpi
// CHECK:       ptx.st_global %{{.*}}, %[[ONE]] if %[[IN81]] : f32
// CHECK-NOT:   ptx.st_global
// CHECK-NOT:   qdot.store
func.func @store_acc(%c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %off: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c1 = arith.constant 1 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %ones = arith.constant dense<1.000000e+00> : tensor<16x8xf32, #mma>
  qdot.store %c_desc[%off, %c1], %ones : !qdot.desc<16x8xf32>, tensor<16x8xf32, #mma>
  func.return
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>

// A layout that wraps: 32 lanes along 16 rows, so lanes l and l + 16 hold the same row
// l % 16 (a modulus in the coordinate). The element's address must come from that wrapped row
// — the one its bounds test checked — not from the thread's shared base of unwrapped lane
// fields plus per-register constants, which would send lanes 16-31 to rows 16-31 of the
// tensor, outside the tile (another tile's elements, inside M, so no bounds test stops them).
// CHECK-LABEL: func.func @wrapping_rows
// CHECK-SAME:  (%[[C:[^:]*]]: i64, %[[M:[^:]*]]: index, %[[N:[^:]*]]: index, %[[OFF:[^:]*]]: index)
// CHECK:       %[[ORIGIN:.*]] = arith.index_cast %[[OFF]] : index to i32
// CHECK:       %[[PITCH:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK:       %[[FIFTEEN:.*]] = arith.constant 15 : i32
// CHECK-NEXT:  %[[WRAPPED:.*]] = arith.andi %{{.*}}, %[[FIFTEEN]] : i32
// CHECK-NEXT:  %[[ROW:.*]] = arith.addi %[[ORIGIN]], %[[WRAPPED]] : i32
// CHECK-NEXT:  %[[INM:.*]] = arith.cmpi ult, %[[ROW]], %{{.*}} : i32
// CHECK:       %[[ROW64:.*]] = arith.extui %[[ROW]] : i32 to i64
// CHECK-NEXT:  %[[ROWOFF:.*]] = arith.muli %[[ROW64]], %[[PITCH]] : i64
// CHECK:       %[[LIN:.*]] = arith.addi %[[ROWOFF]], %{{.*}} : i64
// CHECK:       %[[BYTES:.*]] = arith.shli %[[LIN]], %{{.*}} : i64
// CHECK-NEXT:  %[[ADDR:.*]] = arith.addi %[[C]], %[[BYTES]] : i64
// CHECK:       ptx.st_global %[[ADDR]], %{{.*}} if %{{.*}} : f32
//              column 1: the wrapped row again, its own column
// CHECK:       %[[ROW64B:.*]] = arith.extui %[[ROW]] : i32 to i64
// CHECK-NEXT:  arith.muli %[[ROW64B]], %[[PITCH]] : i64
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : f32
// CHECK-NOT:   ptx.st_global
func.func @wrapping_rows(%c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %off: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x2xf32>
  %v = arith.constant dense<1.000000e+00> : tensor<16x2xf32, #bl>
  qdot.store %c_desc[%off, %c0], %v : !qdot.desc<16x2xf32>, tensor<16x2xf32, #bl>
  func.return
}
