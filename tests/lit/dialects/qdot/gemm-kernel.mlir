// RUN: qdot-opt %s --split-input-file | filecheck %s
// RUN: QDOT_ROUNDTRIP
// RUN: QDOT_GENERIC_ROUNDTRIP
// Whole kernels written in the qdot vocabulary (candidates for examples/): each parses,
// verifies and prints back, in custom and generic form.

// C[M, N] = (A · 2^As)[M, K] × (B · 2^Bs)[K, N]: A e4m3, B e2m1 packed two per byte
// along K (stored [K/2, N]), ue8m0 scales per 32 K-values (As [M, K/32], Bs [N, K/32]).
// One program computes a 128x128 tile of C; the K loop carries the accumulator.
// CHECK-LABEL: func.func @gemm_e4m3_e2m1_mx
// CHECK-SAME:    (%[[A_PTR:[^:]+]]: !qdot.ptr<f8E4M3FN>, %[[AS_PTR:[^:]+]]: !qdot.ptr<f8E8M0FNU>, %[[B_PTR:[^:]+]]: !qdot.ptr<i8>, %[[BS_PTR:[^:]+]]: !qdot.ptr<f8E8M0FNU>, %[[C_PTR:[^:]+]]: !qdot.ptr<f32>, %[[M:[^:]+]]: index, %[[N:[^:]+]]: index, %[[K:[^:]+]]: index)
// CHECK-SAME:    attributes {qdot.kernel, qdot.num_warps = 4 : i64}
// CHECK:         %[[PID_M:.+]] = qdot.program_id x
// CHECK:         %[[PID_N:.+]] = qdot.program_id y
// CHECK:         %[[A_DESC:.+]] = qdot.make_desc %[[A_PTR]], [%[[M]], %[[K]]], [%[[K]], %{{.+}}] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<128x128xf8E4M3FN>
// CHECK:         %[[AS_DESC:.+]] = qdot.make_desc %[[AS_PTR]], {{.+}} -> !qdot.desc<128x4xf8E8M0FNU>
// CHECK:         %[[B_DESC:.+]] = qdot.make_desc %[[B_PTR]], {{.+}} : !qdot.ptr<i8> -> !qdot.desc<64x128xi8>
// CHECK:         %[[BS_DESC:.+]] = qdot.make_desc %[[BS_PTR]], {{.+}} -> !qdot.desc<128x4xf8E8M0FNU>
// CHECK:         %[[C_DESC:.+]] = qdot.make_desc %[[C_PTR]], [%[[M]], %[[N]]], {{.+}} -> !qdot.desc<128x128xf32>
// CHECK:         %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
// CHECK:         %[[ACC:.+]] = scf.for %[[KK:.+]] = %{{.+}} to %[[K]] step %{{.+}} iter_args(%[[ACC_I:.+]] = %[[ZERO]]) -> (tensor<128x128xf32>) {
// CHECK:           %[[A:.+]] = qdot.load %[[A_DESC]][%{{.+}}, %[[KK]]] : !qdot.desc<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
// CHECK:           %[[AS:.+]] = qdot.load %[[AS_DESC]]
// CHECK:           %[[B:.+]] = qdot.load %[[B_DESC]]
// CHECK:           %[[BS:.+]] = qdot.load %[[BS_DESC]]
// CHECK:           %[[D:.+]] = qdot.dot_scaled %[[A]] scale %[[AS]], %[[B]] scale %[[BS]], %[[ACC_I]] lhs = e4m3 rhs = e2m1
// CHECK:           scf.yield %[[D]] : tensor<128x128xf32>
// CHECK:         }
// CHECK:         qdot.store %[[C_DESC]][%{{.+}}, %{{.+}}], %[[ACC]] : !qdot.desc<128x128xf32>, tensor<128x128xf32>
// CHECK-GENERIC-LABEL: "func.func"() <{sym_name = "gemm_e4m3_e2m1_mx"
// CHECK-GENERIC:       "scf.for"
// CHECK-GENERIC:       "qdot.dot_scaled"
// CHECK-GENERIC:       "scf.yield"
// CHECK-GENERIC:       "qdot.store"
// CHECK-GENERIC:       qdot.kernel, qdot.num_warps = 4 : i64
func.func @gemm_e4m3_e2m1_mx(%a_ptr: !qdot.ptr<f8E4M3FN>, %as_ptr: !qdot.ptr<f8E8M0FNU>,
                             %b_ptr: !qdot.ptr<i8>, %bs_ptr: !qdot.ptr<f8E8M0FNU>,
                             %c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %pid_m = qdot.program_id x
  %pid_n = qdot.program_id y
  %off_m = arith.muli %pid_m, %c128 : index
  %off_n = arith.muli %pid_n, %c128 : index
  %k_bytes = arith.divui %k, %c2 : index
  %k_scales = arith.divui %k, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<128x128xf8E4M3FN>
  %as_desc = qdot.make_desc %as_ptr, [%m, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<128x4xf8E8M0FNU>
  %b_desc = qdot.make_desc %b_ptr, [%k_bytes, %n], [%n, %c1] : !qdot.ptr<i8> -> !qdot.desc<64x128xi8>
  %bs_desc = qdot.make_desc %bs_ptr, [%n, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<128x4xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<128x128xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %acc = scf.for %kk = %c0 to %k step %c128 iter_args(%acc_i = %zero) -> (tensor<128x128xf32>) {
    %kk_bytes = arith.divui %kk, %c2 : index
    %kk_scales = arith.divui %kk, %c32 : index
    %a = qdot.load %a_desc[%off_m, %kk] : !qdot.desc<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
    %as = qdot.load %as_desc[%off_m, %kk_scales] : !qdot.desc<128x4xf8E8M0FNU> -> tensor<128x4xf8E8M0FNU>
    %b = qdot.load %b_desc[%kk_bytes, %off_n] : !qdot.desc<64x128xi8> -> tensor<64x128xi8>
    %bs = qdot.load %bs_desc[%off_n, %kk_scales] : !qdot.desc<128x4xf8E8M0FNU> -> tensor<128x4xf8E8M0FNU>
    %d = qdot.dot_scaled %a scale %as, %b scale %bs, %acc_i lhs = e4m3 rhs = e2m1
         : tensor<128x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU> * tensor<64x128xi8>, tensor<128x4xf8E8M0FNU>
         -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  qdot.store %c_desc[%off_m, %off_n], %acc : !qdot.desc<128x128xf32>, tensor<128x128xf32>
  func.return
}

// -----

// llama.cpp-style q4_K × q8_1: activations X [T, K] f32 are quantized once per GEMM
// by @quantize_q8_1 into q8_1 blocks [T, K/32]; @gemm_q4_K_q8_1 computes
// Y[R, T] = W[R, K] · X^T with W stored as q4_K blocks [R, K/256].
// CHECK-LABEL: func.func @quantize_q8_1
// CHECK:         %[[X:.+]] = qdot.load %{{.+}} : !qdot.desc<16x256xf32> -> tensor<16x256xf32>
// CHECK:         %[[Q:.+]] = qdot.quantize %[[X]] format = q8_1 : tensor<16x256xf32> -> tensor<16x8x!qdot.block<q8_1>>
// CHECK:         qdot.store %{{.+}}, %[[Q]] : !qdot.desc<16x8x!qdot.block<q8_1>>, tensor<16x8x!qdot.block<q8_1>>
func.func @quantize_q8_1(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1>>, %t: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %pid_t = qdot.program_id x
  %pid_k = qdot.program_id y
  %off_t = arith.muli %pid_t, %c16 : index
  %off_k = arith.muli %pid_k, %c256 : index
  %off_kb = arith.divui %off_k, %c32 : index
  %kb = arith.divui %k, %c32 : index
  %x_desc = qdot.make_desc %x_ptr, [%t, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x256xf32>
  %q_desc = qdot.make_desc %q_ptr, [%t, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<16x8x!qdot.block<q8_1>>
  %x = qdot.load %x_desc[%off_t, %off_k] : !qdot.desc<16x256xf32> -> tensor<16x256xf32>
  %q = qdot.quantize %x format = q8_1 : tensor<16x256xf32> -> tensor<16x8x!qdot.block<q8_1>>
  qdot.store %q_desc[%off_t, %off_kb], %q : !qdot.desc<16x8x!qdot.block<q8_1>>, tensor<16x8x!qdot.block<q8_1>>
  func.return
}

// CHECK-LABEL: func.func @gemm_q4_K_q8_1
// CHECK:         scf.for
// CHECK:           %[[W:.+]] = qdot.load %{{.+}} : !qdot.desc<64x1x!qdot.block<q4_K>> -> tensor<64x1x!qdot.block<q4_K>>
// CHECK:           %[[XQ:.+]] = qdot.load %{{.+}} : !qdot.desc<16x8x!qdot.block<q8_1>> -> tensor<16x8x!qdot.block<q8_1>>
// CHECK:           %[[XT:.+]] = qdot.trans %[[XQ]] {order = array<i64: 1, 0>} : tensor<16x8x!qdot.block<q8_1>> -> tensor<8x16x!qdot.block<q8_1>>
// CHECK:           qdot.dot_scaled %[[W]], %[[XT]], %{{.+}} lhs = q4_K rhs = q8_1 : tensor<64x1x!qdot.block<q4_K>> * tensor<8x16x!qdot.block<q8_1>> -> tensor<64x16xf32>
func.func @gemm_q4_K_q8_1(%w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %x_ptr: !qdot.ptr<!qdot.block<q8_1>>,
                          %y_ptr: !qdot.ptr<f32>, %r: index, %t: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %pid_r = qdot.program_id x
  %pid_t = qdot.program_id y
  %off_r = arith.muli %pid_r, %c64 : index
  %off_t = arith.muli %pid_t, %c16 : index
  %k_super = arith.divui %k, %c256 : index
  %k_blocks = arith.divui %k, %c32 : index
  %w_desc = qdot.make_desc %w_ptr, [%r, %k_super], [%k_super, %c1] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<64x1x!qdot.block<q4_K>>
  %x_desc = qdot.make_desc %x_ptr, [%t, %k_blocks], [%k_blocks, %c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<16x8x!qdot.block<q8_1>>
  %y_desc = qdot.make_desc %y_ptr, [%r, %t], [%t, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x16xf32>
  %acc = scf.for %kk = %c0 to %k step %c256 iter_args(%acc_i = %zero) -> (tensor<64x16xf32>) {
    %kk_super = arith.divui %kk, %c256 : index
    %kk_blocks = arith.divui %kk, %c32 : index
    %w = qdot.load %w_desc[%off_r, %kk_super] : !qdot.desc<64x1x!qdot.block<q4_K>> -> tensor<64x1x!qdot.block<q4_K>>
    %xq = qdot.load %x_desc[%off_t, %kk_blocks] : !qdot.desc<16x8x!qdot.block<q8_1>> -> tensor<16x8x!qdot.block<q8_1>>
    %xt = qdot.trans %xq {order = array<i64: 1, 0>} : tensor<16x8x!qdot.block<q8_1>> -> tensor<8x16x!qdot.block<q8_1>>
    %d = qdot.dot_scaled %w, %xt, %acc_i lhs = q4_K rhs = q8_1
         : tensor<64x1x!qdot.block<q4_K>> * tensor<8x16x!qdot.block<q8_1>> -> tensor<64x16xf32>
    scf.yield %d : tensor<64x16xf32>
  }
  qdot.store %y_desc[%off_r, %off_t], %acc : !qdot.desc<64x16xf32>, tensor<64x16xf32>
  func.return
}
