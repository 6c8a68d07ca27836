// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_90}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_90}' | filecheck %s --check-prefix=BARE
// Loads from views of raw ggml blocks in shared memory (qgpu.block_part). A raw part (`qs`) is
// bytes at a fixed place in every block: its offsets are affine in the thread — row · block
// bytes + the part's first byte — so ldmatrix still fits, with the part's origin (16: after
// q4_K's d, dmin and 12 scale bytes, or q8_1_mmq's 16-byte ds4 header) folded into each
// instruction's address constant. A derived part (`scale`, `min`, `d`, `s`) is computed while
// loading: scalar ld.shared of the fields, fp16 widening, and q4_K's 6-bit scales and mins
// unpacked as ggml's get_scale_min_k4 does; the f16 parts of the dmin mma (`m_pad`, `s_pad`)
// are narrowed and packed two per register, zeros at the padded positions.

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#qs = #qgpu.block_part<{format = "q4_K", part = "qs", blocks = 1, valueDim = 1}>

// q4_K as the lhs (the small-M kernel): 16 weight rows of one 144-byte super-block. Lanes 0-15
// address rows 0-15 (row · 144), lanes 16-31 the same rows 16 bytes further; each x4 covers 32
// bytes of K, the next three 32, 64 and 96 bytes on, all from the +16 origin.
// CHECK-LABEL: func.func @q4k_qs_lhs
// CHECK:       %[[C144:.*]] = arith.constant 144 : i32
// CHECK-NEXT:  %[[ROW:.*]] = arith.muli %{{.*}}, %[[C144]] : i32
// CHECK:       %[[THREAD:.*]] = arith.addi %[[ROW]], %{{.*}} : i32
// CHECK:       %[[BASE:.*]] = builtin.unrealized_conversion_cast %qs : {{.*}} to i32
// CHECK-NEXT:  %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  %[[O0:.*]] = arith.addi %[[THREAD]], %[[C16]] : i32
// CHECK-NEXT:  %[[A0:.*]] = arith.addi %[[BASE]], %[[O0]] : i32
// CHECK-NEXT:  %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} = ptx.ldmatrix m8n8 x4 b16 %[[A0]]
// CHECK-NEXT:  %[[C48:.*]] = arith.constant 48 : i32
// CHECK-NEXT:  %[[O1:.*]] = arith.addi %[[THREAD]], %[[C48]] : i32
// CHECK-NEXT:  %[[A1:.*]] = arith.addi %[[BASE]], %[[O1]] : i32
// CHECK-NEXT:  ptx.ldmatrix m8n8 x4 b16 %[[A1]]
// CHECK-NEXT:  %[[C80:.*]] = arith.constant 80 : i32
// CHECK-NEXT:  %[[O2:.*]] = arith.addi %[[THREAD]], %[[C80]] : i32
// CHECK-NEXT:  %[[A2:.*]] = arith.addi %[[BASE]], %[[O2]] : i32
// CHECK-NEXT:  ptx.ldmatrix m8n8 x4 b16 %[[A2]]
// CHECK-NEXT:  %[[C112:.*]] = arith.constant 112 : i32
// CHECK-NEXT:  %[[O3:.*]] = arith.addi %[[THREAD]], %[[C112]] : i32
// CHECK-NEXT:  %[[A3:.*]] = arith.addi %[[BASE]], %[[O3]] : i32
// CHECK-NEXT:  ptx.ldmatrix m8n8 x4 b16 %[[A3]]
// CHECK-NEXT:  builtin.unrealized_conversion_cast {{.*}} to tensor<16x128xi8, #qgpu.dot_op<{opIdx = 0,
// CHECK-NOT:   ptx.ld_shared
func.func @q4k_qs_lhs(%m: !qgpu.memdesc<16x1x!qdot.block<q4_K>, #sh>) -> tensor<16x128xi8, #a> {
  %qs = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<16x1x!qdot.block<q4_K>, #sh> -> !qgpu.memdesc<16x128xi8, #qs>
  %r = qgpu.local_load %qs : !qgpu.memdesc<16x128xi8, #qs> -> tensor<16x128xi8, #a>
  func.return %r : tensor<16x128xi8, #a>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#b = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#qs = #qgpu.block_part<{format = "q4_K", part = "qs", blocks = 1, valueDim = 0}>

// q4_K as the rhs (the prefill kernel): one super-block per column (valueDim = 0). Lanes 0-7
// address columns 0-7, lanes 8-31 the next 16-byte pieces of K; the second n tile starts
// 8 columns (8 · 144 = 1152 bytes) on: 16, 80, then 1168, 1232.
// CHECK-LABEL: func.func @q4k_qs_rhs
// CHECK:       %[[C144:.*]] = arith.constant 144 : i32
// CHECK-NEXT:  %[[COL:.*]] = arith.muli %{{.*}}, %[[C144]] : i32
// CHECK:       %[[THREAD:.*]] = arith.addi %[[COL]], %{{.*}} : i32
// CHECK:       %[[BASE:.*]] = builtin.unrealized_conversion_cast %qs : {{.*}} to i32
// CHECK-NEXT:  %[[C16:.*]] = arith.constant 16 : i32
// CHECK-NEXT:  %[[O0:.*]] = arith.addi %[[THREAD]], %[[C16]] : i32
// CHECK-NEXT:  %[[A0:.*]] = arith.addi %[[BASE]], %[[O0]] : i32
// CHECK-NEXT:  ptx.ldmatrix m8n8 x4 b16 %[[A0]]
// CHECK-NEXT:  arith.constant 80 : i32
// CHECK:       ptx.ldmatrix m8n8 x4 b16
// CHECK-NEXT:  arith.constant 1168 : i32
// CHECK:       ptx.ldmatrix m8n8 x4 b16
// CHECK-NEXT:  arith.constant 1232 : i32
// CHECK:       ptx.ldmatrix m8n8 x4 b16
// CHECK-NEXT:  builtin.unrealized_conversion_cast {{.*}} to tensor<128x16xi8, #qgpu.dot_op<{opIdx = 1,
// CHECK-NOT:   ptx.ld_shared
func.func @q4k_qs_rhs(%m: !qgpu.memdesc<1x16x!qdot.block<q4_K>, #sh>) -> tensor<128x16xi8, #b> {
  %qs = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<1x16x!qdot.block<q4_K>, #sh> -> !qgpu.memdesc<128x16xi8, #qs>
  %r = qgpu.local_load %qs : !qgpu.memdesc<128x16xi8, #qs> -> tensor<128x16xi8, #b>
  func.return %r : tensor<128x16xi8, #b>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#qs = #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 1}>

// q8_1_mmq, two blocks per row (rows of 288 bytes): the second block's quants start at
// 144 + 16 = 160, so the affine offsets jump there after the first block's four pieces.
// CHECK-LABEL: func.func @q8_1_mmq_qs
// CHECK:       %[[C288:.*]] = arith.constant 288 : i32
// CHECK-NEXT:  arith.muli %{{.*}}, %[[C288]] : i32
// CHECK:       arith.constant 16 : i32
// CHECK:       ptx.ldmatrix m8n8 x4 b16
// CHECK:       arith.constant 112 : i32
// CHECK:       ptx.ldmatrix m8n8 x4 b16
// CHECK-NEXT:  arith.constant 160 : i32
// CHECK:       ptx.ldmatrix m8n8 x4 b16
// CHECK:       arith.constant 256 : i32
// CHECK:       ptx.ldmatrix m8n8 x4 b16
// CHECK-NEXT:  builtin.unrealized_conversion_cast {{.*}} to tensor<16x256xi8
// CHECK-NOT:   ptx.ld_shared
func.func @q8_1_mmq_qs(%m: !qgpu.memdesc<16x2x!qdot.block<q8_1_mmq>, #sh>) -> tensor<16x256xi8, #a> {
  %qs = qgpu.block_part %m {part = "qs"} : !qgpu.memdesc<16x2x!qdot.block<q8_1_mmq>, #sh> -> !qgpu.memdesc<16x256xi8, #qs>
  %r = qgpu.local_load %qs : !qgpu.memdesc<16x256xi8, #qs> -> tensor<16x256xi8, #a>
  func.return %r : tensor<16x256xi8, #a>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#sc = #qgpu.block_part<{format = "q4_K", part = "scale", blocks = 1, valueDim = 1}>

// q4_K `scale` = d · sc per 32-value sub-block j. The block's 16-byte header (d, dmin and the 12 scale bytes; 16-
// aligned, blocks being 144 bytes) is one vector load of four words per block: d is the low half of word 0, sc a
// 6-bit field of the scale bytes in words 1-3. j < 4: sc = q[j] & 63 (word 1, byte j); j ≥ 4: sc = (q[j + 4] & 15)
// | (q[j - 4] >> 6) << 4 (words 3 and 1). Rows are 144 bytes apart: lanes g = lane / 4 hold rows g and g + 8
// (8 · 144 = 1152 bytes on), one header load each.
// CHECK-LABEL: func.func @q4k_scale
// CHECK:       %[[C144:.*]] = arith.constant 144 : i32
// CHECK-NEXT:  %[[ROW:.*]] = arith.muli %{{.*}}, %[[C144]] : i32
// CHECK:       %[[BASE:.*]] = builtin.unrealized_conversion_cast %v : {{.*}} to i32
// j = 0
// CHECK:       %[[S0:.*]] = arith.addi %[[BASE]], %[[ROW]] : i32
// CHECK-NEXT:  %[[H:.*]] = ptx.ld_shared %[[S0]] : vector<4xi32>
// CHECK-NEXT:  %[[W0:.*]], %[[W1:.*]], %[[W2:.*]], %[[W3:.*]] = ptx.unpack %[[H]] : vector<4xi32> -> i32, i32, i32, i32
// CHECK-NEXT:  %[[DH:.*]] = arith.trunci %[[W0]] : i32 to i16
// CHECK-NEXT:  %[[DF16:.*]] = arith.bitcast %[[DH]] : i16 to f16
// CHECK-NEXT:  %[[D:.*]] = arith.extf %[[DF16]] : f16 to f32
// CHECK-NEXT:  %[[C255:.*]] = arith.constant 255 : i32
// CHECK-NEXT:  %[[Q0:.*]] = arith.andi %[[W1]], %[[C255]] : i32
// CHECK-NEXT:  %[[C63:.*]] = arith.constant 63 : i32
// CHECK-NEXT:  %[[SC0:.*]] = arith.andi %[[Q0]], %[[C63]] : i32
// d · sc without a conversion: sc | 2^23's bits is the f32 2^23 + sc, and fma(2^23 + sc, d, −2^23 · d) is d · sc
// rounded once (block_fields._times_code)
// CHECK-NEXT:  %[[MAGIC:.*]] = arith.constant 1258291200 : i32
// CHECK-NEXT:  %[[SC0I:.*]] = arith.ori %[[SC0]], %[[MAGIC]] : i32
// CHECK-NEXT:  %[[SC0F:.*]] = arith.bitcast %[[SC0I]] : i32 to f32
// CHECK-NEXT:  %[[NEG:.*]] = arith.constant 0xCB000000 : f32
// CHECK-NEXT:  %[[ND:.*]] = arith.mulf %[[D]], %[[NEG]] : f32
// CHECK-NEXT:  %{{.*}} = math.fma %[[SC0F]], %[[D]], %[[ND]] : f32
// CHECK-NOT:   arith.uitofp
// j = 4: low nibble of q[8] (word 3, byte 0), top two bits of q[0] (word 1, byte 0) as bits 4-5; no other load
// CHECK-NOT:   ptx.ld_shared
// CHECK:       %[[Q8:.*]] = arith.andi %[[W3]], %[[C255]] : i32
// CHECK-NEXT:  %[[C15:.*]] = arith.constant 15 : i32
// CHECK-NEXT:  %[[LO:.*]] = arith.andi %[[Q8]], %[[C15]] : i32
// CHECK-NEXT:  %[[QJ:.*]] = arith.andi %[[W1]], %[[C255]] : i32
// CHECK-NEXT:  %[[C6:.*]] = arith.constant 6 : i32
// CHECK-NEXT:  %[[TOP:.*]] = arith.shrui %[[QJ]], %[[C6]] : i32
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[HI:.*]] = arith.shli %[[TOP]], %[[C4]] : i32
// CHECK-NEXT:  %[[SC4:.*]] = arith.ori %[[LO]], %[[HI]] : i32
// CHECK-NEXT:  arith.ori %[[SC4]], %[[MAGIC]] : i32
// rows g + 8: their block's header, 1152 bytes on, the only other load
// CHECK-NOT:   ptx.ld_shared
// CHECK:       arith.constant 1152 : i32
// CHECK:       ptx.ld_shared %{{.*}} : vector<4xi32>
// CHECK-NOT:   ptx.ld_shared
// CHECK:       builtin.unrealized_conversion_cast {{.*}} : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32 to tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 0,
// CHECK-NOT:   ptx.ldmatrix
func.func @q4k_scale(%m: !qgpu.memdesc<16x1x!qdot.block<q4_K>, #sh>) -> tensor<16x8xf32, #sa> {
  %v = qgpu.block_part %m {part = "scale"} : !qgpu.memdesc<16x1x!qdot.block<q4_K>, #sh> -> !qgpu.memdesc<16x8xf32, #sc>
  %r = qgpu.local_load %v : !qgpu.memdesc<16x8xf32, #sc> -> tensor<16x8xf32, #sa>
  func.return %r : tensor<16x8xf32, #sa>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#mn = #qgpu.block_part<{format = "q4_K", part = "min", blocks = 1, valueDim = 0}>

// q4_K `min` = dmin · m into the blocked layout of the decode-once buffer: one column (one
// super-block) per thread, all eight sub-blocks; lanes 16-31 repeat columns 0-15. The blocks are a B side
// (valueDim = 0, the prefill kernel's weights), so the fields are loaded one by one, not as the 16-byte header
// of @q4k_scale (run 311: the header load made the prefill slower). dmin is the
// fp16 at byte 2; j < 4: m = q[j + 4] & 63 (word at +8); j ≥ 4: m = (q[j + 4] >> 4) | (q[j] >> 6) << 4.
// CHECK-LABEL: func.func @q4k_min_blocked
// CHECK:       %[[C15:.*]] = arith.constant 15 : i32
// CHECK-NEXT:  %[[COLS:.*]] = arith.andi %{{.*}}, %[[C15]] : i32
// CHECK-NEXT:  %[[C144:.*]] = arith.constant 144 : i32
// CHECK-NEXT:  %[[COL:.*]] = arith.muli %[[COLS]], %[[C144]] : i32
// CHECK:       %[[BASE:.*]] = builtin.unrealized_conversion_cast %v : {{.*}} to i32
// CHECK:       %[[S0:.*]] = arith.addi %[[BASE]], %[[COL]] : i32
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[DMA:.*]] = arith.addi %[[S0]], %[[C2]] : i32
// CHECK-NEXT:  %[[DMH:.*]] = ptx.ld_shared %[[DMA]] : i16
// CHECK-NEXT:  %[[DMF16:.*]] = arith.bitcast %[[DMH]] : i16 to f16
// CHECK-NEXT:  %[[DMIN:.*]] = arith.extf %[[DMF16]] : f16 to f32
// CHECK-NEXT:  %[[C8:.*]] = arith.constant 8 : i32
// CHECK-NEXT:  %[[W1A:.*]] = arith.addi %[[S0]], %[[C8]] : i32
// CHECK-NEXT:  %[[W1:.*]] = ptx.ld_shared %[[W1A]] : i32
// CHECK-NEXT:  %[[C255:.*]] = arith.constant 255 : i32
// CHECK-NEXT:  %[[Q4:.*]] = arith.andi %[[W1]], %[[C255]] : i32
// CHECK-NEXT:  %[[C63:.*]] = arith.constant 63 : i32
// CHECK-NEXT:  %[[M0:.*]] = arith.andi %[[Q4]], %[[C63]] : i32
// CHECK-NEXT:  %[[MAGIC:.*]] = arith.constant 1258291200 : i32
// CHECK-NEXT:  %[[M0I:.*]] = arith.ori %[[M0]], %[[MAGIC]] : i32
// CHECK-NEXT:  %[[M0F:.*]] = arith.bitcast %[[M0I]] : i32 to f32
// CHECK-NEXT:  %[[NEG:.*]] = arith.constant 0xCB000000 : f32
// CHECK-NEXT:  %[[NDM:.*]] = arith.mulf %[[DMIN]], %[[NEG]] : f32
// CHECK-NEXT:  math.fma %[[M0F]], %[[DMIN]], %[[NDM]] : f32
// j = 4: high nibble of q[8] (word at +12), top two bits of q[4] (word at +8)
// CHECK:       %[[C12:.*]] = arith.constant 12 : i32
// CHECK-NEXT:  %[[W2A:.*]] = arith.addi %[[S4:.*]], %[[C12]] : i32
// CHECK-NEXT:  %[[W2:.*]] = ptx.ld_shared %[[W2A]] : i32
// CHECK-NEXT:  %[[Q8:.*]] = arith.andi %[[W2]], %[[C255]] : i32
// CHECK-NEXT:  %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[LO:.*]] = arith.shrui %[[Q8]], %[[C4]] : i32
// CHECK-NEXT:  %[[W1B:.*]] = arith.addi %[[S4]], %[[C8]] : i32
// CHECK-NEXT:  %[[W1R:.*]] = ptx.ld_shared %[[W1B]] : i32
// CHECK-NEXT:  %[[QJ:.*]] = arith.andi %[[W1R]], %[[C255]] : i32
// CHECK-NEXT:  %[[C6:.*]] = arith.constant 6 : i32
// CHECK-NEXT:  %[[TOP:.*]] = arith.shrui %[[QJ]], %[[C6]] : i32
// CHECK-NEXT:  %[[HI:.*]] = arith.shli %[[TOP]], %[[C4]] : i32
// CHECK-NEXT:  %[[M4:.*]] = arith.ori %[[LO]], %[[HI]] : i32
// CHECK-NEXT:  arith.ori %[[M4]], %[[MAGIC]] : i32
// CHECK:       builtin.unrealized_conversion_cast {{.*}} : f32, f32, f32, f32, f32, f32, f32, f32 to tensor<16x8xf32, #qgpu.blocked<
func.func @q4k_min_blocked(%m: !qgpu.memdesc<1x16x!qdot.block<q4_K>, #sh>) -> tensor<16x8xf32, #bl> {
  %v = qgpu.block_part %m {part = "min"} : !qgpu.memdesc<1x16x!qdot.block<q4_K>, #sh> -> !qgpu.memdesc<16x8xf32, #mn>
  %r = qgpu.local_load %v : !qgpu.memdesc<16x8xf32, #mn> -> tensor<16x8xf32, #bl>
  func.return %r : tensor<16x8xf32, #bl>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sa = #qgpu.dot_scale<{opIdx = 0, parent = #mma}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#d = #qgpu.block_part<{format = "q8_1_mmq", part = "d", blocks = 2, valueDim = 1}>
#s = #qgpu.block_part<{format = "q8_1_mmq", part = "s", blocks = 2, valueDim = 1}>

// q8_1_mmq `d` and `s`: the block's ds4 header holds one (d, s) fp16 pair per 32 values, so
// value group i reads the f16 at 4i (d) or 4i + 2 (s) and widens it; the second block of the
// row is 144 bytes on.
// CHECK-LABEL: func.func @q8_1_mmq_d_s
// CHECK:       %[[C288:.*]] = arith.constant 288 : i32
// CHECK-NEXT:  %[[ROW:.*]] = arith.muli %{{.*}}, %[[C288]] : i32
// CHECK:       %[[DB:.*]] = builtin.unrealized_conversion_cast %dv : {{.*}} to i32
// CHECK:       %[[D0A:.*]] = arith.addi %[[DB]], %[[ROW]] : i32
// CHECK-NEXT:  %[[D0:.*]] = ptx.ld_shared %[[D0A]] : i16
// CHECK-NEXT:  %[[D0H:.*]] = arith.bitcast %[[D0]] : i16 to f16
// CHECK-NEXT:  arith.extf %[[D0H]] : f16 to f32
// CHECK:       %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT:  %[[D1A:.*]] = arith.addi %{{.*}}, %[[C4]] : i32
// CHECK-NEXT:  ptx.ld_shared %[[D1A]] : i16
// CHECK:       %[[C144:.*]] = arith.constant 144 : i32
// CHECK-NEXT:  arith.addi %[[ROW]], %[[C144]] : i32
// CHECK:       builtin.unrealized_conversion_cast {{.*}} to tensor<16x8xf32, #qgpu.dot_scale<{opIdx = 0,
// CHECK:       %[[SB:.*]] = builtin.unrealized_conversion_cast %sv : {{.*}} to i32
// CHECK:       %[[S0B:.*]] = arith.addi %[[SB]], %[[ROW]] : i32
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[S0A:.*]] = arith.addi %[[S0B]], %[[C2]] : i32
// CHECK-NEXT:  %[[S0:.*]] = ptx.ld_shared %[[S0A]] : i16
// CHECK-NEXT:  %[[S0H:.*]] = arith.bitcast %[[S0]] : i16 to f16
// CHECK-NEXT:  arith.extf %[[S0H]] : f16 to f32
// CHECK:       %[[C6:.*]] = arith.constant 6 : i32
// CHECK-NEXT:  %[[S1A:.*]] = arith.addi %{{.*}}, %[[C6]] : i32
// CHECK-NEXT:  ptx.ld_shared %[[S1A]] : i16
// CHECK-NOT:   ptx.ldmatrix
func.func @q8_1_mmq_d_s(%m: !qgpu.memdesc<16x2x!qdot.block<q8_1_mmq>, #sh>) -> (tensor<16x8xf32, #sa>, tensor<16x8xf32, #sa>) {
  %dv = qgpu.block_part %m {part = "d"} : !qgpu.memdesc<16x2x!qdot.block<q8_1_mmq>, #sh> -> !qgpu.memdesc<16x8xf32, #d>
  %d = qgpu.local_load %dv : !qgpu.memdesc<16x8xf32, #d> -> tensor<16x8xf32, #sa>
  %sv = qgpu.block_part %m {part = "s"} : !qgpu.memdesc<16x2x!qdot.block<q8_1_mmq>, #sh> -> !qgpu.memdesc<16x8xf32, #s>
  %s = qgpu.local_load %sv : !qgpu.memdesc<16x8xf32, #s> -> tensor<16x8xf32, #sa>
  func.return %d, %s : tensor<16x8xf32, #sa>, tensor<16x8xf32, #sa>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#mp = #qgpu.block_part<{format = "q4_K", part = "m_pad", blocks = 1, valueDim = 0}>

// q4_K `m_pad`: the bare 6-bit mins m_j (no dmin: the dmin mma applies it as a scale) at the
// padded K positions j < 4 → j, j ≥ 4 → j + 4, zeros at 4-7 and 12-15; exact in f16, narrowed
// and packed low | high << 16, 16 values = 8 registers per thread (one column each).
// CHECK-LABEL: func.func @q4k_m_pad
// CHECK:       %[[C8:.*]] = arith.constant 8 : i32
// CHECK-NEXT:  %[[W1A:.*]] = arith.addi %{{.*}}, %[[C8]] : i32
// CHECK-NEXT:  %[[W1:.*]] = ptx.ld_shared %[[W1A]] : i32
// CHECK-NEXT:  %[[C255:.*]] = arith.constant 255 : i32
// CHECK-NEXT:  %[[Q4:.*]] = arith.andi %[[W1]], %[[C255]] : i32
// CHECK-NEXT:  %[[C63:.*]] = arith.constant 63 : i32
// CHECK-NEXT:  %[[M0I:.*]] = arith.andi %[[Q4]], %[[C63]] : i32
// CHECK-NEXT:  %[[M0:.*]] = arith.uitofp %[[M0I]] : i32 to f32
// CHECK:       %[[M1:.*]] = arith.uitofp
// CHECK:       %[[M2:.*]] = arith.uitofp
// CHECK:       %[[M3:.*]] = arith.uitofp
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:       %[[M4:.*]] = arith.uitofp %{{.*}} : i32 to f32
// CHECK:       %[[M5:.*]] = arith.uitofp
// CHECK:       %[[M6:.*]] = arith.uitofp
// CHECK:       %[[M7:.*]] = arith.uitofp
// CHECK:       %[[H0:.*]] = arith.truncf %[[M0]] : f32 to f16
// CHECK-NEXT:  %[[B0:.*]] = arith.bitcast %[[H0]] : f16 to i16
// CHECK-NEXT:  %[[E0:.*]] = arith.extui %[[B0]] : i16 to i32
// CHECK-NEXT:  %[[H1:.*]] = arith.truncf %[[M1]] : f32 to f16
// CHECK-NEXT:  %[[B1:.*]] = arith.bitcast %[[H1]] : f16 to i16
// CHECK-NEXT:  %[[E1:.*]] = arith.extui %[[B1]] : i16 to i32
// CHECK:       arith.truncf %[[M2]] : f32 to f16
// CHECK:       arith.truncf %[[M3]] : f32 to f16
// CHECK-COUNT-4: arith.truncf %[[ZERO]] : f32 to f16
// CHECK:       arith.truncf %[[M4]] : f32 to f16
// CHECK:       arith.truncf %[[M5]] : f32 to f16
// CHECK:       arith.truncf %[[M6]] : f32 to f16
// CHECK:       arith.truncf %[[M7]] : f32 to f16
// CHECK-COUNT-4: arith.truncf %[[ZERO]] : f32 to f16
// CHECK:       %[[HI:.*]] = arith.shli %[[E1]], %[[C16:.*]] : i32
// CHECK-NEXT:  %[[R0:.*]] = arith.ori %[[E0]], %[[HI]] : i32
// CHECK:       builtin.unrealized_conversion_cast %[[R0]], %{{.*}} : i32, i32, i32, i32, i32, i32, i32, i32 to tensor<16x16xf16, #qgpu.blocked<
// BARE-LABEL:  func.func @q4k_m_pad
// BARE-NOT:    arith.mulf
// BARE:        func.return
func.func @q4k_m_pad(%m: !qgpu.memdesc<1x16x!qdot.block<q4_K>, #sh>) -> tensor<16x16xf16, #bl> {
  %v = qgpu.block_part %m {part = "m_pad"} : !qgpu.memdesc<1x16x!qdot.block<q4_K>, #sh> -> !qgpu.memdesc<16x16xf16, #mp>
  %r = qgpu.local_load %v : !qgpu.memdesc<16x16xf16, #mp> -> tensor<16x16xf16, #bl>
  func.return %r : tensor<16x16xf16, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#sp = #qgpu.block_part<{format = "q8_1_mmq", part = "s_pad", blocks = 2, valueDim = 1}>

// q8_1_mmq `s_pad`: each block's four sums (the fp16 at 4i + 2 of its ds4 header) at positions
// 0-3 of its 8, zeros at 4-7; the second block of the row 144 bytes on. One row per thread.
// CHECK-LABEL: func.func @q8_1_mmq_s_pad
// CHECK:       %[[C288:.*]] = arith.constant 288 : i32
// CHECK-NEXT:  %[[ROW:.*]] = arith.muli %{{.*}}, %[[C288]] : i32
// CHECK:       %[[S0B:.*]] = arith.addi %{{.*}}, %[[ROW]] : i32
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[S0A:.*]] = arith.addi %[[S0B]], %[[C2]] : i32
// CHECK-NEXT:  %[[S0H:.*]] = ptx.ld_shared %[[S0A]] : i16
// CHECK-NEXT:  %[[S0F:.*]] = arith.bitcast %[[S0H]] : i16 to f16
// CHECK-NEXT:  %[[S0:.*]] = arith.extf %[[S0F]] : f16 to f32
// CHECK:       arith.constant 6 : i32
// CHECK:       arith.constant 10 : i32
// CHECK:       arith.constant 14 : i32
// CHECK:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:       %[[C144:.*]] = arith.constant 144 : i32
// CHECK-NEXT:  arith.addi %[[ROW]], %[[C144]] : i32
// CHECK:       arith.truncf %[[S0]] : f32 to f16
// CHECK-COUNT-3: arith.truncf %{{.*}} : f32 to f16
// CHECK-COUNT-4: arith.truncf %[[ZERO]] : f32 to f16
// CHECK-COUNT-4: arith.truncf %{{.*}} : f32 to f16
// CHECK-COUNT-4: arith.truncf %[[ZERO]] : f32 to f16
// CHECK:       builtin.unrealized_conversion_cast {{.*}} : i32, i32, i32, i32, i32, i32, i32, i32 to tensor<32x16xf16, #qgpu.blocked<
func.func @q8_1_mmq_s_pad(%m: !qgpu.memdesc<32x2x!qdot.block<q8_1_mmq>, #sh>) -> tensor<32x16xf16, #bl> {
  %v = qgpu.block_part %m {part = "s_pad"} : !qgpu.memdesc<32x2x!qdot.block<q8_1_mmq>, #sh> -> !qgpu.memdesc<32x16xf16, #sp>
  %r = qgpu.local_load %v : !qgpu.memdesc<32x16xf16, #sp> -> tensor<32x16xf16, #bl>
  func.return %r : tensor<32x16xf16, #bl>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#sb = #qgpu.dot_scale<{opIdx = 1, parent = #mma}>
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#dm = #qgpu.block_part<{format = "q4_K", part = "dmin", blocks = 1, valueDim = 0}>

// q4_K `dmin`, one per super-block (column) as the dmin mma's B scale: the fp16 at byte 2,
// widened. Lane t (of its quad) holds columns 2t and 2t + 1 of each n tile: blocks at
// t · 288, + 144, + 8 · 144 = 1152 and + 1296.
// CHECK-LABEL: func.func @q4k_dmin
// CHECK:       %[[C288:.*]] = arith.constant 288 : i32
// CHECK-NEXT:  %[[COL:.*]] = arith.muli %{{.*}}, %[[C288]] : i32
// CHECK:       %[[B:.*]] = builtin.unrealized_conversion_cast %v : {{.*}} to i32
// CHECK:       %[[S0:.*]] = arith.addi %[[B]], %[[COL]] : i32
// CHECK-NEXT:  %[[C2:.*]] = arith.constant 2 : i32
// CHECK-NEXT:  %[[A0:.*]] = arith.addi %[[S0]], %[[C2]] : i32
// CHECK-NEXT:  %[[H0:.*]] = ptx.ld_shared %[[A0]] : i16
// CHECK-NEXT:  %[[F0:.*]] = arith.bitcast %[[H0]] : i16 to f16
// CHECK-NEXT:  %[[D0:.*]] = arith.extf %[[F0]] : f16 to f32
// CHECK-NEXT:  arith.constant 144 : i32
// CHECK:       ptx.ld_shared %{{.*}} : i16
// CHECK:       arith.constant 1152 : i32
// CHECK:       ptx.ld_shared %{{.*}} : i16
// CHECK:       arith.constant 1296 : i32
// CHECK:       ptx.ld_shared %{{.*}} : i16
// CHECK:       builtin.unrealized_conversion_cast %[[D0]], %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32 to tensor<16x1xf32, #qgpu.dot_scale<{opIdx = 1,
// CHECK-NOT:   ptx.ld_shared
func.func @q4k_dmin(%m: !qgpu.memdesc<1x16x!qdot.block<q4_K>, #sh>) -> tensor<16x1xf32, #sb> {
  %v = qgpu.block_part %m {part = "dmin"} : !qgpu.memdesc<1x16x!qdot.block<q4_K>, #sh> -> !qgpu.memdesc<16x1xf32, #dm>
  %r = qgpu.local_load %v : !qgpu.memdesc<16x1xf32, #dm> -> tensor<16x1xf32, #sb>
  func.return %r : tensor<16x1xf32, #sb>
}
