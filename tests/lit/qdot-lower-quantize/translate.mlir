// REQUIRES: ptxas
// RUN: qdot-translate %S/../../../examples/quantize_q8_1_mmq.mlir --target ptx --arch sm_90 --verify-ptx > %t.ptx
// RUN: filecheck %s < %t.ptx
// RUN: not grep -E "cvt\.rni|\.ftz|div\.(approx|full)|shfl\.sync\.(up|down|idx)" %t.ptx
// The example quantize kernel through the default PTX pipeline, assembled by ptxas: the
// instructions that make it ggml's rounding. No half-to-even rounding (cvt.rni), no
// flush to zero, no approximate division anywhere (the grep above).

// CHECK:       .visible .entry quantize_q8_1_mmq_1x512_w4(
// CHECK:       .maxntid 128
// CHECK-COUNT-4: ld.global.b32
// CHECK:       shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK:       shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK:       shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK:       shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK:       shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK:       shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// d = amax / 127.0 (0f42FE0000), then one IEEE division per value
// CHECK:       div.rn.f32 {{.*}}, 0f42FE0000;
// CHECK-COUNT-4: div.rn.f32
// CHECK:       cvt.rzi.s32.f32
// CHECK:       cvt.rn.f16x2.f32
// CHECK:       st.global.b32
// CHECK-COUNT-4: st.global.b8
