// RUN: qdot-opt %S/../../../examples/q4k_decode.mlir -p 'qdot-accelerate-matmul{arch=sm_90 q4k-fold=fma}' --remarks=qdot-accelerate-matmul -o /dev/null 2>&1 | filecheck %s --check-prefix=MMQ-FMA
// RUN: qdot-opt %S/../../../examples/q4k_decode.mlir -p 'qdot-accelerate-matmul{arch=sm_90 q4k-fold=mma}' --remarks=qdot-accelerate-matmul -o /dev/null 2>&1 | filecheck %s --check-prefix=MMQ-MMA
// RUN: qdot-opt %S/../../../examples/q4k_decode.mlir -p 'qdot-accelerate-matmul{arch=sm_90}' --remarks=qdot-accelerate-matmul -o /dev/null 2>&1 | filecheck %s --check-prefix=MMQ-AUTO
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90 q4k-fold=mma}' | filecheck %s --check-prefix=Q8_1
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_90 q4k-fold=mma}' --remarks=qdot-accelerate-matmul -o /dev/null 2>&1 | filecheck %s --check-prefix=Q8_1-REMARK
// How a q4_K dot applies its dmin term, as the q4k-fold option asks and as --remarks says it
// (passes/accelerate_matmul.py, _dmin_remark; passes/support/block_dots.py, min_term_by_mma).
// Against q8_1_mmq activations (examples/q4k_decode.mlir, whose IR q4k-fold-option.mlir pins)
// q4k-fold=fma takes an FMA per block, q4k-fold=mma an f16 mma per super-block, and auto the
// mma for this decode shape. Against plain q8_1 (below) the term is an FMA per block whatever
// is asked: q4k-fold=mma changes nothing, the qgpu.mma keeps its `fold` operands and no f16 dmin
// mma appears.

// MMQ-FMA:  remark: qdot-accelerate-matmul: mma.sync s8 in 16x8 tiles, {{.*}}, scales applied to the f32 accumulator per 32-value block; q4_K dmin term as an FMA per block (q4k-fold=fma){{$}}
// MMQ-MMA:  remark: qdot-accelerate-matmul: mma.sync s8 in 16x8 tiles, {{.*}}, scales applied to the f32 accumulator per 32-value block; q4_K dmin term as an f16 mma per super-block (q4k-fold=mma){{$}}
// MMQ-AUTO: remark: qdot-accelerate-matmul: mma.sync s8 in 16x8 tiles, {{.*}}, scales applied to the f32 accumulator per 32-value block; q4_K dmin term as an f16 mma per super-block (q4k-fold=auto){{$}}

// Q8_1-LABEL:  func.func @q8_1_q4k
// Q8_1-NOT:    qdot.fold
// Q8_1:        qgpu.mma %{{.*}} scale %{{.*}}, %{{.*}} fold %{{.*}}, %{{.*}} lhs = s8 rhs = u8 {qdot.strategy = "promote-int8", qdot.scale_bits = 17 : i64, rescale = "per_block"}
// Q8_1-NOT:    lhs = fp16
// Q8_1-NOT:    qdot.fold
// Q8_1-REMARK: q4k-fold-remarks.mlir:[[# @LINE + 19]]:5: remark: qdot-accelerate-matmul: mma.sync s8 in 16x8 tiles, warps 1x1 (a 16x16 tile each), kWidth 4, scales applied to the f32 accumulator per 32-value block; q4_K dmin term as an FMA per block (q4k-fold=mma){{$}}
func.func @q8_1_q4k(%x_ptr: !qdot.ptr<!qdot.block<q8_1>>, %w_ptr: !qdot.ptr<!qdot.block<q4_K>>, %y_ptr: !qdot.ptr<f32>,
                    %m: index, %n: index, %k: index {qdot.divisibility = 256 : i64})
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %kx = arith.divui %k, %c32 : index
  %kw = arith.divui %k, %c256 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %kx], [%kx, %c1] : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<16x8x!qdot.block<q8_1>>
  %w_desc = qdot.make_desc %w_ptr, [%kw, %n], [%c1, %kw] : !qdot.ptr<!qdot.block<q4_K>> -> !qdot.desc<1x16x!qdot.block<q4_K>>
  %y_desc = qdot.make_desc %y_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x16xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
  %acc = scf.for %kk = %c0 to %kw step %c1 iter_args(%acc_i = %zero) -> (tensor<16x16xf32>) {
    %kkx = arith.muli %kk, %c8 : index
    %x = qdot.load %x_desc[%c0, %kkx] : !qdot.desc<16x8x!qdot.block<q8_1>> -> tensor<16x8x!qdot.block<q8_1>>
    %w = qdot.load %w_desc[%kk, %c0] : !qdot.desc<1x16x!qdot.block<q4_K>> -> tensor<1x16x!qdot.block<q4_K>>
    %d = qdot.dot_scaled %x, %w, %acc_i lhs = q8_1 rhs = q4_K
         : tensor<16x8x!qdot.block<q8_1>> * tensor<1x16x!qdot.block<q4_K>> -> tensor<16x16xf32>
    scf.yield %d : tensor<16x16xf32>
  }
  qdot.store %y_desc[%c0, %c0], %acc : !qdot.desc<16x16xf32>, tensor<16x16xf32>
  func.return
}
