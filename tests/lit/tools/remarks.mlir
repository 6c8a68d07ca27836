// What --remarks says each pass decided for one MX kernel (e4m3 × e2m1, ue8m0 scales), located
// at the op the decision was made for: the strategy auto takes on sm_90 (dequant-bf16: no native
// mma there) and on sm_120a (native), the ldmatrix each local_load became or why it fell back to
// scalar ld.shared, the pipeline's stages and the kernel's shared memory.

// RUN: qdot-translate %s --arch sm_90 --remarks -o /dev/null 2>&1 | filecheck %s --check-prefix=SM90
// RUN: qdot-translate %s --arch sm_120a --remarks -o /dev/null 2>&1 | filecheck %s --check-prefix=SM120

// The fp4 operand of the native plan (fp4Unpacked) read on sm_90, which has no fp4 ldmatrix, and
// on sm_120a with ldmatrix=false; qdot-opt --verify-diagnostics prints the remarks on stdout,
// before the IR.
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_120a},qdot-lower-local-load{arch=sm_90}' --remarks=qdot-lower-local-load --verify-diagnostics | filecheck %s --check-prefix=FALLBACK
// RUN: qdot-opt %s -p 'qdot-accelerate-matmul{arch=sm_120a},qdot-lower-local-load{arch=sm_120a ldmatrix=false}' --remarks=qdot-lower-local-load --verify-diagnostics | filecheck %s --check-prefix=NO-LDMATRIX

// --remarks=P keeps P's only; one stage is no pipelining, said at the loop.
// RUN: qdot-translate %s --num-stages 1 --remarks=qdot-pipeline -o /dev/null 2>&1 | filecheck %s --check-prefix=ONE-STAGE
// A pass the pipeline does not run is refused, as for --print-ir-after.
// RUN: not qdot-translate %s --remarks=qdot-to-agx -o /dev/null 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: qdot-translate: error: --remarks: 'qdot-to-agx' is not a pass of the pipeline ({{.*}}it runs: qdot-lower-quantize,
// The list follows an '=' (a bare --remarks never takes the input file as its list): pass names after a
// bare --remarks are refused with the spelling that keeps them; another stray word gets no such hint.
// RUN: not qdot-translate %s --remarks qdot-lower-mma -o /dev/null 2>&1 | filecheck %s --check-prefix=SPACE
// RUN: not qdot-opt %s --remarks qdot-pipeline,qdot-lower-mma -p cse 2>&1 | filecheck %s --check-prefix=SPACES
// RUN: not qdot-translate %s qdot-lower-mma -o /dev/null 2>&1 | filecheck %s --check-prefix=STRAY
// SPACE:  qdot-translate: error: unrecognized arguments: qdot-lower-mma; to keep only this pass' remarks write --remarks=qdot-lower-mma (the list follows an '=') (see qdot-translate --help)
// SPACES: qdot-opt: error: unrecognized arguments: qdot-pipeline,qdot-lower-mma; to keep only these passes' remarks write --remarks=qdot-pipeline,qdot-lower-mma (the list follows an '=')
// STRAY:  qdot-translate: error: unrecognized arguments: qdot-lower-mma (see qdot-translate --help)

// Without --remarks, nothing.
// RUN: qdot-translate %s --arch sm_120a -o /dev/null 2>&1 | filecheck %s --allow-empty --check-prefix=QUIET
// QUIET-NOT: remark

// SM90:  remarks.mlir:[[# @LINE + 3]]:1: remark: qdot-to-llvm: @mx: 35584 B of shared memory per CTA in 6 buffers (sm_90 allows 232448 B)
// SM120: remarks.mlir:[[# @LINE + 2]]:1: remark: qdot-to-llvm: @mx: 25344 B of shared memory per CTA in 4 buffers (sm_120a allows 101376 B)
// SM90-NOT: remark: qdot-lower-quantize
func.func @mx(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %sa_ptr: !qdot.ptr<f8E8M0FNU>,
              %sb_ptr: !qdot.ptr<f8E8M0FNU>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
              %k: index {qdot.divisibility = 128 : i64}) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %k_bytes = arith.divui %k, %c2 : index
  %k_scales = arith.divui %k, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%k_bytes, %n], [%c1, %k_bytes] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %sa_desc = qdot.make_desc %sa_ptr, [%m, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  // SM90:      remarks.mlir:[[# @LINE + 4]]:3: remark: qdot-pipeline: 3 stages: 4 tiles ({{.*}}) copied 2 iterations ahead by cp.async into rings of 3 buffers; each iteration waits with 1 group in flight
  // SM120:     remarks.mlir:[[# @LINE + 3]]:3: remark: qdot-pipeline: 3 stages:
  // ONE-STAGE: remarks.mlir:[[# @LINE + 2]]:3: remark: qdot-pipeline: not pipelined: num-stages=1 (each tile staged synchronously)
  // ONE-STAGE-NOT: remark
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) {
    %kk_bytes = arith.divui %kk, %c2 : index
    %kk_scales = arith.divui %kk, %c32 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %b = qdot.load %b_desc[%kk_bytes, %c0] : !qdot.desc<32x64xi8> -> tensor<32x64xi8>
    %sa = qdot.load %sa_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %sb = qdot.load %sb_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    // sm_90: no native mma, and ptxas emulates the fp8 one, so auto asks dequant-bf16 first.
    // SM90:      remarks.mlir:[[# @LINE + 26]]:5: remark: qdot-accelerate-matmul: strategy dequant-bf16 for e4m3 × e2m1: auto on sm_90 asks dequant-bf16, promote-int8 in turn and takes the first that runs it; native not asked (the kind::mxf8f6f4 mma.sync it would run e4m3 × e2m1 on is sm_120a, sm_120f, sm_121a only); promote-fp8 not asked (ptxas emulates the fp8 mma.sync with f16 HMMA on sm_90)
    // SM90-NEXT: remarks.mlir:[[# @LINE + 25]]:5: remark: qdot-accelerate-matmul: mma.sync bf16 in 16x8 tiles, warps 2x2 (a 32x32 tile each), kWidth 2, scales folded into the converted values
    // SM90-NEXT: remarks.mlir:[[# @LINE + 24]]:5: remark: qdot-accelerate-matmul: lhs e4m3 → bf16: converted once per CTA into a shared buffer, scale folded in; rhs e2m1 → bf16: converted once per CTA into a shared buffer, scale folded in
    // The raw tiles are read in the conversion's blocked layout, which no ldmatrix delivers;
    // the bf16 operands it writes back are read by ldmatrix.
    // SM90:      remarks.mlir:[[# @LINE + 21]]:5: remark: qdot-lower-local-load: 64x64xf8E4M3FN in blocked layout: ld.shared (not a dot operand's fragments, which are what ldmatrix delivers)
    // SM90:      remarks.mlir:[[# @LINE + 20]]:5: remark: qdot-lower-local-load: lhs operand 64x64xbf16 (kWidth 2): 8 × ldmatrix.sync.aligned.m8n8.x4.shared.b16
    // SM90:      remarks.mlir:[[# @LINE + 19]]:5: remark: qdot-lower-local-load: rhs operand 64x64xbf16 (kWidth 2): 8 × ldmatrix.sync.aligned.m8n8.x4.shared.b16
    // SM90-NEXT: remarks.mlir:[[# @LINE + 18]]:5: remark: qdot-lower-mma: 32 × mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 per warp (2 m × 4 n × 4 k tiles)
    //
    // sm_120a: native, the fp4 operand staged fp4Padded and read by the fp4 ldmatrix.
    // SM120:      remarks.mlir:[[# @LINE + 15]]:5: remark: qdot-accelerate-matmul: strategy native for e4m3 × e2m1: auto on sm_120a asks native, promote-fp8, promote-int8, dequant-bf16 in turn and takes the first that runs it
    // SM120-NEXT: remarks.mlir:[[# @LINE + 14]]:5: remark: qdot-accelerate-matmul: mma.sync mxf8f6f4 in 16x8 tiles, warps 2x2 (a 32x32 tile each), kWidth 4, scales to the block-scaled mma
    // SM120-NEXT: remarks.mlir:[[# @LINE + 13]]:5: remark: qdot-accelerate-matmul: lhs e4m3: no conversion, read as it is; rhs e2m1: staged fp4Padded, read fp4Unpacked (0000xxxx bytes, shifted to 00xxxx00 at the mma)
    // SM120-NEXT: remarks.mlir:[[# @LINE + 12]]:5: remark: qdot-lower-local-load: lhs operand 64x64xf8E4M3FN (kWidth 4): 4 × ldmatrix.sync.aligned.m8n8.x4.shared.b16
    // SM120-NEXT: remarks.mlir:[[# @LINE + 11]]:5: remark: qdot-lower-local-load: rhs operand 32x64xi8 (kWidth 2, fp4Unpacked): 4 × ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64
    // SM120:      remarks.mlir:[[# @LINE + 10]]:5: remark: qdot-lower-mma: 16 × mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0 per warp (2 m × 4 n × 2 k tiles); rhs fp4Unpacked 0000xxxx → 00xxxx00: shl 2 on its 16 registers; block scales to the instruction, 1 per k tile and row
    //
    // FALLBACK:         remarks.mlir:[[# @LINE + 8]]:5: remark: qdot-lower-local-load: lhs operand 64x64xf8E4M3FN (kWidth 4): 4 × ldmatrix.sync.aligned.m8n8.x4.shared.b16
    // FALLBACK-NEXT:    remarks.mlir:[[# @LINE + 7]]:5: remark: qdot-lower-local-load: rhs operand 32x64xi8 (kWidth 2, fp4Unpacked): scalar ld.shared fallback: sm_90 has no ldmatrix .m8n16.x4.b8x16.b4x16_p64 (sm_100a, sm_120a or sm_120f/sm_121a only)
    // FALLBACK:         builtin.module
    // FALLBACK-NOT:     ptx.ldmatrix {{.*}}b4x16_p64
    // NO-LDMATRIX:      remarks.mlir:[[# @LINE + 4]]:5: remark: qdot-lower-local-load: lhs operand 64x64xf8E4M3FN (kWidth 4): scalar ld.shared fallback: ldmatrix=false
    // NO-LDMATRIX-NEXT: remarks.mlir:[[# @LINE + 3]]:5: remark: qdot-lower-local-load: rhs operand 32x64xi8 (kWidth 2, fp4Unpacked): scalar ld.shared fallback: ldmatrix=false
    // NO-LDMATRIX:      builtin.module
    // NO-LDMATRIX-NOT:  ptx.ldmatrix
    %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc_i lhs = e4m3 rhs = e2m1
         : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU> * tensor<32x64xi8>, tensor<64x2xf8E8M0FNU>
         -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  // SM90:  remarks.mlir:[[# @LINE + 2]]:3: remark: qdot-to-llvm: epilogue direct: st.global.v2.b32 per pair of f32 registers, under a run-time test that N, the row pitch and the column origin are even (single stores otherwise)
  // SM120: remarks.mlir:[[# @LINE + 1]]:3: remark: qdot-to-llvm: epilogue direct: st.global.v2.b32
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}
