// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' | filecheck %s
// qdot.store of an f32 accumulator tile (#qgpu.mma: registers 2i and 2i+1 of a thread hold the
// columns (2t, 2t+1) of one row). When the pair is provably 8-byte aligned and never
// straddles N — the row pitch, N and the tile's column origin even, here from
// qdot.divisibility on N and a tile origin that is a multiple of 8 — each register pair is
// one st.global.v2.b32 (2 per thread for a 16×8 tile), bounds-tested once; otherwise each
// element is its own 4-byte store (4 per thread).

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

// Nothing known of N: the pair may be misaligned, or its second column may be N.
// CHECK-LABEL: func.func @words
// CHECK-COUNT-4: ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : f32
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
// past the row's end (a store into the pitch's padding), so the elements stay apart.
// CHECK-LABEL: func.func @odd_n_even_pitch
// CHECK-COUNT-4: ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : f32
// CHECK-NOT:   ptx.st_global
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
