// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8 pad-block-rows=true}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' | filecheck %s --check-prefix=OFF
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8 pad-block-rows=true}' --remarks=qdot-accelerate-matmul -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARK
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' --remarks=qdot-accelerate-matmul -o /dev/null 2>&1 | filecheck %s --check-prefix=OFF-REMARK
// pad-block-rows=true: a staged block tile whose rows are an even number of 16-byte groups apart gets 16 bytes of
// padding per row (passes/support/block_dots.py, padded_row_bytes). The activation tile — two 144-byte q8_1_mmq
// blocks a token, 18 groups — becomes 304 bytes a row, so the eight rows an ldmatrix reads start on eight distinct
// bank groups (run 306 counted its reads at twice their ideal wavefronts); its block_part views carry the padding.
// W repacked by tile_weights is one contiguous run (its copy stays one run) and one 144-byte block a row (9 groups,
// odd): unpadded. W in ggml's order with one block a row: 9 groups, unpadded. Off by default (OFF): no rowPad, but
// for a kernel that carries qdot.pad_block_rows (MmqConfig.pad_block_rows: choose_mmq's one-token q4_K kernel
// over repacked W, run 317).

// The remark names the padding and who asked for it: the option here, the kernel's attribute in the last case.
// REMARK:      pad-block-rows.mlir:[[# @LINE + 26]]:5: remark: qdot-accelerate-matmul: rhs q8_1_mmq tile staged with its rows padded from 288 to 304 bytes (pad-block-rows=true: an ldmatrix's eight rows on distinct bank groups){{$}}
// OFF-REMARK-NOT: padded from 288 to 304 bytes (pad-block-rows
// OFF-REMARK:  remark: qdot-accelerate-matmul: rhs q8_1_mmq tile staged with its rows padded from 288 to 304 bytes (the kernel's qdot.pad_block_rows: an ldmatrix's eight rows on distinct bank groups){{$}}
// CHECK-LABEL: func.func @q4k_8_tokens_repacked
// CHECK-DAG:   qgpu.local_alloc %{{.*}} : (tensor<16x1x!qdot.block<q4_K>>) -> !qgpu.memdesc<16x1x!qdot.block<q4_K>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-DAG:   qgpu.local_alloc %{{.*}} : (tensor<2x8x!qdot.block<q8_1_mmq>>) -> !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1], rowPad = 16}>>
// CHECK:       qgpu.block_part {{.*}}{part = "qs"}{{.*}}-> !qgpu.memdesc<256x8xi8, #qgpu.block_part<{format = "q8_1_mmq", part = "qs", blocks = 2, valueDim = 0, rowPad = 16}>>
// OFF-LABEL:   func.func @q4k_8_tokens_repacked
// OFF-NOT:     rowPad
func.func @q4k_8_tokens_repacked(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64}) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %c1], [%c1, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<16x1x!qdot.block<q4_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<16x1x!qdot.block<q4_K>> -> tensor<16x1x!qdot.block<q4_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_K rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<q4_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

// -----

// CHECK-LABEL: func.func @q4k_8_tokens_ggml_order
// CHECK-DAG:   qgpu.local_alloc %{{.*}} : (tensor<16x1x!qdot.block<q4_K>>) -> !qgpu.memdesc<16x1x!qdot.block<q4_K>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>>
// CHECK-DAG:   qgpu.local_alloc %{{.*}} : (tensor<2x8x!qdot.block<q8_1_mmq>>) -> !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1], rowPad = 16}>>
func.func @q4k_8_tokens_ggml_order(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64}) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kw], [%kw, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<16x1x!qdot.block<q4_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%c0, %kk] : !qdot.desc<16x1x!qdot.block<q4_K>> -> tensor<16x1x!qdot.block<q4_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_K rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<q4_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}

// -----

// OFF-LABEL:   func.func @q4k_8_tokens_repacked_attribute
// OFF:         qgpu.local_alloc %{{.*}} : (tensor<2x8x!qdot.block<q8_1_mmq>>) -> !qgpu.memdesc<2x8x!qdot.block<q8_1_mmq>, #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1], rowPad = 16}>>
func.func @q4k_8_tokens_repacked_attribute(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>,
    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64}) attributes {qdot.kernel, qdot.num_warps = 1 : i64, qdot.pad_block_rows} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c128 : index
  %kw = arith.divui %k, %c256 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %c1], [%c1, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<16x1x!qdot.block<q4_K>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %yt_desc = qdot.make_desc %y_ptr, [%n, %m], [%c1, %n] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<16x8xf32>) {
    %kkx = arith.muli %kk, %c2 : index
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<16x1x!qdot.block<q4_K>> -> tensor<16x1x!qdot.block<q4_K>>
    %x = qdot.load %x_desc[%kkx, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
    %d = qdot.dot_scaled %w, %x, %acc_i lhs = q4_K rhs = q8_1_mmq
         : tensor<16x1x!qdot.block<q4_K>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
    scf.yield %d : tensor<16x8xf32>
  }
  qdot.store %yt_desc[%c0, %c0], %acc {reduce = "add"} : !qdot.desc<16x8xf32>, tensor<16x8xf32>
  func.return
}
