// RUN: qdot-translate %s --target ptx --arch sm_120a | filecheck %s --check-prefix=SM120
// RUN: qdot-translate %s --target ptx --arch sm_120a --pipeline 'qdot-accelerate-matmul{arch=sm_120a strategy=native},qdot-optimize-dot-operands,qdot-pipeline{num-stages=3},qdot-lower-local-load{arch=sm_120a ldmatrix=false},qdot-lower-mma,qdot-to-llvm{arch=sm_120a}' | filecheck %s --check-prefix=FALLBACK
// RUN: qdot-translate %s --target ptx --arch sm_90 | filecheck %s --check-prefix=SM90
// RUN: qdot-translate %s --target ptx --arch sm_89 | filecheck %s --check-prefix=SM89
// RUN: qdot-translate %s --target ptx --arch sm_89 | grep -c ldmatrix.sync.aligned.m8n8.x4.shared.b16 | filecheck %s --check-prefix=SM89-LDMATRIX
// An MX GEMM tile, e4m3 (ue8m0) × e2m1 (ue8m0), 64×64×64 per step on 4 warps, compiled
// for each target with the default strategy (ptxas accepts each: assemble.mlir).

// sm_120a, native: the block-scaled mixed mma, the scales as its last operands (scale
// register + two 16-bit selectors per side).
// SM120:       .target sm_120a
// SM120:       .maxntid 128
// SM120:       mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0
// SM120-NEXT:  {{{.*}}},
// SM120-NEXT:  {{{.*}}},
// SM120-NEXT:  {{{.*}}},
// SM120-NEXT:  {{{.*}}},
// SM120-NEXT:  %r{{[0-9]+}}, {%rs[[SEL:[0-9]+]], %rs[[SEL]]},
// SM120-NEXT:  %r{{[0-9]+}}, {%rs[[SEL]], %rs[[SEL]]};
// SM120-COUNT-31: mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0
// SM120-NOT:   mma.sync

// With ldmatrix=false the fp4 operand takes the scalar fallback: a 16-bit ld.shared per
// register, spread to 0000xxxx bytes with prmt, then the same shift and mma.
// FALLBACK:    ld.shared.b16 [[P:%r[0-9]+]], [%r{{[0-9]+}}{{(\+[0-9]+)?}}];
// FALLBACK-NEXT: prmt.b32 {{%r[0-9]+}}, [[P]], 0, 0x1100U;
// FALLBACK:    shl.b32 {{.*}}, 2;
// FALLBACK:    mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e2m1.f32.ue8m0
// FALLBACK-NOT: ldmatrix.sync.aligned.m8n16

// sm_90, dequant-bf16: both operands become bf16 (the scales folded in), 2 × 4 k16 steps
// × 2 × 4 tiles per warp = 64 bf16 mmas; the raw tiles are read for their conversion in
// 16-byte runs, one ld.shared.v4 each (never four 32-bit loads).
// SM90:        .target sm_90
// SM90-NOT:    ld.shared.b32
// SM90:        ld.shared.v4.b32
// SM90:        mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM90-COUNT-63: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM90-NOT:    mma.sync
// SM90-NOT:    e2m1

// sm_89, promote-fp8: fp4 → e4m3, the fp8 mma once per scale block. The K-contiguous e2m1
// tile is converted once per CTA into an e4m3 buffer, so both operands are read by ldmatrix
// (8 x4 loads each per step) and the scales by vector loads.
// SM89-LDMATRIX: {{^16$}}
// SM89:        .target sm_89
// SM89-COUNT-32: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
// SM89-NOT:    mma.sync

func.func @mx(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %sa_ptr: !qdot.ptr<f8E8M0FNU>, %sb_ptr: !qdot.ptr<f8E8M0FNU>,
              %c_ptr: !qdot.ptr<f32>, %m: index, %n: index, %k: index {qdot.divisibility = 128 : i64})
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %pid = qdot.program_id x
  %off_m = arith.muli %pid, %c64 : index
  %kb = arith.divui %k, %c2 : index
  %ks = arith.divui %k, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x128xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%kb, %n], [%c1, %kb] : !qdot.ptr<i8> -> !qdot.desc<64x64xi8>
  %sa_desc = qdot.make_desc %sa_ptr, [%m, %ks], [%ks, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x4xf8E8M0FNU>
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %ks], [%ks, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x4xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) {
    %kkb = arith.divui %kk, %c2 : index
    %kks = arith.divui %kk, %c32 : index
    %a = qdot.load %a_desc[%off_m, %kk] : !qdot.desc<64x128xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
    %b = qdot.load %b_desc[%kkb, %c0] : !qdot.desc<64x64xi8> -> tensor<64x64xi8>
    %sa = qdot.load %sa_desc[%off_m, %kks] : !qdot.desc<64x4xf8E8M0FNU> -> tensor<64x4xf8E8M0FNU>
    %sb = qdot.load %sb_desc[%c0, %kks] : !qdot.desc<64x4xf8E8M0FNU> -> tensor<64x4xf8E8M0FNU>
    %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc_i lhs = e4m3 rhs = e2m1
       : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU> * tensor<64x64xi8>, tensor<64x4xf8E8M0FNU> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  qdot.store %c_desc[%off_m, %c0], %acc : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}
