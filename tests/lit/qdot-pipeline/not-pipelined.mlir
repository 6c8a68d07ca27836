// RUN: qdot-opt %s --split-input-file -p 'qdot-pipeline{num-stages=3}' | filecheck %s
// Loads qdot-pipeline leaves synchronous: only a tile whose descriptor is fixed for the whole
// loop and whose only user is its local_alloc can be copied iterations ahead.

#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>

// The descriptor is made inside the loop: future tiles cannot be addressed before it exists.
// CHECK-LABEL: func.func @desc_in_loop
// CHECK-NOT:   qgpu.async
// CHECK:       scf.for
// CHECK:         %[[A:.*]] = qdot.load
// CHECK-NEXT:    qgpu.local_alloc %[[A]] : (tensor<16x32xi8>)
// CHECK-NOT:   qgpu.async_copy
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

// The loaded tile is also used in registers: it must still be loaded in its own iteration.
// CHECK-LABEL: func.func @tile_used_twice
// CHECK-NOT:   qgpu.async
// CHECK:       scf.for
// CHECK:         %[[A:.*]] = qdot.load
// CHECK-NEXT:    qgpu.local_alloc %[[A]] : (tensor<16x32xi8>)
// CHECK-NOT:   qgpu.async_copy
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

#sa = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>

// Outside any loop there is nothing to overlap.
// CHECK-LABEL: func.func @no_loop
// CHECK:       %[[A:.*]] = qdot.load
// CHECK-NEXT:  qgpu.local_alloc %[[A]]
// CHECK-NOT:   qgpu.async
func.func @no_loop(%a_ptr: !qdot.ptr<i8>, %m: index, %k: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %a = qdot.load %a_desc[%c0, %c0] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
  %as = qgpu.local_alloc %a : (tensor<16x32xi8>) -> !qgpu.memdesc<16x32xi8, #sa>
  "test.op"(%as) : (!qgpu.memdesc<16x32xi8, #sa>) -> ()
  func.return
}
