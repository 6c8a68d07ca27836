// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-to-llvm' | filecheck %s
// RUN: not qdot-opt %s --split-input-file -p 'qdot-pipeline,qdot-to-llvm' --remarks=qdot-pipeline -o /dev/null 2>&1 | filecheck %s --check-prefix=PIPE
// A copy's shape and strides are read from its qdot.make_desc: a descriptor carried into a loop
// through iter_args is refused at the op that uses it (staged load, register load, store), where
// it used to stop qdot-to-llvm on an internal assertion; qdot-pipeline leaves such a loop
// synchronous (it used to hoist a copy of the block argument out of the loop: IR that does not verify).

#sh = #qgpu.shared<{vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]}>

func.func @staged(%p: !qdot.ptr<i8>, %m: index, %k: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %e = qdot.make_desc %p, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<16x32xi8>
  %r = scf.for %i = %c0 to %k step %c32 iter_args(%d = %e) -> (!qdot.desc<16x32xi8>) {
    %a = qdot.load %d[%c0, %i] : !qdot.desc<16x32xi8> -> tensor<16x32xi8>
    %s = qgpu.local_alloc %a : (tensor<16x32xi8>) -> !qgpu.memdesc<16x32xi8, #sh>
    "test.op"(%s) : (!qgpu.memdesc<16x32xi8, #sh>) -> ()
    scf.yield %d : !qdot.desc<16x32xi8>
  }
  func.return
}
// CHECK: desc-block-argument.mlir:[[# @LINE - 7]]:5: error: 'qdot.load' op descriptor must come straight from qdot.make_desc, got a block argument{{$}}
// PIPE:  desc-block-argument.mlir:[[# @LINE - 9]]:3: remark: qdot-pipeline: not pipelined: the descriptor of its tiles is not a qdot.make_desc outside the loop (it comes through a block argument), so a later tile's cannot be known ahead{{$}}
// PIPE:  desc-block-argument.mlir:[[# @LINE - 9]]:5: error: 'qdot.load' op descriptor must come straight from qdot.make_desc, got a block argument{{$}}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

func.func @stored(%p: !qdot.ptr<f32>, %m: index, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %ones = arith.constant dense<1.000000e+00> : tensor<16x8xf32, #mma>
  %e = qdot.make_desc %p, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %r = scf.for %j = %c0 to %n step %c8 iter_args(%d = %e) -> (!qdot.desc<16x8xf32>) {
    qdot.store %d[%c0, %j], %ones : !qdot.desc<16x8xf32>, tensor<16x8xf32, #mma>
    scf.yield %d : !qdot.desc<16x8xf32>
  }
  func.return
}
// CHECK: desc-block-argument.mlir:[[# @LINE - 5]]:5: error: 'qdot.store' op descriptor must come straight from qdot.make_desc, got a block argument{{$}}
// PIPE:  remark: qdot-pipeline: not pipelined: its body stages no global tile in shared memory
// PIPE:  desc-block-argument.mlir:[[# @LINE - 7]]:5: error: 'qdot.store' op descriptor must come straight from qdot.make_desc, got a block argument{{$}}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>

func.func @register_load(%p: !qdot.ptr<f32>, %m: index, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %e = qdot.make_desc %p, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x8xf32>
  %r = scf.for %j = %c0 to %n step %c8 iter_args(%d = %e) -> (!qdot.desc<16x8xf32>) {
    %v = qdot.load %d[%c0, %j] : !qdot.desc<16x8xf32> -> tensor<16x8xf32, #mma>
    "test.op"(%v) : (tensor<16x8xf32, #mma>) -> ()
    scf.yield %d : !qdot.desc<16x8xf32>
  }
  func.return
}
// CHECK: desc-block-argument.mlir:[[# @LINE - 6]]:5: error: 'qdot.load' op descriptor must come straight from qdot.make_desc, got a block argument{{$}}
