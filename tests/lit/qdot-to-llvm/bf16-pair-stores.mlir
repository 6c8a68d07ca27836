// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' | filecheck %s
// qdot.store of a bf16 accumulator tile (16-bit #qgpu.mma: the pair (2t, 2t+1) of a row in one
// register). When the pair is provably 4-byte aligned — the row pitch N and the tile's column
// origin even, here from qdot.divisibility on N and a tile origin that is a multiple of 8 —
// each register is one st.global.b32 (2 per thread for a 16×8 tile). When the parity is unknown,
// one uniform run-time test of (pitch | N | origin) & 1 predicates each register's 4-byte store
// and, negated, its halves' st.global.b16 (4 per thread).

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// CHECK-LABEL: func.func @pairs
// CHECK-NOT:   arith.xori
// CHECK-NOT:   ptx.st_global {{.*}} : i16
// CHECK-COUNT-2: ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : i32
// CHECK-NOT:   ptx.st_global
func.func @pairs(%c_ptr: !qdot.ptr<bf16>, %m: index, %n: index {qdot.divisibility = 8 : i64}, %pid: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %off_n = arith.muli %pid, %c8 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<bf16> -> !qdot.desc<16x8xbf16>
  %ones = arith.constant dense<1.000000e+00> : tensor<16x8xbf16, #mma>
  qdot.store %c_desc[%c1, %off_n], %ones : !qdot.desc<16x8xbf16>, tensor<16x8xbf16, #mma>
  func.return
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// Nothing known of N: a pair may straddle a 4-byte boundary — both, predicated.
// CHECK-LABEL: func.func @halves
// CHECK:       %[[EVEN:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:  %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:  %[[SINGLE:.*]] = arith.xori %[[EVEN]], %[[TRUE]] : i1
// CHECK:       %[[IN:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK:       %[[LOW:.*]] = arith.andi %[[IN]], %[[SINGLE]] : i1
// CHECK-NEXT:  ptx.st_global %[[ADDR:.*]], %{{.*}} if %[[LOW]] : i16
// CHECK-NEXT:  %[[PAIR:.*]] = arith.andi %[[IN]], %[[EVEN]] : i1
// CHECK-NEXT:  ptx.st_global %[[ADDR]], %{{.*}} if %[[PAIR]] : i32
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : i16
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : i16
// CHECK-NEXT:  arith.andi
// CHECK-NEXT:  ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : i32
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : i16
// CHECK-NOT:   ptx.st_global
func.func @halves(%c_ptr: !qdot.ptr<bf16>, %m: index, %n: index, %pid: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %off_n = arith.muli %pid, %c8 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<bf16> -> !qdot.desc<16x8xbf16>
  %ones = arith.constant dense<1.000000e+00> : tensor<16x8xbf16, #mma>
  qdot.store %c_desc[%c1, %off_n], %ones : !qdot.desc<16x8xbf16>, tensor<16x8xbf16, #mma>
  func.return
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// An even row pitch says nothing of N: the high half of a pair may be the first column past
// the row's end (a store into the pitch's padding), so N's parity is tested too.
// CHECK-LABEL: func.func @odd_n_even_pitch
// CHECK:       arith.cmpi eq
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : i16
// CHECK-NEXT:  arith.andi
// CHECK-NEXT:  ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : i32
func.func @odd_n_even_pitch(%c_ptr: !qdot.ptr<bf16>, %m: index, %n: index,
                            %pitch: index {qdot.divisibility = 8 : i64}, %pid: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %off_n = arith.muli %pid, %c8 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%pitch, %c1] : !qdot.ptr<bf16> -> !qdot.desc<16x8xbf16>
  %ones = arith.constant dense<1.000000e+00> : tensor<16x8xbf16, #mma>
  qdot.store %c_desc[%c1, %off_n], %ones : !qdot.desc<16x8xbf16>, tensor<16x8xbf16, #mma>
  func.return
}
