// REQUIRES: ptxas, cuobjdump
// The machine code ptxas makes of the q4_0 prefill kernel (mmq-q4_0.mlir) for sm_90: the s8 × s8
// mma is IMMA.16832.S8.S8 (never a .U8 form: q4_0 is upcast signed, unlike q4_K), 16 per K step;
// the upcast's mask and sign flip, one `lop3` (a & 0xF0F0F0F0) ^ 0x80808080 in PTX, stay ONE
// LOP3.LUT (lut 0x6a) per s8 register — 32 per K step — with the mask as the instruction's
// immediate and the flip in a register, set once (a LOP3 has one immediate slot: an and + xor of
// two immediates would be two); and the 1/16 of d16 is one FMUL by 0.0625 per value a thread
// decodes into the shared f32 buffer — 8 per K step (a column's 8 blocks), not one per scale use.
// RUN: qdot-translate %S/mmq-q4_0.mlir --target sass --arch sm_90 > %t.sass
// RUN: filecheck %s < %t.sass
// RUN: grep -c 'IMMA.16832.S8.S8' %t.sass | filecheck %s --check-prefix=IMMA
// RUN: grep -c 'LOP3.LUT .*0xf0f0f0f0, R[0-9]*.*, 0x6a,' %t.sass | filecheck %s --check-prefix=UPCASTS
// RUN: grep -c -e '-0x7f7f7f80' %t.sass | filecheck %s --check-prefix=FLIP-REGS
// RUN: grep -c 'FMUL .*0.0625' %t.sass | filecheck %s --check-prefix=SIXTEENTHS
// RUN: not grep -e 'IMMA.16832.U8' -e 'IMMA.16832.S8.U8' -e 'HMMA' -e 'I2FP.F32.S32' -e 'LDL' -e 'STL' -e 'LDS.U8' -e 'LDS.S8' -e 'LOP3.LUT .*0x80808080' %t.sass

// CHECK:       code for sm_90
// CHECK:       Function : mmq_q8_1_q4_0_32x32_w4
// CHECK:       LDGSTS
// CHECK:       MOV{{.*}} [[FLIP:R[0-9]+]], {{.*}}-0x7f7f7f80
// CHECK:       FMUL {{.*}}0.0625
// CHECK:       STS
// CHECK:       BAR.SYNC
// CHECK:       LOP3.LUT {{R[0-9]+}}, {{R[0-9]+}}, 0xf0f0f0f0, [[FLIP]]{{.*}}, 0x6a,
// CHECK:       IMMA.16832.S8.S8
// CHECK:       EXIT
// IMMA:        {{^16$}}
// UPCASTS:     {{^32$}}
// FLIP-REGS:   {{^1$}}
// SIXTEENTHS:  {{^8$}}
