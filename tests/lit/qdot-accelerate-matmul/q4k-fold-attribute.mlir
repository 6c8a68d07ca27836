// RUN: sed 's/attributes {qdot.kernel, qdot.num_warps = 2 : i64}/attributes {qdot.kernel, qdot.num_warps = 2 : i64, qdot.q4k_fold = "fma"}/' %S/../../../examples/q4k_decode.mlir > %t.fma.mlir
// RUN: sed 's/attributes {qdot.kernel, qdot.num_warps = 2 : i64}/attributes {qdot.kernel, qdot.num_warps = 2 : i64, qdot.q4k_fold = "mma"}/' %S/../../../examples/q4k_decode.mlir > %t.mma.mlir
// RUN: qdot-opt %t.fma.mlir -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s --check-prefix=FMA
// RUN: qdot-opt %t.fma.mlir -p 'qdot-accelerate-matmul{arch=sm_90}' --remarks=qdot-accelerate-matmul -o /dev/null 2>&1 | filecheck %s --check-prefix=FMA-REMARK
// RUN: qdot-opt %t.fma.mlir -p 'qdot-accelerate-matmul{arch=sm_90 q4k-fold=mma}' | filecheck %s --check-prefix=MMA
// RUN: qdot-opt %t.fma.mlir -p 'qdot-accelerate-matmul{arch=sm_90 q4k-fold=mma}' --remarks=qdot-accelerate-matmul -o /dev/null 2>&1 | filecheck %s --check-prefix=OVERRIDE-REMARK
// RUN: qdot-opt %t.mma.mlir -p 'qdot-accelerate-matmul{arch=sm_90 q4k-fold=fma}' --remarks=qdot-accelerate-matmul -o /dev/null 2>&1 | filecheck %s --check-prefix=OVERRIDE-FMA-REMARK
// RUN: qdot-opt %t.mma.mlir -p 'qdot-accelerate-matmul{arch=sm_90 q4k-fold=mma}' --remarks=qdot-accelerate-matmul -o /dev/null 2>&1 | filecheck %s --check-prefix=AGREE-REMARK
// The kernel attribute qdot.q4k_fold (MmqConfig(q4k_fold=...), which choose_mmq writes on the
// one-token kernels) decides the fold where the pass's q4k-fold is auto: examples/q4k_decode.mlir
// with qdot.q4k_fold = "fma" takes an FMA per block under the default pass, where without it
// auto takes the f16 mma (q4k-fold-option.mlir). An explicit q4k-fold applies to every kernel,
// and the remark says which attribute it overrode.

// FMA-LABEL: func.func @small_m_q8_1_q4_K_64_w2_splitk
// FMA:       qgpu.mma %{{.*}}, %{{.*}}, %{{.*}} scale %{{.*}}, %{{.*}} fold %{{.*}}, %{{.*}} lhs = u8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"}
// FMA-NOT:   lhs = fp16

// FMA-REMARK: remark: qdot-accelerate-matmul: mma.sync s8 in 16x8 tiles, {{.*}}; q4_K dmin term as an FMA per block (the kernel's qdot.q4k_fold = fma){{$}}

// MMA-LABEL: func.func @small_m_q8_1_q4_K_64_w2_splitk
// MMA:       qgpu.mma {{.*}} lhs = fp16 rhs = fp16

// OVERRIDE-REMARK: remark: qdot-accelerate-matmul: mma.sync s8 in 16x8 tiles, {{.*}}; q4_K dmin term as an f16 mma per super-block (q4k-fold=mma, over the kernel's qdot.q4k_fold = fma){{$}}
// OVERRIDE-FMA-REMARK: q4_K dmin term as an FMA per block (q4k-fold=fma, over the kernel's qdot.q4k_fold = mma){{$}}
// AGREE-REMARK: q4_K dmin term as an f16 mma per super-block (q4k-fold=mma){{$}}
