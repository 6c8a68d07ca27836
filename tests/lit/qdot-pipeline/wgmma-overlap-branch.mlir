// RUN: qdot-opt %s --split-input-file -p 'qdot-accelerate-matmul{arch=sm_90a},qdot-pipeline{num-stages=3}' | filecheck %s
// A persistent kernel carries the wgmma accumulator through an scf.if (store the finished tile
// and yield zeros, or yield the accumulator). That is carrying too, so the dot still runs one K
// step behind (pendings = 1, two-slot operand rings): the branch that yields the accumulator
// passes the unfinished value on, and the branch that stores it first waits for it
// (qgpu.warp_group_dot_wait {pendings = 0}), so only a tile's last K step waits for its dot.
// When the storing branch also yields the accumulator, the value leaves the loop-carry path
// and the dot stays synchronous.

// CHECK-LABEL: func.func @persistent
// CHECK:       qgpu.local_store %{{.*}} {qdot.readers_synced, qdot.reader_syncs}
// CHECK:       qgpu.local_store %{{.*}} {qdot.readers_synced, qdot.reader_syncs}
// CHECK-NEXT:  %[[D:.*]] = qgpu.warp_group_dot %{{.*}}, %{{.*}}, %{{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16", pendings = 1 : i64}
// CHECK:       %[[NEXT:.*]] = scf.if %{{.*}} -> (tensor<64x64xf32, #qgpu.mma
// CHECK-NEXT:  %[[DONE:.*]] = qgpu.warp_group_dot_wait %[[D]] {pendings = 0 : i64}
// CHECK-NEXT:  qdot.store %{{.*}}, %[[DONE]] :
// CHECK:       } else {
// CHECK-NEXT:  scf.yield %[[D]] :
// CHECK-NEXT:  }
// CHECK:       scf.yield %[[NEXT]], %{{.*}}, %{{.*}}, %{{.*}} :

// CHECK-LABEL: func.func @stored_and_kept
// CHECK-NOT:   local_store
// CHECK:       %[[D:.*]] = qgpu.warp_group_dot %{{.*}}, %{{.*}}, %{{.*}} lhs = bf16 rhs = bf16 {qdot.strategy = "dequant-bf16"} :
// CHECK-NOT:   warp_group_dot_wait
// CHECK:       qdot.store %{{.*}}, %[[D]] :
// CHECK-NOT:   warp_group_dot_wait

func.func @persistent(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %sa_ptr: !qdot.ptr<f8E8M0FNU>,
              %sb_ptr: !qdot.ptr<f8E8M0FNU>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
              %k: index {qdot.divisibility = 128 : i64}) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %k_bytes = arith.divui %k, %c2 : index
  %k_scales = arith.divui %k, %c32 : index
  %steps = arith.ceildivui %k, %c64 : index
  %last = arith.subi %steps, %c1 : index
  %iters = arith.muli %steps, %c2 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%k_bytes, %n], [%c1, %k_bytes] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %sa_desc = qdot.make_desc %sa_ptr, [%m, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %i = %c0 to %iters step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) {
    %tile = arith.divui %i, %steps : index
    %step = arith.remui %i, %steps : index
    %off_n = arith.muli %tile, %c64 : index
    %kk = arith.muli %step, %c64 : index
    %kk_bytes = arith.divui %kk, %c2 : index
    %kk_scales = arith.divui %kk, %c32 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %b = qdot.load %b_desc[%kk_bytes, %off_n] : !qdot.desc<32x64xi8> -> tensor<32x64xi8>
    %sa = qdot.load %sa_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %sb = qdot.load %sb_desc[%off_n, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc_i lhs = e4m3 rhs = e2m1
         : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU> * tensor<32x64xi8>, tensor<64x2xf8E8M0FNU> -> tensor<64x64xf32>
    %done = arith.cmpi eq, %step, %last : index
    %next = scf.if %done -> (tensor<64x64xf32>) {
      qdot.store %c_desc[%c0, %off_n], %d : !qdot.desc<64x64xf32>, tensor<64x64xf32>
      scf.yield %zero : tensor<64x64xf32>
    } else {
      scf.yield %d : tensor<64x64xf32>
    }
    scf.yield %next : tensor<64x64xf32>
  }
  func.return
}

// -----

func.func @stored_and_kept(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %sa_ptr: !qdot.ptr<f8E8M0FNU>,
              %sb_ptr: !qdot.ptr<f8E8M0FNU>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
              %k: index {qdot.divisibility = 128 : i64}) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %k_bytes = arith.divui %k, %c2 : index
  %k_scales = arith.divui %k, %c32 : index
  %steps = arith.ceildivui %k, %c64 : index
  %last = arith.subi %steps, %c1 : index
  %iters = arith.muli %steps, %c2 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%k_bytes, %n], [%c1, %k_bytes] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %sa_desc = qdot.make_desc %sa_ptr, [%m, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %i = %c0 to %iters step %c1 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) {
    %tile = arith.divui %i, %steps : index
    %step = arith.remui %i, %steps : index
    %off_n = arith.muli %tile, %c64 : index
    %kk = arith.muli %step, %c64 : index
    %kk_bytes = arith.divui %kk, %c2 : index
    %kk_scales = arith.divui %kk, %c32 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %b = qdot.load %b_desc[%kk_bytes, %off_n] : !qdot.desc<32x64xi8> -> tensor<32x64xi8>
    %sa = qdot.load %sa_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %sb = qdot.load %sb_desc[%off_n, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc_i lhs = e4m3 rhs = e2m1
         : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU> * tensor<32x64xi8>, tensor<64x2xf8E8M0FNU> -> tensor<64x64xf32>
    %done = arith.cmpi eq, %step, %last : index
    %next = scf.if %done -> (tensor<64x64xf32>) {
      qdot.store %c_desc[%c0, %off_n], %d : !qdot.desc<64x64xf32>, tensor<64x64xf32>
      scf.yield %d : tensor<64x64xf32>
    } else {
      scf.yield %d : tensor<64x64xf32>
    }
    scf.yield %next : tensor<64x64xf32>
  }
  func.return
}
