// What qdot-translate emits for the AGX example on both forms, as assembly and as bytes: the
// 12-byte AGX3B and 14-byte AGX3C encodings of the same four mma8, and the header that says what
// the stream is and is not, and which of its bits are facts. The default pipeline
// (agx-hints-and-waits{hints=false waits=all}) sets no hint bit, and an MMA that needs a wait
// waits on every slot (six on AGX3B, eight on AGX3C), so the stream means the same whatever the
// hint bits (A4) and the wait-slot order (A3) turn out to be; the LIVE run pins the
// liveness-based stream of {hints=true waits=needed}, which rests on both, and whose header says so. The bit positions
// behind the bytes are the labelled assumptions of docs/agx.md; this pins the tool's output so
// a change to a field table shows here.
// RUN: qdot-translate %S/../../../../examples/agx_tile_fp16.mlir --target agx3b --format asm | filecheck %s --check-prefix=B-ASM
// RUN: qdot-translate %S/../../../../examples/agx_tile_fp16.mlir --target agx3b --format hex | filecheck %s --check-prefix=B-HEX
// RUN: qdot-translate %S/../../../../examples/agx_tile_fp16.mlir --target agx3c --format asm | filecheck %s --check-prefix=C-ASM
// RUN: qdot-translate %S/../../../../examples/agx_tile_fp16.mlir --target agx3c --format hex | filecheck %s --check-prefix=C-HEX
// RUN: qdot-translate %S/../../../../examples/agx_tile_fp16.mlir --target agx3b --format asm --pipeline 'qdot-to-agx{form=agx3b},agx-allocate-registers,agx-hints-and-waits{hints=true waits=needed}' | filecheck %s --check-prefix=LIVE

// B-ASM:      // agx3b: the MMA instruction stream of each dot tile and the register map of its fragments,
// B-ASM:      // facts: only the 14 of 96 bit positions the seed states; every other position is a numbered
// B-ASM-NEXT: // assumption (A1..A15 in docs/agx.md), not checked on hardware
// B-ASM-NOT:  rests on
// B-ASM:      // func @tile: D[8x16] += A[8x16] * B[16x16] on one simdgroup, 4 mma8 x 12 bytes
// B-ASM:      {{^}}mma8.f32.f16.f16 r0_r1, r4l_r4h, r6l_r6h, r0_r1 wait(0,1,2,3,4,5){{$}}
// B-ASM-NEXT: {{^}}mma8.f32.f16.f16 r2_r3, r4l_r4h, r8l_r8h, r2_r3{{$}}
// B-ASM-NEXT: {{^}}mma8.f32.f16.f16 r0_r1, r4l_r4h, r6l_r6h, r0_r1 wait(0,1,2,3,4,5){{$}}
// B-ASM-NEXT: {{^}}mma8.f32.f16.f16 r2_r3, r4l_r4h, r8l_r8h, r2_r3{{$}}

// B-HEX:      // facts: only the 14 of 96 bit positions the seed states; every other position is a numbered
// B-HEX:      {{^}}6ff003001002180200000801{{$}}
// B-HEX-NEXT: {{^}}6f0010001002200200100801{{$}}
// B-HEX-NEXT: {{^}}6ff003001002180200000801{{$}}
// B-HEX-NEXT: {{^}}6f0010001002200200100801{{$}}

// C-ASM:      // facts: none; the seed states no agx3c bit position, so each of the 112 is a numbered
// C-ASM-NEXT: // assumption (A1..A15 in docs/agx.md), not checked on hardware
// C-ASM:      // func @tile: D[8x16] += A[8x16] * B[16x16] on one simdgroup, 4 mma8 x 14 bytes
// C-ASM:      {{^}}mma8.f32.f16.f16 r0_r1, r4l_r4h, r6l_r6h, r0_r1 wait(0,1,2,3,4,5,6,7){{$}}
// C-ASM-NEXT: {{^}}mma8.f32.f16.f16 r2_r3, r4l_r4h, r8l_r8h, r2_r3{{$}}
// C-ASM-NEXT: {{^}}mma8.f32.f16.f16 r0_r1, r4l_r4h, r6l_r6h, r0_r1 wait(0,1,2,3,4,5,6,7){{$}}
// C-ASM-NEXT: {{^}}mma8.f32.f16.f16 r2_r3, r4l_r4h, r8l_r8h, r2_r3{{$}}

// C-HEX:      // facts: none; the seed states no agx3c bit position, so each of the 112 is a numbered
// C-HEX:      {{^}}eff0030010021800000008010300{{$}}
// C-HEX-NEXT: {{^}}ef00100010022000001008010000{{$}}
// C-HEX-NEXT: {{^}}eff0030010021800000008010300{{$}}
// C-HEX-NEXT: {{^}}ef00100010022000001008010000{{$}}

// LIVE:      // assumption (A1..A15 in docs/agx.md), not checked on hardware
// LIVE-NEXT: // this stream also rests on its register-cache hint bits: which bit is which hint is assumption A4
// LIVE-NEXT: // this stream also rests on its waits on single slots: which bit is which slot is assumption A3
// LIVE:      {{^}}mma8.f32.f16.f16 r0_r1.cache, r4l_r4h.cache, r6l_r6h.discard, r0_r1.discard wait(0,2,3){{$}}
// LIVE-NEXT: {{^}}mma8.f32.f16.f16 r2_r3.cache, r4l_r4h.discard, r8l_r8h.discard, r2_r3.discard wait(1,4){{$}}
// LIVE-NEXT: {{^}}mma8.f32.f16.f16 r0_r1, r4l_r4h.cache, r6l_r6h.discard, r0_r1.discard wait(0,5){{$}}
// LIVE-NEXT: {{^}}mma8.f32.f16.f16 r2_r3, r4l_r4h.discard, r8l_r8h.discard, r2_r3.discard wait(1){{$}}
