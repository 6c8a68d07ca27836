// What qdot-translate emits for the AGX example on both forms, as assembly and as bytes: the
// 12-byte AGX3B and 14-byte AGX3C encodings of the same four mma8, AGX3C's eight wait slots
// (slots 6 and 7 appear, where AGX3B reuses 0 and 1), and the header that says what the stream is and is not. The bit
// positions behind the bytes are the labelled assumptions of docs/agx.md; this pins the
// tool's output so a change to a field table shows here.
// RUN: qdot-translate %S/../../../../examples/agx_tile_fp16.mlir --target agx3b --format asm | filecheck %s --check-prefix=B-ASM
// RUN: qdot-translate %S/../../../../examples/agx_tile_fp16.mlir --target agx3b --format hex | filecheck %s --check-prefix=B-HEX
// RUN: qdot-translate %S/../../../../examples/agx_tile_fp16.mlir --target agx3c --format asm | filecheck %s --check-prefix=C-ASM
// RUN: qdot-translate %S/../../../../examples/agx_tile_fp16.mlir --target agx3c --format hex | filecheck %s --check-prefix=C-HEX

// B-ASM:      // func @tile: D[8x16] += A[8x16] * B[16x16] on one simdgroup, 4 mma8 x 12 bytes
// B-ASM:      mma8.f32.f16.f16 r0_r1.cache, r4l_r4h.cache, r6l_r6h.discard, r0_r1.discard wait(0,2,3)
// B-ASM-NEXT: mma8.f32.f16.f16 r2_r3.cache, r4l_r4h.discard, r8l_r8h.discard, r2_r3.discard wait(1,4)
// B-ASM-NEXT: mma8.f32.f16.f16 r0_r1, r4l_r4h.cache, r6l_r6h.discard, r0_r1.discard wait(0,5)
// B-ASM-NEXT: mma8.f32.f16.f16 r2_r3, r4l_r4h.discard, r8l_r8h.discard, r2_r3.discard wait(1)

// B-HEX:      {{^}}6fd000001182180280020801{{$}}
// B-HEX-NEXT: {{^}}6f2011001102210280120801{{$}}
// B-HEX-NEXT: {{^}}6f1002001082180280020801{{$}}
// B-HEX-NEXT: {{^}}6f2010001002210280120801{{$}}

// C-ASM:      // func @tile: D[8x16] += A[8x16] * B[16x16] on one simdgroup, 4 mma8 x 14 bytes
// C-ASM:      mma8.f32.f16.f16 r0_r1.cache, r4l_r4h.cache, r6l_r6h.discard, r0_r1.discard wait(0,2,3)
// C-ASM-NEXT: mma8.f32.f16.f16 r2_r3.cache, r4l_r4h.discard, r8l_r8h.discard, r2_r3.discard wait(1,4)
// C-ASM-NEXT: mma8.f32.f16.f16 r0_r1, r4l_r4h.cache, r6l_r6h.discard, r0_r1.discard wait(5,6)
// C-ASM-NEXT: mma8.f32.f16.f16 r2_r3, r4l_r4h.discard, r8l_r8h.discard, r2_r3.discard wait(7)

// C-HEX:      {{^}}efd0000011821800800208010000{{$}}
// C-HEX-NEXT: {{^}}ef20110011022100801208010000{{$}}
// C-HEX-NEXT: {{^}}ef00020010821800800208010100{{$}}
// C-HEX-NEXT: {{^}}ef00100010022100801208010200{{$}}
