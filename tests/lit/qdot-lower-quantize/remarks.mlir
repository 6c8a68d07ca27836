// RUN: qdot-opt %s --split-input-file -p qdot-lower-quantize --remarks=qdot-lower-quantize 2>&1 >/dev/null \
// RUN:   | filecheck %s

// qdot-lower-quantize's remark at each qdot.quantize: the strategy and why, how the values arrive, how the
// steps or waves are emitted, how wide the quant stores are.

// Fewer groups than threads: the lanes strategy, one step.
// CHECK: remark: qdot-lower-quantize: q8_1_mmq from a 1x128 f32 tile,
// CHECK-SAME: 4 groups of 32 values for 32 threads: lanes (fewer groups than threads): 8 lanes per group,
// CHECK-SAME: 4 groups per step, one step; predicated 4-byte loads from global memory
func.func @one_step(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %k: index,
    %kb: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x128xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1]
      : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<1x1x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x128xf32> -> tensor<1x128xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<1x128xf32> -> tensor<1x1x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<1x1x!qdot.block<q8_1_mmq>>, tensor<1x1x!qdot.block<q8_1_mmq>>
  func.return
}

// -----

// 16 groups, 4 per step: four steps emitted one after another, their loads first (UNROLLED_LANES_STEPS).
// CHECK: remark: qdot-lower-quantize: q8_1_mmq from a 2x256 f32 tile,
// CHECK-SAME: 16 groups of 32 values for 32 threads: lanes (fewer groups than threads): 8 lanes per group,
// CHECK-SAME: 4 groups per step, 4 steps one after another, every step's loads first
func.func @unrolled_steps(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %k: index,
    %kb: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<2x256xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1]
      : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<2x2x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<2x256xf32> -> tensor<2x256xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<2x256xf32> -> tensor<2x2x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<2x2x!qdot.block<q8_1_mmq>>, tensor<2x2x!qdot.block<q8_1_mmq>>
  func.return
}

// -----

// 512 groups for 16 warps: a staged wave would need 72 KB, past the staging limit, so lanes in a loop of 8 steps.
// CHECK: remark: qdot-lower-quantize: q8_1_mmq from a 16x1024 f32 tile,
// CHECK-SAME: 512 groups of 32 values for 512 threads:
// CHECK-SAME: lanes (a wave of them would not fit the staging limit): 8 lanes per group, 64 groups per step,
// CHECK-SAME: 8 steps in an scf.for
func.func @looped_steps(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %k: index,
    %kb: index) attributes {qdot.kernel, qdot.num_warps = 16 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x1024xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1]
      : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<16x8x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<16x1024xf32> -> tensor<16x1024xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<16x1024xf32> -> tensor<16x8x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<16x8x!qdot.block<q8_1_mmq>>, tensor<16x8x!qdot.block<q8_1_mmq>>
  func.return
}

// -----

// A group per thread: staged; X's row stride and K not known to be multiples of 4, so a run-time test picks the copy.
// CHECK: remark: qdot-lower-quantize: q8_1_mmq from a 1x1024 f32 tile,
// CHECK-SAME: 32 groups of 32 values for 32 threads:
// CHECK-SAME: staged (a group per thread and a wave fits in shared memory): one wave,
// CHECK-SAME: copied into shared memory by 16-byte cp.async
// CHECK-SAME: where a uniform run-time test finds X's rows 16-byte aligned,
// CHECK-SAME: 4-byte ones otherwise; quants stored 8 bytes at a time
func.func @staged_run_time_test(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %k: index,
    %kb: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<1x1024xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1]
      : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<1x8x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x1024xf32> -> tensor<1x1024xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<1x1024xf32> -> tensor<1x8x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<1x8x!qdot.block<q8_1_mmq>>, tensor<1x8x!qdot.block<q8_1_mmq>>
  func.return
}

// -----

// Two waves; q8_1's 36-byte blocks take 4-byte quant stores.
// CHECK: remark: qdot-lower-quantize: q8_1 from a 2x1024 f32 tile,
// CHECK-SAME: 64 groups of 32 values for 32 threads:
// CHECK-SAME: staged (a group per thread and a wave fits in shared memory): 2 waves of 32 groups,
// CHECK-SAME: a barrier between,
// CHECK-SAME: copied into shared memory by 16-byte cp.async
// CHECK-SAME: where a uniform run-time test finds X's rows 16-byte aligned,
// CHECK-SAME: 4-byte ones otherwise; quants stored 4 bytes at a time
func.func @two_waves_q8_1(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1>>, %m: index, %k: index,
    %kb: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f32> -> !qdot.desc<2x1024xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1]
      : !qdot.ptr<!qdot.block<q8_1>> -> !qdot.desc<2x32x!qdot.block<q8_1>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<2x1024xf32> -> tensor<2x1024xf32>
  %q = qdot.quantize %x format = q8_1 : tensor<2x1024xf32> -> tensor<2x32x!qdot.block<q8_1>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<2x32x!qdot.block<q8_1>>, tensor<2x32x!qdot.block<q8_1>>
  func.return
}

// -----

// X's columns not unit-stride (a transposed descriptor): 4-byte copies only.
// CHECK: remark: qdot-lower-quantize: q8_1_mmq from a 1x1024 f32 tile,
// CHECK-SAME: 32 groups of 32 values for 32 threads:
// CHECK-SAME: staged (a group per thread and a wave fits in shared memory): one wave,
// CHECK-SAME: copied into shared memory by 4-byte cp.async (X's columns are not unit-stride);
// CHECK-SAME: quants stored 8 bytes at a time
func.func @strided_columns(%x_ptr: !qdot.ptr<f32>, %q_ptr: !qdot.ptr<!qdot.block<q8_1_mmq>>, %m: index, %k: index,
    %kb: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x_desc = qdot.make_desc %x_ptr, [%m, %k], [%c1, %m] : !qdot.ptr<f32> -> !qdot.desc<1x1024xf32>
  %q_desc = qdot.make_desc %q_ptr, [%m, %kb], [%kb, %c1]
      : !qdot.ptr<!qdot.block<q8_1_mmq>> -> !qdot.desc<1x8x!qdot.block<q8_1_mmq>>
  %x = qdot.load %x_desc[%c0, %c0] : !qdot.desc<1x1024xf32> -> tensor<1x1024xf32>
  %q = qdot.quantize %x format = q8_1_mmq : tensor<1x1024xf32> -> tensor<1x8x!qdot.block<q8_1_mmq>>
  qdot.store %q_desc[%c0, %c0], %q : !qdot.desc<1x8x!qdot.block<q8_1_mmq>>, tensor<1x8x!qdot.block<q8_1_mmq>>
  func.return
}

