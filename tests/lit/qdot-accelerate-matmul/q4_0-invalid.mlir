// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}' > %t.int8
// RUN: filecheck %s < %t.int8
// RUN: grep -c ' error: ' %t.int8 | filecheck %s --check-prefix=INT8-COUNT
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90 strategy=dequant-bf16}' > %t.bf16
// RUN: filecheck %s --check-prefix=BF16 < %t.bf16
// RUN: grep -c ' error: ' %t.bf16 | filecheck %s --check-prefix=BF16-COUNT
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_89 strategy=promote-fp8}' | filecheck %s --check-prefix=FP8
// What the q4_0 lowering refuses, in file order. A q4_0 tile is staged as raw 18-byte blocks and
// its nibbles are upcast to s8 at use, so (as for q4_K) the blocks must be contiguous along K in
// memory, on either side of the dot; and a q4_0 dot is a ggml block dot, which only the s8 plan
// (promote-int8) runs: dequant-bf16 and promote-fp8 refuse it by name, even where the layout is
// fine (the last case, which promote-int8 lowers).
// INT8-COUNT: {{^2$}}
// BF16-COUNT: {{^3$}}

// The prefill orientation with W stored with stride 1 along N: its blocks are not contiguous along K.
func.func @w_n_contiguous(%x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %w_ptr: !qdot.ptr<!qdot.block<q4_0>>, %m: index, %n: index, %kx: index, %kwb: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<32x2x!qdot.block<q8_1_mmq>>
  %w_desc = qdot.make_desc %w_ptr, [%kwb, %n], [%n, %c1] : !qdot.ptr<!qdot.block<q4_0>> -> !qdot.desc<8x16x!qdot.block<q4_0>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<32x2x!qdot.block<q8_1_mmq>> -> tensor<32x2x!qdot.block<q8_1_mmq>>
  %w = qdot.load %w_desc[%c0, %c0] : !qdot.desc<8x16x!qdot.block<q4_0>> -> tensor<8x16x!qdot.block<q4_0>>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
  %d = qdot.dot_scaled %x, %w, %zero lhs = q8_1_mmq rhs = q4_0 : tensor<32x2x!qdot.block<q8_1_mmq>> * tensor<8x16x!qdot.block<q4_0>> -> tensor<32x16xf32>
  func.return
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op rhs blocks must be contiguous along K in memory (stride 1 on dimension 0 of its descriptor)
// BF16:  q4_0-invalid.mlir:[[# @LINE - 4]]:3: error: 'qdot.dot_scaled' op block formats (q8_1_mmq × q4_0) carry their scales inside ggml blocks and take strategy 'promote-int8', not 'dequant-bf16'
// FP8:   q4_0-invalid.mlir:[[# @LINE - 5]]:3: error: 'qdot.dot_scaled' op block formats (q8_1_mmq × q4_0) carry their scales inside ggml blocks and take strategy 'promote-int8', not 'promote-fp8'

// -----

// The decode orientation (q4_0 as the lhs) with W stored with stride 1 along N (its rows).
func.func @w_lhs_n_contiguous(%w_ptr: !qdot.ptr<!qdot.block<q4_0>>, %x_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %n: index, %m: index, %kwb: index, %kx: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kwb], [%c1, %n] : !qdot.ptr<!qdot.block<q4_0>> -> !qdot.desc<16x8x!qdot.block<q4_0>>
  %x_desc = qdot.make_desc %x_ptr, [%kx, %m], [%c1, %kx] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x8x!qdot.block<q8_1_mmq>>
  %w = qdot.load %w_desc[%c0, %c0] : !qdot.desc<16x8x!qdot.block<q4_0>> -> tensor<16x8x!qdot.block<q4_0>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<2x8x!qdot.block<q8_1_mmq>> -> tensor<2x8x!qdot.block<q8_1_mmq>>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  %d = qdot.dot_scaled %w, %x, %zero lhs = q4_0 rhs = q8_1_mmq : tensor<16x8x!qdot.block<q4_0>> * tensor<2x8x!qdot.block<q8_1_mmq>> -> tensor<16x8xf32>
  func.return
}
// CHECK: q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op lhs blocks must be contiguous along K in memory (stride 1 on dimension 1 of its descriptor)
// BF16:  q4_0-invalid.mlir:[[# @LINE - 4]]:3: error: 'qdot.dot_scaled' op block formats (q4_0 × q8_1_mmq) carry their scales inside ggml blocks and take strategy 'promote-int8', not 'dequant-bf16'
// FP8:   q4_0-invalid.mlir:[[# @LINE - 5]]:3: error: 'qdot.dot_scaled' op block formats (q4_0 × q8_1_mmq) carry their scales inside ggml blocks and take strategy 'promote-int8', not 'promote-fp8'

// -----

// A well-laid-out q4_0 × q8_0 tile: promote-int8 would run it; the other strategies refuse it.
func.func @q4_0_q8_0(%w_ptr: !qdot.ptr<!qdot.block<q4_0>>, %x_ptr: !qdot.ptr<!qdot.block<q8_0>>, %n: index, %m: index, %kb: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w_desc = qdot.make_desc %w_ptr, [%n, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q4_0>> -> !qdot.desc<16x4x!qdot.block<q4_0>>
  %x_desc = qdot.make_desc %x_ptr, [%kb, %m], [%c1, %kb] : !qdot.ptr<!qdot.block<q8_0>> -> !qdot.desc<4x32x!qdot.block<q8_0>>
  %w = qdot.load %w_desc[%c0, %c0] : !qdot.desc<16x4x!qdot.block<q4_0>> -> tensor<16x4x!qdot.block<q4_0>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<4x32x!qdot.block<q8_0>> -> tensor<4x32x!qdot.block<q8_0>>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x32xf32>
  %d = qdot.dot_scaled %w, %x, %zero lhs = q4_0 rhs = q8_0 : tensor<16x4x!qdot.block<q4_0>> * tensor<4x32x!qdot.block<q8_0>> -> tensor<16x32xf32>
  func.return
}
// BF16:  q4_0-invalid.mlir:[[# @LINE - 3]]:3: error: 'qdot.dot_scaled' op block formats (q4_0 × q8_0) carry their scales inside ggml blocks and take strategy 'promote-int8', not 'dequant-bf16'
// FP8:   q4_0-invalid.mlir:[[# @LINE - 4]]:3: error: 'qdot.dot_scaled' op block formats (q4_0 × q8_0) carry their scales inside ggml blocks and take strategy 'promote-int8', not 'promote-fp8'
// CHECK-LABEL: func.func @q4_0_q8_0
// CHECK:       qgpu.upcast %{{.*}} from = q4_0 to = s8
// CHECK:       qgpu.mma {{.*}} lhs = s8 rhs = s8
