// REQUIRES: ptxas
// RUN: qdot-translate %S/../../../examples/quantize_q8_1_mmq.mlir --target ptx --arch sm_90 --verify-ptx > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: not grep -E "cvt\.rni|\.ftz|div\.(approx|full)|shfl\.sync\.(up|down|idx)" %t.ptx
// The example quantize kernel through the default PTX pipeline, assembled by ptxas: the
// instructions that make it ggml's rounding and the memory instructions of both strategies.
// No half-to-even rounding (cvt.rni), no flush to zero, no approximate division anywhere
// (the grep above).

// CHECK:       .visible .entry quantize_q8_1_mmq_8x512_w4_m32_mid8x128le2097152(
// CHECK:       .maxntid 128
// M <= 32, the lanes strategy: four scalar loads, xor shuffles 4, 2, 1 for amax and the sum.
// CHECK-COUNT-4: ld.global.b32
// CHECK:       shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK:       shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK:       shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK:       shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK:       shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK:       shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// d = amax / 127.0 (0f42FE0000), then one IEEE division per value and a truncation.
// CHECK:       div.rn.f32 {{.*}}, 0f42FE0000;
// CHECK-COUNT-4: div.rn.f32
// CHECK:       cvt.rzi.s32.f32
// CHECK:       cvt.rn.f16x2.f32
// CHECK:       st.global.b32
// CHECK-COUNT-4: st.global.b8
// M > 32 and M * K <= 2^21, the 8x128 tile: the lanes strategy again (32 groups for 128 threads).
// CHECK:       ld.global.b32
// CHECK:       shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK:       div.rn.f32 {{.*}}, 0f42FE0000;
// CHECK-COUNT-4: div.rn.f32
// CHECK:       st.global.b32
// CHECK-COUNT-4: st.global.b8
// CHECK-NOT:   ld.shared
// M * K > 2^21, the 8x512 tile and the staged strategy: 4-byte copies when K is not a multiple of 4 ...
// CHECK:       cp.async.ca.shared.global {{.*}}, 4, {{.*}};
// ... else 16-byte ones, 144 bytes per group apart (16 groups = 2304 bytes per iteration).
// CHECK:       cp.async.cg.shared.global {{\[}}[[DST:%r[0-9]+]]{{\]}}, [{{.*}}], 16, {{.*}};
// CHECK:       cp.async.cg.shared.global {{\[}}[[DST]]+2304{{\]}}, [{{.*}}], 16, {{.*}};
// CHECK:       cp.async.commit_group;
// CHECK-NEXT:  cp.async.wait_group 0;
// CHECK-NEXT:  bar.sync 0;
// A thread's 32 values: eight 16-byte shared loads (LLVM merged the 8-byte pairs).
// CHECK-COUNT-8: ld.shared.v2.b64
// CHECK-NOT:   shfl.sync
// CHECK:       div.rn.f32 {{.*}}, 0f42FE0000;
// CHECK-COUNT-32: div.rn.f32
// CHECK:       prmt.b32 {{.*}}, 0x40U;
// CHECK:       prmt.b32 {{.*}}, 0x5410U;
// CHECK:       cvt.rn.f16x2.f32
// CHECK:       st.global.b32
// CHECK-COUNT-4: st.global.b64
// CHECK-NOT:   st.global
// CHECK:       ret;
