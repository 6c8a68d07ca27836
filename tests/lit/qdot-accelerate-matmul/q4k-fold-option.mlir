// RUN: qdot-opt %S/../../../examples/q4k_decode.mlir -p 'qdot-accelerate-matmul{arch=sm_90 q4k-fold=fma}' | filecheck %s --check-prefix=FMA
// RUN: qdot-opt %S/../../../examples/q4k_decode.mlir -p 'qdot-accelerate-matmul{arch=sm_90 q4k-fold=mma}' | filecheck %s --check-prefix=MMA
// RUN: qdot-opt %S/../../../examples/q4k_decode.mlir -p 'qdot-accelerate-matmul{arch=sm_90}' | filecheck %s --check-prefix=MMA
// RUN: not qdot-opt %S/../../../examples/q4k_decode.mlir -p 'qdot-accelerate-matmul{arch=sm_90 q4k-fold=rank1}' 2>&1 | filecheck %s --check-prefix=BAD
// q4k-fold chooses how a q4_K × q8_1_mmq dot (here the decode example, q4_K weights as the
// mma's A side) applies the dmin term. fma: the s8 mma carries the rank-1 fold (q4_K's mins
// and the q8_1_mmq sums, one FMA per accumulator and 32-value block at lowering) and no f16
// mma follows. mma (and auto): the s8 mma has no fold and an f16 mma per super-block adds it.

// FMA-LABEL: func.func @small_m_q8_1_q4_K_64_w2_splitk
// FMA:       qgpu.block_part %{{.*}} {part = "min"}
// FMA:       qgpu.mma %{{.*}}, %{{.*}}, %{{.*}} scale %{{.*}}, %{{.*}} fold %{{.*}}, %{{.*}} lhs = u8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"}
// FMA-NOT:   lhs = fp16

// MMA-LABEL: func.func @small_m_q8_1_q4_K_64_w2_splitk
// MMA:       qgpu.mma %{{[^ ,]+}}, %{{[^ ,]+}}, %{{[^ ,]+}} scale %{{[^ ,]+}}, %{{[^ ,]+}} lhs = u8 rhs = s8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"}
// MMA:       qgpu.mma {{.*}} lhs = fp16 rhs = fp16

// BAD: qdot-opt: error: qdot-accelerate-matmul: unknown q4k-fold 'rank1'; expected one of auto, mma, fma
