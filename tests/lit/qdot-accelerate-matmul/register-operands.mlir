// RUN: qdot-opt %s --split-input-file --verify-diagnostics \
// RUN:   -p 'qdot-accelerate-matmul{arch=sm_120a}'
// RUN: qdot-opt %s --split-input-file --verify-diagnostics \
// RUN:   -p 'qdot-accelerate-matmul{arch=sm_120a strategy=promote-fp8}'
// RUN: qdot-opt %s --split-input-file --verify-diagnostics \
// RUN:   -p 'qdot-accelerate-matmul{arch=sm_90 strategy=dequant-bf16}'
// RUN: qdot-opt %s --split-input-file --verify-diagnostics \
// RUN:   -p 'qdot-accelerate-matmul{arch=sm_90 strategy=promote-int8}'
// RUN: not qdot-translate %s --target ptx --arch sm_120a 2>&1 | filecheck %s
// A dot stages every operand and scale in shared memory, copied from global memory: each must be
// a qdot.load (or a qdot.trans of one). A tile computed in registers (an elementwise op on a
// loaded tile, a constant), carried by a loop or passed to a kernel as an argument has no register
// layout to store from; it used to reach qdot-to-llvm, on every strategy, and stop at the first op
// without one ("'arith.constant' op tensor has no qgpu layout encoding"). qdot-accelerate-matmul
// refuses it at the op that makes the operand (at the dot for an argument), before choosing a
// plan, so every arch and strategy says the same.

// The packed e2m1 bytes of B masked in registers before the dot. The whole line, with the dot's
// location:
// CHECK: register-operands.mlir:[[# @LINE + 18]]:5: error: 'arith.andi' op qdot-accelerate-matmul: its result is the rhs operand of the qdot.dot_scaled at {{.*}}register-operands.mlir:[[# @LINE + 19]]:5, computed in registers, which a dot does not support: it stages each operand and scale in shared memory by copying a qdot.load (or a qdot.trans of one) from global memory, and a tile computed in registers has no register layout to store from; load it as the dot reads it: apply the computation to the data before the kernel, or express it in the dot's formats and scales{{$}}
func.func @masked_b(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
                    %k: index {qdot.divisibility = 64 : i64}) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %kb = arith.divui %k, %c2 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<32x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%kb, %n], [%c1, %kb] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) {
    %kkb = arith.divui %kk, %c2 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<32x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
    %b = qdot.load %b_desc[%kkb, %c0] : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
    %mask = arith.constant dense<119> : tensor<32x32xi8>
    // expected-error@+1 {{qdot-accelerate-matmul: its result is the rhs operand of the qdot.dot_scaled at}}
    %b2 = arith.andi %b, %mask : tensor<32x32xi8>
    %d = qdot.dot_scaled %a, %b2, %acc_i lhs = e4m3 rhs = e2m1
       : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}

// -----

// A constant scale: refused at the constant, naming the scale.
func.func @constant_scale(%a_ptr: !qdot.ptr<f8E4M3FN>, %as_ptr: !qdot.ptr<f8E8M0FNU>, %b_ptr: !qdot.ptr<i8>,
                          %bs_ptr: !qdot.ptr<f8E8M0FNU>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
                          %k: index {qdot.divisibility = 64 : i64}) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %kb = arith.divui %k, %c2 : index
  %kg = arith.divui %k, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<32x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%kb, %n], [%c1, %kb] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %bs_desc = qdot.make_desc %bs_ptr, [%n, %kg], [%kg, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<32x2xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<32x32xf32>) {
    %kkb = arith.divui %kk, %c2 : index
    %kkg = arith.divui %kk, %c32 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<32x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
    // expected-error@+1 {{its result is the lhs scale of the qdot.dot_scaled at}}
    %as = arith.constant dense<1.000000e+00> : tensor<32x2xf8E8M0FNU>
    %b = qdot.load %b_desc[%kkb, %c0] : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
    %bs = qdot.load %bs_desc[%c0, %kkg] : !qdot.desc<32x2xf8E8M0FNU> -> tensor<32x2xf8E8M0FNU>
    %d = qdot.dot_scaled %a scale %as, %b scale %bs, %acc_i lhs = e4m3 rhs = e2m1
       : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU> * tensor<32x32xi8>, tensor<32x2xf8E8M0FNU> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}

// -----

// B loaded one iteration ahead and carried by the loop: refused at the dot, naming the loop.
func.func @carried_b(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
                     %k: index {qdot.divisibility = 64 : i64}) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %kb = arith.divui %k, %c2 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<32x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%kb, %n], [%c1, %kb] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %b0 = qdot.load %b_desc[%c0, %c0] : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
  %acc, %last = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero, %b = %b0)
      -> (tensor<32x32xf32>, tensor<32x32xi8>) {
    %kkb = arith.divui %kk, %c2 : index
    %next = arith.addi %kkb, %c32 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<32x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
    %b_next = qdot.load %b_desc[%next, %c0] : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
    // expected-error@+1 {{qdot-accelerate-matmul: its rhs operand is carried in registers (an argument of 'scf.for'), which a dot does not support: it stages each operand and scale in shared memory by copying a qdot.load (or a qdot.trans of one) from global memory, and a carried tile has no register layout to store from; load it in the iteration or branch that uses it}}
    %d = qdot.dot_scaled %a, %b, %acc_i lhs = e4m3 rhs = e2m1
       : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32>
    scf.yield %d, %b_next : tensor<32x32xf32>, tensor<32x32xi8>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}

// -----

// Outside a kernel a function argument is an operand as good as a load (the pass's own tests feed
// dots so; such a function is not lowered), but an op computing one is refused as in a kernel.
func.func @computed_argument(%a: tensor<32x64xf8E4M3FN>, %b: tensor<32x32xi8>, %acc: tensor<32x32xf32>)
    -> tensor<32x32xf32> attributes {qdot.num_warps = 1 : i64} {
  // expected-error@+1 {{its result is the lhs operand of the qdot.dot_scaled at}}
  %a2 = arith.negf %a : tensor<32x64xf8E4M3FN>
  %d = qdot.dot_scaled %a2, %b, %acc lhs = e4m3 rhs = e2m1
     : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}

// -----

// A kernel's tensor argument is a tile in registers too: refused at the dot.
func.func @kernel_argument(%a: tensor<32x64xf8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<f32>, %m: index,
                           %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b_desc = qdot.make_desc %b_ptr, [%m, %n], [%c1, %m] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<32x32xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
  %b = qdot.load %b_desc[%c0, %c0] : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
  // expected-error@+1 {{qdot-accelerate-matmul: its lhs operand is an argument of the kernel, a tile in registers, which a dot does not support: it stages each operand and scale in shared memory by copying a qdot.load (or a qdot.trans of one) from global memory; pass a !qdot.ptr and qdot.load the tile}}
  %d = qdot.dot_scaled %a, %b, %zero lhs = e4m3 rhs = e2m1
     : tensor<32x64xf8E4M3FN> * tensor<32x32xi8> -> tensor<32x32xf32>
  qdot.store %c_desc[%c0, %c0], %d : !qdot.desc<32x32xf32>, tensor<32x32xf32>
  func.return
}
