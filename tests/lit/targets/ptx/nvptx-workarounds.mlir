// RUN: qdot-translate %s --target ptx --arch sm_90 | filecheck %s
// RUN: qdot-translate %s --target ptx --arch sm_80 | filecheck %s --check-prefix=SM80
// Correct LLVM IR that LLVM's NVPTX backend (llvmlite 0.50, LLVM 22) turned into wrong PTX, and
// the IR qdot emits instead (targets/ptx/llvm_arith.py).

// A float to i1 goes through i32 (cvt.rzi), not a compare of the float's bits with +0.0.
// CHECK-LABEL: fptoui_i1(
// CHECK:       cvt.rzi.u32.f32
// CHECK-NEXT:  and.b32 {{.*}}, 1;
// CHECK-LABEL: fptosi_i1(
// CHECK:       cvt.rzi.s32.f64
// CHECK-NOT:   setp.eq.b64
// CHECK:       ret;
func.func @fptoui_i1(%a: f32) -> i32 {
  %b = arith.fptoui %a : f32 to i1
  %r = arith.extui %b : i1 to i32
  func.return %r : i32
}
func.func @fptosi_i1(%a: f64) -> i32 {
  %b = arith.fptosi %a : f64 to i1
  %r = arith.extsi %b : i1 to i32
  func.return %r : i32
}

// A select keeps guarding a shift whose amount is not a constant: the amount is masked to the width
// (poison past it anyway), so the backend cannot take PTX's clamp for the guard and cut an i64
// amount's high bits.
// CHECK-LABEL: guarded_shl_i64(
// CHECK:       setp.lt.u64 [[OK:%p[0-9]+]], %rd{{[0-9]+}}, 64;
// CHECK:       and.b32 [[AMOUNT:%r[0-9]+]], %r{{[0-9]+}}, 63;
// CHECK:       shl.b64 [[SHIFTED:%rd[0-9]+]], %rd{{[0-9]+}}, [[AMOUNT]];
// CHECK:       selp.b64 %rd{{[0-9]+}}, [[SHIFTED]], 0, [[OK]];
// CHECK-LABEL: guarded_shrui_i32_by_i64(
// CHECK:       and.b32 {{.*}}, 31;
// CHECK:       shr.u32
// CHECK:       selp.b32
func.func @guarded_shl_i64(%x: i64, %s: i64) -> i64 {
  %c64 = arith.constant 64 : i64
  %c0 = arith.constant 0 : i64
  %ok = arith.cmpi ult, %s, %c64 : i64
  %sh = arith.shli %x, %s : i64
  %r = arith.select %ok, %sh, %c0 : i64
  func.return %r : i64
}
func.func @guarded_shrui_i32_by_i64(%x: i32, %s: i64) -> i32 {
  %c31 = arith.constant 31 : i64
  %c0 = arith.constant 0 : i32
  %big = arith.cmpi ugt, %s, %c31 : i64
  %s32 = arith.trunci %s : i64 to i32
  %sh = arith.shrui %x, %s32 : i32
  %r = arith.select %big, %c0, %sh : i32
  func.return %r : i32
}

// A constant amount is left as it is; shl's nsw / nuw are dropped (shl nsw by 31 became a
// multiply by -2^31, which negates -1 where the shift gives -2^31).
// CHECK-LABEL: shl_nsw_by_31(
// CHECK-NOT:   and.b32
// CHECK:       shl.b32 [[S:%r[0-9]+]], %r{{[0-9]+}}, 31;
// CHECK-NEXT:  cvt.s64.s32 %rd{{[0-9]+}}, [[S]];
// CHECK-NOT:   mul.wide
func.func @shl_nsw_by_31(%a: i32) -> i64 {
  %c31 = arith.constant 31 : i32
  %s = arith.shli %a, %c31 overflow<nsw> : i32
  %r = arith.extsi %s : i32 to i64
  func.return %r : i64
}

// i32 / i64 to bf16: sm_90 converts directly; below it NVPTX went through f32 rounding twice, so qdot
// rounds toward zero to f32, sets the last bit where inexact (round to odd), and rounds to bf16 once.
// An i8 is exact in f32 and keeps the plain conversion.
// CHECK-LABEL: s32_to_bf16(
// CHECK:       cvt.rn.bf16.s32
// CHECK-LABEL: u64_to_bf16(
// CHECK:       cvt.rn.bf16.u64
// SM80-LABEL:  s32_to_bf16(
// SM80:        cvt.rz.f32.s32 [[RZ:%r[0-9]+]], [[X:%r[0-9]+]];
// SM80-NEXT:   cvt.rzi.s32.f32 [[BACK:%r[0-9]+]], [[RZ]];
// SM80-NEXT:   setp.ne.b32 [[INEXACT:%p[0-9]+]], [[X]], [[BACK]];
// SM80-NEXT:   selp.b32 [[STICKY:%r[0-9]+]], 1, 0, [[INEXACT]];
// SM80-NEXT:   or.b32 [[ODD:%r[0-9]+]], [[STICKY]], [[RZ]];
// SM80-NEXT:   cvt.rn.bf16.f32 %rs{{[0-9]+}}, [[ODD]];
// SM80-LABEL:  u64_to_bf16(
// SM80:        cvt.rz.f32.u64
// SM80:        cvt.rzi.u64.f32
// SM80:        cvt.rn.bf16.f32
// SM80-LABEL:  s8_to_bf16(
// SM80-NOT:    cvt.rz.
// SM80:        cvt.rn.f32.s16
// SM80-NEXT:   cvt.rn.bf16.f32
func.func @s32_to_bf16(%a: i32) -> bf16 {
  %r = arith.sitofp %a : i32 to bf16
  func.return %r : bf16
}
func.func @u64_to_bf16(%a: i64) -> bf16 {
  %r = arith.uitofp %a : i64 to bf16
  func.return %r : bf16
}
func.func @s8_to_bf16(%a: i8) -> bf16 {
  %r = arith.sitofp %a : i8 to bf16
  func.return %r : bf16
}
