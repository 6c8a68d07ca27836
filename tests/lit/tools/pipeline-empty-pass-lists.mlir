// An option that takes a list of passes and is given none ('--print-ir-after=', '--remarks=', or
// only commas) is refused with what to write: the two used to read an empty list in opposite ways,
// --print-ir-after= as no pass and --remarks= as every pass, each in silence.
// RUN: not qdot-opt %s -p cse --print-ir-after= 2>&1 | filecheck %s --check-prefix=AFTER
// RUN: not qdot-translate %s --print-ir-before=, -o /dev/null 2>&1 | filecheck %s --check-prefix=BEFORE
// RUN: not qdot-translate %s --remarks= -o /dev/null 2>&1 | filecheck %s --check-prefix=REMARKS
// RUN: not qdot-opt %s -p cse --remarks=qdot-pipeline --remarks= 2>&1 | filecheck %s --check-prefix=REMARKS
// AFTER:   qdot-opt: error: --print-ir-after= names no pass; give pass names (--print-ir-after=P,Q), or use --print-ir-after-all
// BEFORE:  qdot-translate: error: --print-ir-before=, names no pass; give pass names (--print-ir-before=P,Q), or use --print-ir-before-all
// REMARKS: error: --remarks= names no pass; give pass names (--remarks=P,Q), or write --remarks alone for every pass's remarks

// A bare --remarks still means every pass's, before or after the input file.
// RUN: qdot-opt --remarks %s -p qdot-lower-quantize 2>&1 >/dev/null | filecheck %s --check-prefix=ALL
// RUN: qdot-opt %s -p qdot-lower-quantize --remarks 2>&1 >/dev/null | filecheck %s --check-prefix=ALL
// ALL: remark: qdot-lower-quantize:

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
