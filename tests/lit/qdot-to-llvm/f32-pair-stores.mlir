// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' | filecheck %s
// qdot.store of an f32 accumulator tile (#qgpu.mma: registers 2i and 2i+1 of a thread hold the
// columns (2t, 2t+1) of one row). When the pair is provably 8-byte aligned and never
// straddles N — the row pitch, N and the tile's column origin even, here from
// qdot.divisibility on N and a tile origin that is a multiple of 8 — each register pair is
// one st.global.v2.b32 (2 per thread for a 16×8 tile), bounds-tested once. When the parity of
// those three is unknown, one uniform run-time test, (pitch | N | origin) & 1 == 0, predicates
// each pair's 8-byte store and, negated, its two 4-byte stores (no branch: the address and
// bounds test of a pair's first element serve both). A known odd one leaves the 4-byte stores.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// CHECK-LABEL: func.func @pairs
// CHECK:       %[[LO:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK-NEXT:  %[[HI:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK-NEXT:  %[[PAIR:.*]] = ptx.pack %[[LO]], %[[HI]] : i32, i32 -> vector<2xi32>
// CHECK-NEXT:  ptx.st_global %{{.*}}, %[[PAIR]] if %{{.*}} : vector<2xi32>
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : vector<2xi32>
// CHECK-NOT:   ptx.st_global
func.func @pairs(%c_ptr: !qdot.ptr<f32>, %m: index, %n: index {qdot.divisibility = 8 : i64}, %pid: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %off_n = arith.muli %pid, %c8 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %ones = arith.constant dense<1.000000e+00> : tensor<16x8xf32, #mma>
  qdot.store %c_desc[%c1, %off_n], %ones : !qdot.desc<16x8xf32>, tensor<16x8xf32, #mma>
  func.return
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// Nothing known of N: the pair may be misaligned, or its second column may be N — both, predicated.
// CHECK-LABEL: func.func @words
// CHECK-SAME:  (%{{[^:]*}}: i64, %{{[^:]*}}: index, %[[N:[^:]*]]: index, %{{[^:]*}}: index)
// CHECK:       arith.index_cast %c1 : index to i64
// CHECK-NEXT:  %[[PITCH:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK-NEXT:  %[[WIDTH:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK-NEXT:  %[[ORIGIN:.*]] = arith.index_cast %off_n : index to i64
// CHECK-NEXT:  %[[OR1:.*]] = arith.ori %[[PITCH]], %[[WIDTH]] : i64
// CHECK-NEXT:  %[[OR2:.*]] = arith.ori %[[OR1]], %[[ORIGIN]] : i64
// CHECK-NEXT:  %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:  %[[ODD:.*]] = arith.andi %[[OR2]], %[[ONE]] : i64
// CHECK-NEXT:  %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT:  %[[EVEN:.*]] = arith.cmpi eq, %[[ODD]], %[[ZERO]] : i64
// CHECK-NEXT:  %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT:  %[[SINGLE:.*]] = arith.xori %[[EVEN]], %[[TRUE]] : i1
//              a pair's first element: its own store, then the pair's, at one address
// CHECK:       %[[IN:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK:       %[[ADDR:.*]] = arith.addi %c_ptr, %{{.*}} : i64
// CHECK-NEXT:  %[[IN1:.*]] = arith.andi %[[IN]], %[[SINGLE]] : i1
// CHECK-NEXT:  ptx.st_global %[[ADDR]], %{{.*}} if %[[IN1]] : f32
// CHECK-NEXT:  %[[IN2:.*]] = arith.andi %[[IN]], %[[EVEN]] : i1
// CHECK:       ptx.st_global %[[ADDR]], %{{.*}} if %[[IN2]] : vector<2xi32>
//              its second element: its own bounds test, 4 bytes on
// CHECK:       %[[INB:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK:       %[[ADDRB:.*]] = arith.addi %[[ADDR]], %{{.*}} : i64
// CHECK-NEXT:  %[[INB1:.*]] = arith.andi %[[INB]], %[[SINGLE]] : i1
// CHECK-NEXT:  ptx.st_global %[[ADDRB]], %{{.*}} if %[[INB1]] : f32
//              the second pair the same: 2 pair stores and 4 single ones in all
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : f32
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : vector<2xi32>
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : f32
// CHECK-NOT:   ptx.st_global
func.func @words(%c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %pid: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %off_n = arith.muli %pid, %c8 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %ones = arith.constant dense<1.000000e+00> : tensor<16x8xf32, #mma>
  qdot.store %c_desc[%c1, %off_n], %ones : !qdot.desc<16x8xf32>, tensor<16x8xf32, #mma>
  func.return
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// An even row pitch says nothing of N: the second column of a pair may be the first one
// past the row's end (a store into the pitch's padding), so N's parity is tested too.
// CHECK-LABEL: func.func @odd_n_even_pitch
// CHECK:       arith.ori
// CHECK:       arith.cmpi eq
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : f32
// CHECK-NEXT:  arith.andi
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : vector<2xi32>
func.func @odd_n_even_pitch(%c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
                            %pitch: index {qdot.divisibility = 8 : i64}, %pid: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %off_n = arith.muli %pid, %c8 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%pitch, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %ones = arith.constant dense<1.000000e+00> : tensor<16x8xf32, #mma>
  qdot.store %c_desc[%c1, %off_n], %ones : !qdot.desc<16x8xf32>, tensor<16x8xf32, #mma>
  func.return
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

// A column origin that is an odd constant: pairs are never aligned, no test, 4-byte stores only.
// CHECK-LABEL: func.func @odd_origin
// CHECK-NOT:   arith.xori
// CHECK-COUNT-4: ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : f32
// CHECK-NOT:   ptx.st_global
func.func @odd_origin(%c_ptr: !qdot.ptr<f32>, %m: index, %n: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c1 = arith.constant 1 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %ones = arith.constant dense<1.000000e+00> : tensor<16x8xf32, #mma>
  qdot.store %c_desc[%c1, %c1], %ones : !qdot.desc<16x8xf32>, tensor<16x8xf32, #mma>
  func.return
}
