// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90 strategy=dequant-bf16}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_80 strategy=dequant-bf16}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_120a strategy=dequant-bf16}' | filecheck %s
// strategy=dequant-bf16 (sm_80+): both operands become bf16 in registers and a
// m16n8k16 bf16 mma runs them; power-of-two block scales are folded into the conversion.
// Forced on sm_120a it decides the same, output for output (a bf16 qgpu.mma, no scales on it).

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// e4m3 × e2m1 with ue8m0 scales: each upcast takes its side's scales (A's in the A scale
// layout, B's in the layout that follows the B operand columns, operand = true), and the mma
// gets no scales at all.
// CHECK-LABEL: func.func @e4m3_e2m1_ue8m0
// A (K contiguous, whole 32-value runs) is dequantized once per CTA: blocked runs of 32 values
// with their scale, converted, stored as bf16, read back as the mma operand.
// CHECK:       %[[ARAW:.*]] = qgpu.local_load %{{.*}} -> tensor<32x64xf8E4M3FN, #qgpu.blocked<{sizePerThread = [1, 32], {{.*}}}>>
// CHECK:       %[[SA:.*]] = qgpu.local_load %{{.*}} -> tensor<32x2xf8E8M0FNU, #qgpu.blocked<{sizePerThread = [1, 1], {{.*}}}>>
// CHECK:       %[[AUP:.*]] = qgpu.upcast %[[ARAW]] scale %[[SA]] from = e4m3 to = bf16 : {{.*}} -> tensor<32x64xbf16, #qgpu.blocked<{sizePerThread = [1, 32], {{.*}}}>>
// CHECK:       %[[ABUF:.*]] = qgpu.local_alloc %[[AUP]] : {{.*}} -> !qgpu.memdesc<32x64xbf16, #qgpu.shared<{{.*}}>>
// CHECK:       %[[AR:.*]] = qgpu.local_load %[[ABUF]] : {{.*}} -> tensor<32x64xbf16, #qgpu.dot_op<{opIdx = 0, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 8}>>
// B here is a function argument whose K is not known to be contiguous: upcast in registers,
// its scale in the layout that follows the B operand columns (operand = true).
// CHECK:       %[[BP:.*]] = qgpu.local_load %{{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 4}>>
// CHECK:       %[[SB:.*]] = qgpu.local_load %{{.*}} -> tensor<32x2xf8E8M0FNU, #qgpu.dot_scale<{opIdx = 1, parent = [[MMA]], operand = true}>>
// CHECK:       %[[BR:.*]] = qgpu.upcast %[[BP]] scale %[[SB]] from = e2m1 to = bf16 : {{.*}} -> tensor<64x32xbf16, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 8}>>
// CHECK:       qgpu.mma %[[AR]], %[[BR]], %{{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"} :
// CHECK-NOT:   rescale
func.func @e4m3_e2m1_ue8m0(%a: tensor<32x64xf8E4M3FN>, %sa: tensor<32x2xf8E8M0FNU>, %b: tensor<32x32xi8>,
                           %sb: tensor<32x2xf8E8M0FNU>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e4m3 rhs = e2m1
     : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// NVFP4's ue4m3 scales (4 significant bits) also fold exactly into bf16 values: the upcast
// takes the [N, K/16] scales.
// CHECK-LABEL: func.func @nvfp4
// CHECK:       qgpu.upcast %{{.*}} scale %{{.*}} from = e2m1 to = bf16 : tensor<32x32xi8, {{.*}}>, tensor<32x4xf8E4M3FN, #qgpu.blocked<{sizePerThread = [1, 2], {{.*}}}>> -> tensor<32x64xbf16
// CHECK:       qgpu.upcast %{{.*}} scale %{{.*}} from = e2m1 to = bf16 : tensor<32x32xi8, {{.*}}>, tensor<32x4xf8E4M3FN, #qgpu.dot_scale<{opIdx = 1, {{.*}}operand = true}>> -> tensor<64x32xbf16
// CHECK:       qgpu.mma {{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"} :
func.func @nvfp4(%a: tensor<32x32xi8>, %sa: tensor<32x4xf8E4M3FN>, %b: tensor<32x32xi8>, %sb: tensor<32x4xf8E4M3FN>,
                 %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e2m1 rhs = e2m1
     : tensor<32x32xi8>, tensor<32x4xf8E4M3FN> * tensor<32x32xi8>, tensor<32x4xf8E4M3FN> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// bf16 × bf16 needs no conversion: the operands are read in the ISA arrangement (kWidth 2, two
// bf16 per register, what ldmatrix delivers).
// CHECK-LABEL: func.func @bf16_bf16
// CHECK-NOT:   qgpu.upcast
// CHECK:       qgpu.mma {{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"} : tensor<32x64xbf16, #qgpu.dot_op<{opIdx = 0, {{.*}}kWidth = 2}>>, tensor<64x32xbf16, #qgpu.dot_op<{opIdx = 1, {{.*}}kWidth = 2}>>
func.func @bf16_bf16(%a: tensor<32x64xbf16>, %b: tensor<64x32xbf16>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = bf16 rhs = bf16 : tensor<32x64xbf16> * tensor<64x32xbf16> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// With an fp16 operand the compute type is fp16 (its range cannot hold folded scales);
// unscaled, nothing is rescaled.
// CHECK-LABEL: func.func @fp16_e2m1
// CHECK:       %[[BR:.*]] = qgpu.upcast %{{.*}} from = e2m1 to = fp16 : {{.*}} -> tensor<64x32xf16,
// CHECK:       qgpu.mma %{{.*}}, %[[BR]], %{{.*}} lhs = fp16 rhs = fp16 {qdot.strategy = "dequant-bf16"} :
func.func @fp16_e2m1(%a: tensor<32x64xf16>, %b: tensor<32x32xi8>, %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = e2m1 : tensor<32x64xf16> * tensor<32x32xi8> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// An fp16 operand makes the compute type fp16 (the f16 mma). NVFP4's ue4m3 scales fold into
// the fp16 values as into bf16 ones — |e2m1 · ue4m3| lies in [2^-10, 2688], exact in fp16 — so
// the mma takes no scales and no per-block rescale. The e2m1 tile here is packed along K but
// N-major ([K/2, N], a function argument): converted in registers, 8 values wide on both sides.
// (Rescaled per 16-value block it needed k16 tiles 4 values wide, half a packed register, and
// failed to compile.)
// CHECK-LABEL: func.func @fp16_nvfp4_n_major
// CHECK:       %[[BP:.*]] = qgpu.local_load %{{.*}} -> tensor<32x32xi8, #qgpu.dot_op<{opIdx = 1, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 4}>>
// CHECK:       %[[BR:.*]] = qgpu.upcast %[[BP]] scale %{{.*}} from = e2m1 to = fp16 : {{.*}} -> tensor<64x32xf16, #qgpu.dot_op<{opIdx = 1, parent = [[MMA]], kWidth = 8}>>
// CHECK:       qgpu.mma %{{.*}}, %[[BR]], %{{.*}} lhs = fp16 rhs = fp16 {qdot.strategy = "dequant-bf16"} :
func.func @fp16_nvfp4_n_major(%a: tensor<32x64xf16>, %b: tensor<32x32xi8>, %sb: tensor<32x4xf8E4M3FN>,
                              %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b scale %sb, %acc lhs = fp16 rhs = e2m1
     : tensor<32x64xf16> * tensor<32x32xi8>, tensor<32x4xf8E4M3FN> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>

// ue8m0 scales do not fit fp16's range (2^-127 … 2^127): with fp16 compute they are applied to
// the f32 accumulator per 32-value block, and the mma takes them.
// CHECK-LABEL: func.func @fp16_mxfp4
// CHECK:       %[[BR:.*]] = qgpu.upcast %{{.*}} from = e2m1 to = fp16 : {{.*}} -> tensor<64x32xf16, #qgpu.dot_op<{opIdx = 1, parent = [[MMA:#qgpu.mma<[^>]*>]], kWidth = 8}>>
// CHECK:       qgpu.mma %{{.*}}, %[[BR]], %{{.*}} scale %{{.*}}, %{{.*}} lhs = fp16 rhs = fp16 {qdot.strategy = "dequant-bf16", rescale = "per_block"} :
func.func @fp16_mxfp4(%a: tensor<32x64xf16>, %b: tensor<32x32xi8>, %sb: tensor<32x2xf8E8M0FNU>,
                      %acc: tensor<32x32xf32, #bl>) -> tensor<32x32xf32, #bl> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b scale %sb, %acc lhs = fp16 rhs = e2m1
     : tensor<32x64xf16> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32, #bl>
  func.return %d : tensor<32x32xf32, #bl>
}
