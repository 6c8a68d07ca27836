// Round trip of every qgpu attribute, type and op, in custom and generic form.
// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP

#blocked = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 16, fp4Unpacked = true}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#shared = #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1], fp4Padded = true}>

// Keys may come in any order; `fp4Unpacked = false` / `fp4Padded = false` are not printed.
// CHECK-LABEL: func.func @encodings
// CHECK-SAME: tensor<64x128xi8, #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK-SAME: tensor<64x32xf32, #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>>
// CHECK-SAME: tensor<64x64xi8, #qgpu.dot_op<{opIdx = 0, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 4}>>
// CHECK-SAME: tensor<64x32xi8, #qgpu.dot_op<{opIdx = 1, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 16, fp4Unpacked = true}>>
// CHECK-SAME: tensor<64x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 0, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>}>>
// CHECK-SAME: !qgpu.memdesc<128x64xi8, #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1], fp4Padded = true}>>
// CHECK-SAME: !qgpu.memdesc<3x64x128xi8, #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>, mutable>
// CHECK: "test.op"() {plain = #qgpu.dot_op<{opIdx = 1, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>, kWidth = 4}>, unpadded = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, format = #qgpu<format e2m1>}
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "encodings"
// CHECK-GENERIC: "test.op"() {plain = #qgpu.dot_op<{opIdx = 1, parent = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>, kWidth = 4}>
func.func @encodings(%b: tensor<64x128xi8, #blocked>, %c: tensor<64x32xf32, #mma>, %a: tensor<64x64xi8, #a>,
                     %bu: tensor<64x32xi8, #bu>, %s: tensor<64x2xf8E8M0FNU, #sa>,
                     %m: !qgpu.memdesc<128x64xi8, #shared>,
                     %r: !qgpu.memdesc<3x64x128xi8, #qgpu.shared<{order = [1, 0], maxPhase = 8, perPhase = 1, vec = 16, fp4Padded = false}>, mutable>) {
  "test.op"() {plain = #qgpu.dot_op<{kWidth = 4, parent = #qgpu.mma<{instrShape = [16, 8], warpsPerCTA = [4, 1], versionMinor = 0, versionMajor = 2}>, opIdx = 1, fp4Unpacked = false}>,
               unpadded = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>,
               format = #qgpu<format e2m1>} : () -> ()
  func.return
}

// -----

#blocked = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#sh = #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#shp = #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1], fp4Padded = true}>

// CHECK-LABEL: func.func @memory
// CHECK: %[[ALLOC:.*]] = qgpu.local_alloc %{{.*}} : (tensor<64x128xi8, #qgpu.blocked<{{.*}}>>) -> !qgpu.memdesc<64x128xi8, #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>>
// CHECK: %[[RING:.*]] = qgpu.local_alloc : () -> !qgpu.memdesc<3x64x128xi8, {{.*}}, mutable>
// CHECK: %[[STAGE:.*]] = qgpu.memdesc_index %[[RING]][%{{.*}}] : !qgpu.memdesc<3x64x128xi8, {{.*}}, mutable> -> !qgpu.memdesc<64x128xi8, {{.*}}, mutable>
// CHECK: qgpu.async_copy %{{.*}}[%{{.*}}, %{{.*}}], %[[STAGE]] : !qdot.desc<64x128xi8>, !qgpu.memdesc<64x128xi8, {{.*}}, mutable>
// CHECK-NEXT: qgpu.async_copy %{{.*}}[%{{.*}}, %{{.*}}], %[[STAGE]] {in_bounds = [false, true]} : !qdot.desc<64x128xi8>
// CHECK-NEXT: qgpu.async_copy %{{.*}}[%{{.*}}, %{{.*}}], %[[STAGE]] if %{{.*}} : !qdot.desc<64x128xi8>
// CHECK-NEXT: qgpu.async_commit
// CHECK-NEXT: qgpu.async_wait {pending = 2}
// CHECK: qgpu.local_store %{{.*}}, %[[STAGE]] : tensor<64x128xi8, #qgpu.blocked<{{.*}}>>, !qgpu.memdesc<64x128xi8, {{.*}}, mutable>
// CHECK: qgpu.local_load %[[ALLOC]] : !qgpu.memdesc<64x128xi8, {{.*}}> -> tensor<64x128xi8, #qgpu.dot_op<{opIdx = 0, {{.*}}, kWidth = 4}>>
// CHECK: %[[PAD:.*]] = qgpu.local_alloc %{{.*}} : (tensor<32x64xi8, {{.*}}>) -> !qgpu.memdesc<32x64xi8, #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0], fp4Padded = true}>>
// CHECK: %[[T:.*]] = qgpu.memdesc_trans %[[PAD]] {order = array<i64: 1, 0>} : !qgpu.memdesc<32x64xi8, {{.*}}> -> !qgpu.memdesc<64x32xi8, #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1], fp4Padded = true}>>
// CHECK: qgpu.local_load %[[T]] : {{.*}} -> tensor<64x32xi8, #qgpu.dot_op<{opIdx = 1, {{.*}}, kWidth = 2, fp4Unpacked = true}>>
// CHECK: qgpu.local_load %{{.*}} {fallback} : !qgpu.memdesc<64x32xi8, {{.*}}> -> tensor<64x32xi8, #qgpu.dot_op<{{.*}}fp4Unpacked = true}>>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "memory"
// CHECK-GENERIC: "qgpu.local_alloc"(%{{.*}}) : (tensor<64x128xi8
// CHECK-GENERIC: "qgpu.local_alloc"() : () -> !qgpu.memdesc<3x64x128xi8
// CHECK-GENERIC: "qgpu.memdesc_index"(%{{.*}}, %{{.*}}) : (!qgpu.memdesc<3x64x128xi8, {{.*}}, mutable>, index) -> !qgpu.memdesc<64x128xi8
// CHECK-GENERIC: "qgpu.async_copy"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 2, 1, 0>}> : (!qdot.desc<64x128xi8>, index, index, !qgpu.memdesc<64x128xi8
// CHECK-GENERIC: "qgpu.async_copy"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{in_bounds = [false, true], operandSegmentSizes = array<i32: 1, 2, 1, 0>}> : (!qdot.desc<64x128xi8>
// CHECK-GENERIC: "qgpu.async_copy"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 2, 1, 1>}> : (!qdot.desc<64x128xi8>, index, index, !qgpu.memdesc<64x128xi8, {{.*}}, mutable>, i1) -> ()
// CHECK-GENERIC: "qgpu.async_commit"() : () -> ()
// CHECK-GENERIC: "qgpu.async_wait"() <{pending = 2 : i64}> : () -> ()
// CHECK-GENERIC: "qgpu.local_store"(%{{.*}}, %{{.*}})
// CHECK-GENERIC: "qgpu.memdesc_trans"(%{{.*}}) <{order = array<i64: 1, 0>}>
// CHECK-GENERIC: "qgpu.local_load"(%{{.*}}) <{fallback}>
func.func @memory(%t: tensor<64x128xi8, #blocked>, %desc: !qdot.desc<64x128xi8>, %i: index,
                  %w: tensor<32x64xi8, #blocked>, %plain: !qgpu.memdesc<64x32xi8, #shp>, %runs: i1) {
  %m = qgpu.local_alloc %t : (tensor<64x128xi8, #blocked>) -> !qgpu.memdesc<64x128xi8, #sh>
  %ring = qgpu.local_alloc : () -> !qgpu.memdesc<3x64x128xi8, #sh, mutable>
  %stage = qgpu.memdesc_index %ring[%i] : !qgpu.memdesc<3x64x128xi8, #sh, mutable> -> !qgpu.memdesc<64x128xi8, #sh, mutable>
  qgpu.async_copy %desc[%i, %i], %stage : !qdot.desc<64x128xi8>, !qgpu.memdesc<64x128xi8, #sh, mutable>
  qgpu.async_copy %desc[%i, %i], %stage {in_bounds = [false, true]} : !qdot.desc<64x128xi8>, !qgpu.memdesc<64x128xi8, #sh, mutable>
  qgpu.async_copy %desc[%i, %i], %stage if %runs : !qdot.desc<64x128xi8>, !qgpu.memdesc<64x128xi8, #sh, mutable>
  qgpu.async_commit
  qgpu.async_wait {pending = 2}
  qgpu.local_store %t, %stage : tensor<64x128xi8, #blocked>, !qgpu.memdesc<64x128xi8, #sh, mutable>
  %a = qgpu.local_load %m : !qgpu.memdesc<64x128xi8, #sh> -> tensor<64x128xi8, #a>
  %p = qgpu.local_alloc %w : (tensor<32x64xi8, #blocked>) -> !qgpu.memdesc<32x64xi8, #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0], fp4Padded = true}>>
  %pt = qgpu.memdesc_trans %p {order = array<i64: 1, 0>} : !qgpu.memdesc<32x64xi8, #qgpu.shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0], fp4Padded = true}>> -> !qgpu.memdesc<64x32xi8, #shp>
  %b = qgpu.local_load %pt : !qgpu.memdesc<64x32xi8, #shp> -> tensor<64x32xi8, #bu>
  %f = qgpu.local_load %plain {fallback} : !qgpu.memdesc<64x32xi8, #shp> -> tensor<64x32xi8, #bu>
  "test.op"(%a, %b, %f) : (tensor<64x128xi8, #a>, tensor<64x32xi8, #bu>, tensor<64x32xi8, #bu>) -> ()
  func.return
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#blocked = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @mma_s8
// CHECK: %[[D:.*]] = qgpu.mma %{{.*}}, %{{.*}}, %{{.*}} lhs = s8 rhs = s8 : tensor<64x64xi8, {{.*}}>, tensor<64x32xi8, {{.*}}>, tensor<64x32xi32, {{.*}}> -> tensor<64x32xi32, #qgpu.mma<{{.*}}>>
// CHECK: qgpu.convert_layout %[[D]] : tensor<64x32xi32, #qgpu.mma<{{.*}}>> -> tensor<64x32xi32, #qgpu.blocked<{{.*}}>>
// CHECK-GENERIC: "qgpu.mma"(%{{.*}}, %{{.*}}, %{{.*}}) <{lhs = #qgpu<format s8>, rhs = #qgpu<format s8>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0>}>
// CHECK-GENERIC: "qgpu.convert_layout"(%{{.*}})
func.func @mma_s8(%a: tensor<64x64xi8, #a>, %b: tensor<64x32xi8, #b>, %c: tensor<64x32xi32, #mma>) -> tensor<64x32xi32, #blocked> {
  %d = qgpu.mma %a, %b, %c lhs = s8 rhs = s8 : tensor<64x64xi8, #a>, tensor<64x32xi8, #b>, tensor<64x32xi32, #mma> -> tensor<64x32xi32, #mma>
  %e = qgpu.convert_layout %d : tensor<64x32xi32, #mma> -> tensor<64x32xi32, #blocked>
  func.return %e : tensor<64x32xi32, #blocked>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>

// Native sm_120a mixed e4m3 x e2m1 with ue8m0 scales applied by the instruction.
// CHECK-LABEL: func.func @mma_scaled_hw
// CHECK: qgpu.mma %{{.*}}, %{{.*}}, %{{.*}} scale %{{.*}}, %{{.*}} lhs = e4m3 rhs = e2m1 {rescale = "hw"} : tensor<64x64xf8E4M3FN, {{.*}}>, tensor<32x32xi8, #qgpu.dot_op<{{.*}}fp4Unpacked = true}>>, tensor<64x32xf32, {{.*}}>, tensor<64x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 0, {{.*}}>>, tensor<32x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 1, {{.*}}operand = true}>> -> tensor<64x32xf32
// CHECK-GENERIC: "qgpu.mma"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{lhs = #qgpu<format e4m3>, rhs = #qgpu<format e2m1>, rescale = "hw", operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0>}>
func.func @mma_scaled_hw(%a: tensor<64x64xf8E4M3FN, #a>, %b: tensor<32x32xi8, #bu>, %c: tensor<64x32xf32, #mma>,
                         %sa: tensor<64x2xf8E8M0FNU, #sa>, %sb: tensor<32x2xf8E8M0FNU, #sb>) -> tensor<64x32xf32, #mma> {
  %d = qgpu.mma %a, %b, %c scale %sa, %sb lhs = e4m3 rhs = e2m1 {rescale = "hw"}
     : tensor<64x64xf8E4M3FN, #a>, tensor<32x32xi8, #bu>, tensor<64x32xf32, #mma>, tensor<64x2xf8E8M0FNU, #sa>, tensor<32x2xf8E8M0FNU, #sb> -> tensor<64x32xf32, #mma>
  func.return %d : tensor<64x32xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#sbo = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>

// Packed e2m1 x e2m1 (kind::mxf4nvf4) with ue4m3 scales per 16, and s8 x s8 with f32 per-block scales.
// CHECK-LABEL: func.func @mma_other_scales
// CHECK: qgpu.mma {{.*}} lhs = e2m1 rhs = e2m1 {rescale = "hw"} : tensor<16x32xi8, {{.*}}>, tensor<32x8xi8, {{.*}}>, tensor<16x8xf32, {{.*}}>, tensor<16x4xf8E4M3FN, {{.*}}>, tensor<8x4xf8E4M3FN
// CHECK: qgpu.mma {{.*}} lhs = s8 rhs = s8 {rescale = "per_block"} : {{.*}}, tensor<16x2xf32, {{.*}}>, tensor<8x2xf32
func.func @mma_other_scales(%a4: tensor<16x32xi8, #a>, %b4: tensor<32x8xi8, #b>, %c: tensor<16x8xf32, #mma>,
                            %sa4: tensor<16x4xf8E4M3FN, #sa>, %sb4: tensor<8x4xf8E4M3FN, #sbo>,
                            %a8: tensor<16x64xi8, #a>, %b8: tensor<64x8xi8, #b>,
                            %sa8: tensor<16x2xf32, #sa>, %sb8: tensor<8x2xf32, #sb>) -> (tensor<16x8xf32, #mma>, tensor<16x8xf32, #mma>) {
  %d = qgpu.mma %a4, %b4, %c scale %sa4, %sb4 lhs = e2m1 rhs = e2m1 {rescale = "hw"}
     : tensor<16x32xi8, #a>, tensor<32x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x4xf8E4M3FN, #sa>, tensor<8x4xf8E4M3FN, #sbo> -> tensor<16x8xf32, #mma>
  %e = qgpu.mma %a8, %b8, %c scale %sa8, %sb8 lhs = s8 rhs = s8 {rescale = "per_block"}
     : tensor<16x64xi8, #a>, tensor<64x8xi8, #b>, tensor<16x8xf32, #mma>, tensor<16x2xf32, #sa>, tensor<8x2xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d, %e : tensor<16x8xf32, #mma>, tensor<16x8xf32, #mma>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a4 = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#a8 = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>
#b2 = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, fp4Unpacked = true}>
#b4 = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma, operand = true}>

// CHECK-LABEL: func.func @upcast
// CHECK: qgpu.upcast %{{.*}} from = e2m1 to = s8 : tensor<16x32xi8, #qgpu.dot_op<{{.*}}kWidth = 4}>> -> tensor<16x64xi8, #qgpu.dot_op<{{.*}}kWidth = 8}>>
// CHECK: qgpu.upcast %{{.*}} scale %{{.*}} from = e2m1 to = bf16 : tensor<16x8xi8, #qgpu.dot_op<{{.*}}fp4Unpacked = true}>>, tensor<8x1xf8E8M0FNU, {{.*}}> -> tensor<32x8xbf16, #qgpu.dot_op<{{.*}}kWidth = 4}>>
// CHECK-GENERIC: "qgpu.upcast"(%{{.*}}) <{from = #qgpu<format e2m1>, to = #qgpu<format s8>, operandSegmentSizes = array<i32: 1, 0, 0>}>
func.func @upcast(%x: tensor<16x32xi8, #a4>, %y: tensor<16x8xi8, #b2>, %s: tensor<8x1xf8E8M0FNU, #sb>) -> (tensor<16x64xi8, #a8>, tensor<32x8xbf16, #b4>) {
  %u = qgpu.upcast %x from = e2m1 to = s8 : tensor<16x32xi8, #a4> -> tensor<16x64xi8, #a8>
  %v = qgpu.upcast %y scale %s from = e2m1 to = bf16 : tensor<16x8xi8, #b2>, tensor<8x1xf8E8M0FNU, #sb> -> tensor<32x8xbf16, #b4>
  func.return %u, %v : tensor<16x64xi8, #a8>, tensor<32x8xbf16, #b4>
}

// -----

#shared = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>

// Views of the fields of raw ggml blocks in shared memory, and the q4_K nibble upcast.
// CHECK-LABEL: func.func @block_parts
// CHECK: qgpu.block_part %{{.*}} {part = "qs"} : !qgpu.memdesc<16x1x!qdot.block<q4_K>, {{.*}}> -> !qgpu.memdesc<16x128xi8, #qgpu.block_part<{format = "q4_K", part = "qs", blocks = 1, valueDim = 1}>>
// CHECK: qgpu.block_part %{{.*}} {part = "scale"} : {{.*}} -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_K", part = "scale", blocks = 1, valueDim = 1}>>
// CHECK: qgpu.upcast %{{.*}} from = q4_K to = s8 : tensor<16x128xi8, {{.*}}kWidth = 4}>> -> tensor<16x256xi8, {{.*}}kWidth = 4}>>
// CHECK: qgpu.mma {{.*}} scale {{.*}} fold %{{.*}}, %{{.*}} lhs = s8 rhs = s8 {rescale = "per_block"}
func.func @block_parts(%m: !qgpu.memdesc<16x1x!qdot.block<q4_K>, #shared>, %x: tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>,
                       %b: tensor<256x8xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>, %c: tensor<16x8xf32, #mma>,
                       %sa: tensor<16x8xf32, #sa>, %ma: tensor<16x8xf32, #sa>, %sb: tensor<8x8xf32, #sb>, %mb: tensor<8x8xf32, #sb>) -> tensor<16x8xf32, #mma> {
  %qs = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<16x1x!qdot.block<q4_K>, #shared> -> !qgpu.memdesc<16x128xi8, #qgpu.block_part<{format = "q4_K", part = "qs", blocks = 1, valueDim = 1}>>
  %sc = qgpu.block_part %m {part = "scale"} : !qgpu.memdesc<16x1x!qdot.block<q4_K>, #shared> -> !qgpu.memdesc<16x8xf32, #qgpu.block_part<{format = "q4_K", part = "scale", blocks = 1, valueDim = 1}>>
  %u = qgpu.upcast %x from = q4_K to = s8 : tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>> -> tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>
  %d = qgpu.mma %u, %b, %c scale %sa, %sb fold %ma, %mb lhs = s8 rhs = s8 {rescale = "per_block"}
     : tensor<16x256xi8, #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>, tensor<256x8xi8, #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>>, tensor<16x8xf32, #mma>, tensor<16x8xf32, #sa>, tensor<8x8xf32, #sb> fold tensor<16x8xf32, #sa>, tensor<8x8xf32, #sb> -> tensor<16x8xf32, #mma>
  func.return %d : tensor<16x8xf32, #mma>
}

// -----

// A tile dequantized cooperatively: each thread converts a run of 32 values along K with its scale.
#src = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#dst = #qgpu.blocked<{sizePerThread = [1, 32], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#sc = #qgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @upcast_blocked(%x: tensor<16x32xi8, #src>, %s: tensor<16x2xf8E8M0FNU, #sc>) -> tensor<16x64xbf16, #dst> {
  %u = qgpu.upcast %x scale %s from = e2m1 to = bf16 : tensor<16x32xi8, #src>, tensor<16x2xf8E8M0FNU, #sc> -> tensor<16x64xbf16, #dst>
  func.return %u : tensor<16x64xbf16, #dst>
}
// CHECK-LABEL: func.func @upcast_blocked
// CHECK: qgpu.upcast %{{.*}} scale %{{.*}} from = e2m1 to = bf16 : tensor<16x32xi8, #qgpu.blocked<{sizePerThread = [1, 16]{{.*}}>>, tensor<16x2xf8E8M0FNU, #qgpu.blocked<{sizePerThread = [1, 1]{{.*}}>> -> tensor<16x64xbf16, #qgpu.blocked<{sizePerThread = [1, 32]{{.*}}>>
