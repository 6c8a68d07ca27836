// A pipeline given in place of the default one that stops before the LLVM-ready level is refused
// in the pipeline's terms, at the first op it leaves of the qdot or qgpu dialects (or else at the
// first !qdot or tensor type), with the default's passes it leaves out: not as a type of the input
// that "has no LLVM IR equivalent".
// RUN: not qdot-translate %s --pipeline '' 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: not qdot-translate %s --target llvm --pipeline 'builtin.module(qdot-lower-quantize)' 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not qdot-translate %s --target cubin --pipeline 'qdot-lower-quantize,qdot-accelerate-matmul,qdot-optimize-dot-operands,qdot-pipeline,qdot-lower-local-load,qdot-lower-mma' 2>&1 | filecheck %s --check-prefix=NO-TO-LLVM
// EMPTY: pipeline-stops-early.mlir:[[# @LINE + 25]]:3: error: 'qdot.make_desc' op the pipeline '' leaves this op and 4 more of the qdot dialect (qdot.load, qdot.quantize, qdot.store); emitting PTX needs the module lowered to the LLVM-ready level (func, arith, cf and ptx ops on scalars and 1-D vectors): run the default pipeline's passes in its order, up to qdot-to-llvm (this one leaves out qdot-lower-quantize, qdot-accelerate-matmul, qdot-optimize-dot-operands, qdot-pipeline, qdot-lower-local-load, qdot-lower-mma, qdot-to-llvm; qdot-translate --print-pipeline lists the default)
// EMPTY-NOT: has no LLVM IR equivalent
// TYPE: pipeline-stops-early.mlir:[[# @LINE + 17]]:1: error: 'func.func' op the pipeline 'builtin.module(qdot-lower-quantize)' leaves an argument or result of type !qdot.ptr<f32> here; emitting LLVM IR needs
// TYPE-SAME: (this one leaves out qdot-accelerate-matmul, qdot-optimize-dot-operands, qdot-pipeline, qdot-lower-local-load, qdot-lower-mma, qdot-to-llvm;
// NO-TO-LLVM: error: '{{[a-z._]+}}' op the pipeline 'qdot-lower-quantize,{{.*}}qdot-lower-mma' leaves {{.*}}; emitting a cubin needs the module lowered to the LLVM-ready level {{.*}}(this one leaves out qdot-to-llvm; qdot-translate --print-pipeline lists the default)

// The default pipeline written out is a custom pipeline that reaches the level; so is no pipeline at
// all on IR already there, and on an empty module.
// RUN: qdot-translate %s --target llvm --pipeline 'qdot-lower-quantize,qdot-accelerate-matmul,qdot-optimize-dot-operands,qdot-pipeline,qdot-lower-local-load,qdot-lower-mma,qdot-to-llvm' | filecheck %s --check-prefix=CUSTOM
// RUN: qdot-opt %s -p 'qdot-lower-quantize,qdot-accelerate-matmul,qdot-optimize-dot-operands,qdot-pipeline,qdot-lower-local-load,qdot-lower-mma,qdot-to-llvm' | qdot-translate --target llvm --pipeline '' | filecheck %s --check-prefix=CUSTOM
// RUN: printf '// nothing\n' | qdot-translate --target llvm --pipeline '' | filecheck %s --check-prefix=NOTHING
// CUSTOM: define ptx_kernel void @quantize(
// NOTHING: target triple = "nvptx64-nvidia-cuda"

// qdot-accelerate-matmul run without qdot-lower-quantize before it meets a quantized tile it cannot
// lay out; the diagnostic says which pass lowers qdot.quantize.
// RUN: not qdot-opt %s -p qdot-accelerate-matmul 2>&1 | filecheck %s --check-prefix=QUANTIZE
// QUANTIZE: pipeline-stops-early.mlir:[[# @LINE + 12]]:3: error: 'qdot.store' op qdot-accelerate-matmul: cannot give the stored tensor<1x4x!qdot.block<q8_1_mmq>> a register layout (2-D tiles of integers or floats with power-of-two dimensions only); qdot.quantize is lowered by qdot-lower-quantize, which the default pipeline runs before qdot-accelerate-matmul

func.func @quantize(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %kb = arith.ceildivui %k, %c128 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x512xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1] : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<1x4x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x512xf32> -> tensor<1x512xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<1x512xf32> -> tensor<1x4x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<1x4x!qdot.block<q8_1_mmq>>, tensor<1x4x!qdot.block<q8_1_mmq>>
  func.return
}
