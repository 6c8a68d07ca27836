// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_120a strategy=native}' --remarks=qdot-accelerate-matmul | filecheck %s --check-prefix=NATIVE
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90 strategy=dequant-bf16}' --remarks=qdot-accelerate-matmul | filecheck %s --check-prefix=DEQUANT
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_80}' --remarks=qdot-accelerate-matmul | filecheck %s --check-prefix=SM80
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_89}' --remarks=qdot-accelerate-matmul | filecheck %s --check-prefix=SM89
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_90}' --remarks=qdot-accelerate-matmul | filecheck %s --check-prefix=SM90
// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-accelerate-matmul{arch=sm_120a}' --remarks=qdot-accelerate-matmul | filecheck %s --check-prefix=SM120
// The strategy remark of qdot-accelerate-matmul (passes/accelerate_matmul.py, _strategy_remark):
// which strategy each dot took and why, in each of its forms — a rule of the formats that
// overrules the strategy asked ("(asked: native)"), an explicit strategy taken "as asked", the
// dequant-bf16 notes (nothing dequantized for 16-bit operands; fp16 compute when an operand is
// fp16), and for auto the strategies it does not ask on the arch and the refusals of those it
// asked before the one it took. Under --verify-diagnostics the remarks and the refusals (the
// strategy=native run refuses bf16 and fp16 operands) are printed on stdout.

// i8 × i8 runs on the s8 mma whatever is asked: under strategy=native the remark says so; under
// auto nothing was overruled.
// NATIVE:       strategy-remarks.mlir:[[# @LINE + 5]]:3: remark: qdot-accelerate-matmul: strategy promote-int8 for i8 × i8: i8 × i8 runs on the s8 mma (asked: native){{$}}
// NATIVE-NEXT:  strategy-remarks.mlir:[[# @LINE + 4]]:3: remark: qdot-accelerate-matmul: mma.sync s8 in 16x8 tiles, warps 1x1 (a 32x32 tile each), kWidth 4, no scales{{$}}
// SM90:         strategy-remarks.mlir:[[# @LINE + 3]]:3: remark: qdot-accelerate-matmul: strategy promote-int8 for i8 × i8: i8 × i8 runs on the s8 mma{{$}}
func.func @i8_i8(%a: tensor<32x64xi8>, %b: tensor<64x32xi8>, %acc: tensor<32x32xi32>) -> tensor<32x32xi32>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = i8 rhs = i8 : tensor<32x64xi8> * tensor<64x32xi8> -> tensor<32x32xi32>
  func.return %d : tensor<32x32xi32>
}

// -----

// bf16 × bf16: dequant-bf16 converts nothing (the note says so) and was asked. On sm_120a auto
// asks the three strategies before it, each of which refuses a bf16 operand.
// DEQUANT:      strategy-remarks.mlir:[[# @LINE + 5]]:3: remark: qdot-accelerate-matmul: strategy dequant-bf16 for bf16 × bf16 (16-bit float operands need no conversion: the bf16 mma reads them as they are; nothing is dequantized), as asked{{$}}
// DEQUANT-NEXT: strategy-remarks.mlir:[[# @LINE + 4]]:3: remark: qdot-accelerate-matmul: mma.sync bf16 in 16x8 tiles, warps 1x1 (a 32x32 tile each), kWidth 2, no scales{{$}}
// SM120:        strategy-remarks.mlir:[[# @LINE + 3]]:3: remark: qdot-accelerate-matmul: strategy dequant-bf16 for bf16 × bf16 ({{[^)]*}}nothing is dequantized): auto on sm_120a asks native, promote-fp8, promote-int8, dequant-bf16 in turn and takes the first that runs it; native refused (strategy 'native' takes fp8/fp6/fp4 operands; lhs is bf16); promote-fp8 refused (strategy 'promote-fp8' takes fp8/fp6/fp4 operands; lhs is bf16); promote-int8 refused (strategy 'promote-int8' needs values that are exact small integers after a power-of-two shift (e2m1, e2m3, i8, ggml quants); lhs is bf16){{$}}
func.func @bf16_bf16(%a: tensor<32x64xbf16>, %b: tensor<64x32xbf16>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = bf16 rhs = bf16 : tensor<32x64xbf16> * tensor<64x32xbf16> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}

// -----

// An fp16 operand makes dequant-bf16 compute in fp16: the note and the mma's type say it.
// DEQUANT:      strategy-remarks.mlir:[[# @LINE + 5]]:3: remark: qdot-accelerate-matmul: strategy dequant-bf16 for fp16 × e2m1 (converted to fp16, not bf16: an operand is fp16), as asked{{$}}
// DEQUANT-NEXT: strategy-remarks.mlir:[[# @LINE + 4]]:3: remark: qdot-accelerate-matmul: mma.sync fp16 in 16x8 tiles,
// DEQUANT-NEXT: strategy-remarks.mlir:[[# @LINE + 3]]:3: remark: qdot-accelerate-matmul: lhs fp16: no conversion, read as it is; rhs e2m1 → fp16: converted in registers after the load{{$}}
func.func @fp16_e2m1(%a: tensor<32x64xf16>, %b: tensor<32x32xi8>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = e2m1 : tensor<32x64xf16> * tensor<32x32xi8> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}

// -----

// e4m3 × e4m3: native as asked, on the plain fp8 mma.sync (no kind::, no scales). On sm_80 auto
// does not ask native (sm_120a family only; it would use the fp8 mma there) nor promote-fp8 (no
// fp8 mma before sm_89), and promote-int8 refuses e4m3, so dequant-bf16 runs it.
// NATIVE:       strategy-remarks.mlir:[[# @LINE + 6]]:3: remark: qdot-accelerate-matmul: strategy native for e4m3 × e4m3, as asked{{$}}
// NATIVE-NEXT:  strategy-remarks.mlir:[[# @LINE + 5]]:3: remark: qdot-accelerate-matmul: mma.sync fp8 in 16x8 tiles, warps 1x1 (a 32x32 tile each), kWidth 4, no scales{{$}}
// NATIVE-NEXT:  strategy-remarks.mlir:[[# @LINE + 4]]:3: remark: qdot-accelerate-matmul: lhs e4m3: no conversion, read as it is; rhs e4m3: no conversion, read as it is{{$}}
// SM80:         strategy-remarks.mlir:[[# @LINE + 3]]:3: remark: qdot-accelerate-matmul: strategy dequant-bf16 for e4m3 × e4m3: auto on sm_80 asks promote-int8, dequant-bf16 in turn and takes the first that runs it; native not asked (it is sm_120a, sm_120f, sm_121a only; e4m3 × e4m3 would run there on the fp8 mma.sync, as under promote-fp8); promote-fp8 not asked (no fp8 mma.sync before sm_89); promote-int8 refused (strategy 'promote-int8' needs values that are exact small integers after a power-of-two shift (e2m1, e2m3, i8, ggml quants); lhs is e4m3){{$}}
func.func @e4m3_e4m3(%a: tensor<32x64xf8E4M3FN>, %b: tensor<64x32xf8E4M3FN>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e4m3 : tensor<32x64xf8E4M3FN> * tensor<64x32xf8E4M3FN> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}

// -----

// bf16 × e4m3 on sm_90: native is not asked, and would refuse the pair on sm_120a too; the
// emulated fp8 mma is not asked either; dequant-bf16, asked first on Hopper, takes it.
// SM90:         strategy-remarks.mlir:[[# @LINE + 3]]:3: remark: qdot-accelerate-matmul: strategy dequant-bf16 for bf16 × e4m3: auto on sm_90 asks dequant-bf16, promote-int8 in turn and takes the first that runs it; native not asked (it is sm_120a, sm_120f, sm_121a only, and would refuse bf16 × e4m3 there too: strategy 'native' takes fp8/fp6/fp4 operands; lhs is bf16); promote-fp8 not asked (ptxas emulates the fp8 mma.sync with f16 HMMA on sm_90){{$}}
func.func @bf16_e4m3(%a: tensor<32x64xbf16>, %b: tensor<64x32xf8E4M3FN>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = bf16 rhs = e4m3 : tensor<32x64xbf16> * tensor<64x32xf8E4M3FN> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}

// -----

// NVFP4 (ue4m3 per 16 values) on sm_89: promote-fp8 and promote-int8 are asked and both refuse
// the 16-value groups; dequant-bf16 folds them into the values.
// SM89:         strategy-remarks.mlir:[[# @LINE + 4]]:3: remark: qdot-accelerate-matmul: strategy dequant-bf16 for e2m1 × e2m1: auto on sm_89 asks promote-fp8, promote-int8, dequant-bf16 in turn and takes the first that runs it; native not asked (the kind::mxf4nvf4 mma.sync it would run e2m1 × e2m1 on is sm_120a, sm_120f, sm_121a only); promote-fp8 refused (strategy 'promote-fp8' cannot apply scales per 16 values (NVFP4 ue4m3): the fp8 mma k tile spans 32 values, two scale groups; use 'dequant-bf16', which folds them exactly); promote-int8 refused (strategy 'promote-int8' cannot apply scales per 16 values (NVFP4 ue4m3): the s8 mma k tile spans 32 values, two scale groups; use 'dequant-bf16', which folds them exactly){{$}}
// SM89-NEXT:    strategy-remarks.mlir:[[# @LINE + 3]]:3: remark: qdot-accelerate-matmul: mma.sync bf16 in 16x8 tiles, {{.*}}, scales folded into the converted values{{$}}
func.func @nvfp4(%a: tensor<32x32xi8>, %sa: tensor<32x4xf8E4M3FN>, %b: tensor<32x32xi8>, %sb: tensor<32x4xf8E4M3FN>,
                 %acc: tensor<32x32xf32>) -> tensor<32x32xf32> attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc lhs = e2m1 rhs = e2m1
     : tensor<32x32xi8>, tensor<32x4xf8E4M3FN> * tensor<32x32xi8>, tensor<32x4xf8E4M3FN> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}

// -----

// fp4 packed along N: the formats' rule, whether dequant-bf16 was asked or auto chose (no
// "as asked", nothing overruled); its rhs is unpacked along N once per CTA.
// DEQUANT:      strategy-remarks.mlir:[[# @LINE + 6]]:3: remark: qdot-accelerate-matmul: strategy dequant-bf16 for e4m3 × e2m1: fp4 packed along M or N runs on dequant-bf16 only (the other mma fragments pack fp4 along K){{$}}
// DEQUANT-NEXT: strategy-remarks.mlir:[[# @LINE + 5]]:3: remark: qdot-accelerate-matmul: mma.sync bf16 in 16x8 tiles,
// DEQUANT-NEXT: strategy-remarks.mlir:[[# @LINE + 4]]:3: remark: qdot-accelerate-matmul: lhs e4m3 → bf16: converted once per CTA into a shared buffer; rhs e2m1 → bf16: converted once per CTA into a shared buffer, unpacked along M/N{{$}}
// SM120:        strategy-remarks.mlir:[[# @LINE + 3]]:3: remark: qdot-accelerate-matmul: strategy dequant-bf16 for e4m3 × e2m1: fp4 packed along M or N runs on dequant-bf16 only (the other mma fragments pack fp4 along K){{$}}
func.func @n_packed(%a: tensor<32x64xf8E4M3FN>, %b: tensor<64x16xi8>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e4m3 rhs = e2m1 {rhs_k_pack = false}
     : tensor<32x64xf8E4M3FN> * tensor<64x16xi8> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}
