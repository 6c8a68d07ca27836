// RUN: qdot-opt %s --split-input-file -p 'qdot-pipeline{num-stages=3}' --remarks=qdot-pipeline -o /dev/null 2>&1 | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-pipeline{num-stages=3}' | filecheck %s --check-prefix=IR
// Tiles qdot-pipeline stages each iteration, as written, because a copy iterations ahead would be
// wrong; each of these produced IR the verifier refused or, for the store, other numbers.

#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#sb = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [0, 1]}>

// A's K position is an iter_arg the body advances (Triton's habit), not the induction variable: a later
// tile's position is not known ahead (the copies used the body's argument before the loop). B's is, and
// B alone is pipelined; the remark names A's reason.
// CHECK: unsafe-to-copy-ahead.mlir:[[# @LINE + 10]]:3: remark: qdot-pipeline: 3 stages: 1 tile (32x16xi8) copied 2 iterations ahead by cp.async into rings of 3 buffers; each iteration waits with 1 group in flight; 16x32xi8 staged each iteration: a tile's offset comes from a value the loop carries (an iter_arg), not from its induction variable alone, so a later tile's position cannot be computed ahead
// IR-LABEL: func.func @carried_offset
// IR:       scf.for
// IR:         qdot.load %a_desc[%c0, %koff]
func.func @carried_offset(%a_ptr: !qdot.ptr<i8>, %b_ptr: !qdot.ptr<i8>, %m: index, %k: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %b_desc = qdot.make_desc %b_ptr, [%k, %m], [%m, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x16xi8>
  %ko = scf.for %kk = %c0 to %k step %c32 iter_args(%koff = %c0) -> (index) {
    %a = qdot.load %a_desc[%c0, %koff] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %as = qgpu.local_alloc %a : (tensor<16x32xi8>) -> !qgpu.memdesc<16x32xi8, #sa>
    %b = qdot.load %b_desc[%kk, %c0] : !qdot.desc<32x16xi8> -> tensor<32x16xi8>
    %bs = qgpu.local_alloc %b : (tensor<32x16xi8>) -> !qgpu.memdesc<32x16xi8, #sb>
    "test.op"(%as, %bs) : (!qgpu.memdesc<16x32xi8, #sa>, !qgpu.memdesc<32x16xi8, #sb>) -> ()
    %kn = arith.addi %koff, %c32 : index
    scf.yield %kn : index
  }
  func.return
}

// -----

#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>

// An i32 induction variable: the ring's positions are index arithmetic (index constants were mixed with it).
// CHECK: unsafe-to-copy-ahead.mlir:[[# @LINE + 8]]:3: remark: qdot-pipeline: not pipelined: its induction variable is i32, not index
func.func @i32_loop(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0i = arith.constant 0 : i32
  %c32i = arith.constant 32 : i32
  %ki = arith.index_cast %k : index to i32
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  scf.for %kk = %c0i to %ki step %c32i : i32 {
    %kx = arith.index_cast %kk : i32 to index
    %a = qdot.load %a_desc[%c0, %kx] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %as = qgpu.local_alloc %a : (tensor<16x32xi8>) -> !qgpu.memdesc<16x32xi8, #sa>
    "test.op"(%as) : (!qgpu.memdesc<16x32xi8, #sa>) -> ()
  }
  func.return
}

// -----

#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>

// The staged tile leaves the loop: a ring slot would be read after the copies ahead overwrote it.
// CHECK: unsafe-to-copy-ahead.mlir:[[# @LINE + 7]]:3: remark: qdot-pipeline: not pipelined: a staged tile is used after its iteration (yielded, or read after the loop), where a copy ahead would overwrite its ring slot
func.func @yielded_tile(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index, %init: !qgpu.memdesc<16x32xi8, #sa>)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %r = scf.for %kk = %c0 to %k step %c32 iter_args(%prev = %init) -> (!qgpu.memdesc<16x32xi8, #sa>) {
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %as = qgpu.local_alloc %a : (tensor<16x32xi8>) -> !qgpu.memdesc<16x32xi8, #sa>
    scf.yield %as : !qgpu.memdesc<16x32xi8, #sa>
  }
  "test.op"(%r) : (!qgpu.memdesc<16x32xi8, #sa>) -> ()
  func.return
}

// -----

#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>
#bl = #qgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>

// The loop writes the array it streams (the next tile of A): a copy ahead would read that tile before
// the iteration that writes it.
// CHECK: unsafe-to-copy-ahead.mlir:[[# @LINE + 7]]:3: remark: qdot-pipeline: not pipelined: the loop stores to the array its tiles come from, so a copy ahead would read a tile before the stores of the iterations between
func.func @stores_what_it_streams(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %ones = arith.constant dense<1> : tensor<16x32xi8, #bl>
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  scf.for %kk = %c0 to %k step %c32 {
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %as = qgpu.local_alloc %a : (tensor<16x32xi8>) -> !qgpu.memdesc<16x32xi8, #sa>
    "test.op"(%as) : (!qgpu.memdesc<16x32xi8, #sa>) -> ()
    %kn = arith.addi %kk, %c32 : index
    qdot.store %a_desc[%c0, %kn], %ones : !qdot.desc<16x32xi8>, tensor<16x32xi8, #bl>
    qdot.barrier
  }
  func.return
}
