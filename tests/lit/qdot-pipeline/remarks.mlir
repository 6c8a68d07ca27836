// RUN: qdot-opt %s --split-input-file -p 'qdot-pipeline{num-stages=2}' --remarks=qdot-pipeline -o /dev/null 2>&1 | filecheck %s --check-prefixes=CHECK,TWO
// RUN: qdot-opt %s --split-input-file -p 'qdot-pipeline{num-stages=3}' --remarks=qdot-pipeline -o /dev/null 2>&1 | filecheck %s --check-prefixes=CHECK,THREE
// RUN: qdot-opt %s --split-input-file -p 'qdot-pipeline{num-stages=4}' --remarks=qdot-pipeline -o /dev/null 2>&1 | filecheck %s --check-prefixes=CHECK,FOUR
// What --remarks says qdot-pipeline decided for each scf.for (passes/pipeline.py): how many
// tiles it copies how far ahead for each num-stages, and, for a loop it leaves synchronous,
// which of the three reasons kept it (not-pipelined.mlir pins the IR of those loops; ring.mlir
// the rings of 2, 3 and 4 stages).

#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [0, 1]}>

// Two stageable tiles: num-stages - 1 iterations ahead, num-stages - 2 groups left in flight.
// TWO:   remarks.mlir:[[# @LINE + 10]]:3: remark: qdot-pipeline: 2 stages: 2 tiles (16x32xi8, 32x8xi8) copied 1 iteration ahead by cp.async into rings of 2 buffers; each iteration waits with 0 groups in flight{{$}}
// THREE: remarks.mlir:[[# @LINE + 9]]:3: remark: qdot-pipeline: 3 stages: 2 tiles (16x32xi8, 32x8xi8) copied 2 iterations ahead by cp.async into rings of 3 buffers; each iteration waits with 1 group in flight{{$}}
// FOUR:  remarks.mlir:[[# @LINE + 8]]:3: remark: qdot-pipeline: 4 stages: 2 tiles (16x32xi8, 32x8xi8) copied 3 iterations ahead by cp.async into rings of 4 buffers; each iteration waits with 2 groups in flight{{$}}
func.func @two_tiles(%a_ptr: !qdot.ptr<i8>, %b_ptr: !qdot.ptr<i8>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<i8> -> !qdot.desc<32x8xi8>
  scf.for %kk = %c0 to %k step %c32 {
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %b = qdot.load %b_desc[%kk, %c0] : !qdot.desc<32x8xi8> -> tensor<32x8xi8>
    %as = qgpu.local_alloc %a : (tensor<16x32xi8>) -> !qgpu.memdesc<16x32xi8, #sa>
    %bs = qgpu.local_alloc %b : (tensor<32x8xi8>) -> !qgpu.memdesc<32x8xi8, #sb>
    "test.op"(%as, %bs) : (!qgpu.memdesc<16x32xi8, #sa>, !qgpu.memdesc<32x8xi8, #sb>) -> ()
  }
  func.return
}

// -----

#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [0, 1]}>

// Of two tiles only the one whose sole user is its staging is copied ahead: one tile, singular; the other is
// named with the reason it is staged each iteration.
// THREE: remarks.mlir:[[# @LINE + 8]]:3: remark: qdot-pipeline: 3 stages: 1 tile (16x32xi8) copied 2 iterations ahead by cp.async into rings of 3 buffers; each iteration waits with 1 group in flight; 32x8xi8 staged each iteration: its loaded tiles have other users than their staging (the copy ahead would not replace them){{$}}
func.func @one_of_two(%a_ptr: !qdot.ptr<i8>, %b_ptr: !qdot.ptr<i8>, %m: index, %n: index, %k: index)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<i8> -> !qdot.desc<32x8xi8>
  scf.for %kk = %c0 to %k step %c32 {
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %b = qdot.load %b_desc[%kk, %c0] : !qdot.desc<32x8xi8> -> tensor<32x8xi8>
    %as = qgpu.local_alloc %a : (tensor<16x32xi8>) -> !qgpu.memdesc<16x32xi8, #sa>
    %bs = qgpu.local_alloc %b : (tensor<32x8xi8>) -> !qgpu.memdesc<32x8xi8, #sb>
    "test.op"(%as, %bs, %b) : (!qgpu.memdesc<16x32xi8, #sa>, !qgpu.memdesc<32x8xi8, #sb>, tensor<32x8xi8>) -> ()
  }
  func.return
}

// -----

#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>

// The descriptor is made inside the loop.
// CHECK: remarks.mlir:[[# @LINE + 5]]:3: remark: qdot-pipeline: not pipelined: the descriptor of its tiles is made inside the loop, so a later tile's cannot be known ahead{{$}}
func.func @desc_in_loop(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.for %kk = %c0 to %k step %c32 {
    %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %as = qgpu.local_alloc %a : (tensor<16x32xi8>) -> !qgpu.memdesc<16x32xi8, #sa>
    "test.op"(%as) : (!qgpu.memdesc<16x32xi8, #sa>) -> ()
  }
  func.return
}

// -----

#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>

// The staged tile is read in registers as well.
// CHECK: remarks.mlir:[[# @LINE + 6]]:3: remark: qdot-pipeline: not pipelined: its loaded tiles have other users than their staging (the copy ahead would not replace them){{$}}
func.func @tile_used_twice(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  scf.for %kk = %c0 to %k step %c32 {
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %as = qgpu.local_alloc %a : (tensor<16x32xi8>) -> !qgpu.memdesc<16x32xi8, #sa>
    "test.op"(%as, %a) : (!qgpu.memdesc<16x32xi8, #sa>, tensor<16x32xi8>) -> ()
  }
  func.return
}

// -----

// The loop loads its tile into registers only: nothing is staged in shared memory.
// CHECK: remarks.mlir:[[# @LINE + 6]]:3: remark: qdot-pipeline: not pipelined: its body stages no global tile in shared memory (no qgpu.local_alloc of a qdot.load){{$}}
func.func @nothing_staged(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  scf.for %kk = %c0 to %k step %c32 {
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    "test.op"(%a) : (tensor<16x32xi8>) -> ()
  }
  func.return
}
