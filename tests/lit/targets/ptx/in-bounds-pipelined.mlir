// RUN: qdot-translate %s --target ptx --arch sm_90 --strategy promote-int8 --num-stages 3 --remarks=qdot-to-llvm 2>&1 >/dev/null | grep 'remark: qdot-to-llvm: copy' | filecheck %s
// RUN: qdot-translate %s --target ptx --arch sm_90 --strategy promote-int8 --num-stages 3 | filecheck %s --check-prefix=PTX
// An i8 GEMM whose A and Bᵀ loads declare K in bounds (tests/passes/test_in_bounds_emulated.py runs it), through
// the whole pipeline: the prologue copies of each tile (one remark for both) test their bounds; the loop's copy ahead, at
// min(ahead, last) (qdot-pipeline), keeps the declaration and its 16-byte chunks — the offset's known divisor
// (32: the loop's step) survives the min — and tests no K bound; rows past M and N are still tested.

// CHECK:      in-bounds-pipelined.mlir:[[# @LINE + 24]]:5: remark: qdot-to-llvm: copy of a 32x32xi8 tile: 16-byte cp.async, 2 per thread{{$}}
// CHECK-NEXT: in-bounds-pipelined.mlir:[[# @LINE + 23]]:5: remark: qdot-to-llvm: copy of a 32x32xi8 tile: 16-byte cp.async, 2 per thread; declared in bounds: no bounds test on its columns
// CHECK-NEXT: in-bounds-pipelined.mlir:[[# @LINE + 23]]:5: remark: qdot-to-llvm: copy of a 32x32xi8 tile: 16-byte cp.async, 2 per thread{{$}}
// CHECK-NEXT: in-bounds-pipelined.mlir:[[# @LINE + 22]]:5: remark: qdot-to-llvm: copy of a 32x32xi8 tile: 16-byte cp.async, 2 per thread; declared in bounds: no bounds test on its columns
// PTX:        {{^}}$L__BB{{[0-9_]+}}:
// PTX-NEXT:   cp.async.wait_group 1;
// PTX:        min.u64
// PTX-COUNT-4: cp.async.cg.shared.global {{.*}}, 16, %r{{[0-9]+}};
// PTX-NEXT:   cp.async.commit_group;

func.func @gemm(%a_ptr: !qdot.ptr<i8>, %b_ptr: !qdot.ptr<i8>, %c_ptr: !qdot.ptr<i32>, %m: index, %n: index,
                %k: index {qdot.divisibility = 32 : i64}) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %pid_m = qdot.program_id x
  %pid_n = qdot.program_id y
  %off_m = arith.muli %pid_m, %c32 : index
  %off_n = arith.muli %pid_n, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %b_desc = qdot.make_desc %b_ptr, [%k, %n], [%c1, %k] : !qdot.ptr<i8> -> !qdot.desc<32x32xi8>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<i32> -> !qdot.desc<32x32xi32>
  %zero = arith.constant dense<0> : tensor<32x32xi32>
  %acc = scf.for %kk = %c0 to %k step %c32 iter_args(%acc_i = %zero) -> (tensor<32x32xi32>) {
    %a = qdot.load %a_desc[%off_m, %kk] {in_bounds = [false, true]} : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
    %b = qdot.load %b_desc[%kk, %off_n] {in_bounds = [true, false]} : !qdot.desc<32x32xi8> -> tensor<32x32xi8>
    %d = qdot.dot_scaled %a, %b, %acc_i lhs = i8 rhs = i8 : tensor<32x32xi8> * tensor<32x32xi8> -> tensor<32x32xi32>
    scf.yield %d : tensor<32x32xi32>
  }
  qdot.store %c_desc[%off_m, %off_n], %acc : !qdot.desc<32x32xi32>, tensor<32x32xi32>
  func.return
}
