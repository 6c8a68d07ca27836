// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-quantize,qdot-accelerate-matmul{arch=sm_90a},qdot-optimize-dot-operands,qdot-pipeline{num-stages=3},qdot-lower-local-load{arch=sm_90a},qdot-lower-mma,qdot-to-llvm{arch=sm_90a}' | filecheck %s
// A tile too narrow for cp.async (the 2-byte rows of per-32 scales at a 64-value K step) is
// copied with synchronous loads and shared stores: of 2 bytes where the rows, the tile's offset
// and the tensor's extent are provably even (K a multiple of 128 here: K/32 scales per row),
// else of single bytes. Inside the K loop such a copy fills a ring slot read two iterations
// later, so its shared stores go at the end of the iteration (before the back edge) and the
// global loads' latency is spent on the iteration instead of stalling every warp at its top;
// before the loop (the prologue) each store follows its load.

// CHECK-LABEL: func.func @mx
// CHECK:       %[[P0:.*]] = ptx.ld_global %{{.*}} if %{{.*}} : i16
// CHECK-NOT:   ptx.cp_async_commit
// CHECK:       ptx.st_shared %{{.*}}, %[[P0]] : i16
// CHECK:       ^bb2:
// CHECK-NEXT:  ptx.cp_async_wait 1
// CHECK:       %[[L0:.*]] = ptx.ld_global %{{.*}} if %{{.*}} : i16
// CHECK:       %[[L1:.*]] = ptx.ld_global %{{.*}} if %{{.*}} : i16
// CHECK-NEXT:  ptx.cp_async_commit
// CHECK-NOT:   ptx.st_shared %{{.*}} : i16
// CHECK:       ptx.wgmma_wait 1
// CHECK:       ptx.st_shared %{{.*}}, %[[L0]] : i16
// CHECK:       ptx.st_shared %{{.*}}, %[[L1]] : i16
// CHECK-NOT:   ptx.
// CHECK:       cf.br ^bb1
func.func @mx(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %sa_ptr: !qdot.ptr<f8E8M0FNU>,
              %sb_ptr: !qdot.ptr<f8E8M0FNU>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
              %k: index {qdot.divisibility = 128 : i64}) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %k_bytes = arith.divui %k, %c2 : index
  %k_scales = arith.divui %k, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%k_bytes, %n], [%c1, %k_bytes] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %sa_desc = qdot.make_desc %sa_ptr, [%m, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) {
    %kk_bytes = arith.divui %kk, %c2 : index
    %kk_scales = arith.divui %kk, %c32 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %b = qdot.load %b_desc[%kk_bytes, %c0] : !qdot.desc<32x64xi8> -> tensor<32x64xi8>
    %sa = qdot.load %sa_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %sb = qdot.load %sb_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc_i lhs = e4m3 rhs = e2m1
         : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU> * tensor<32x64xi8>, tensor<64x2xf8E8M0FNU> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}

// -----

// K only known to be a multiple of 32: a row of scales may hold an odd number of bytes, so the
// copy moves single bytes (still stored at the end of the iteration).
// CHECK-LABEL: func.func @mx_odd
// CHECK:       ^bb2:
// CHECK:       %[[B0:.*]] = ptx.ld_global %{{.*}} if %{{.*}} : i8
// CHECK-NOT:   ptx.ld_global %{{.*}} : i16
// CHECK:       ptx.wgmma_wait 1
// CHECK:       ptx.st_shared %{{.*}}, %[[B0]] : i8
func.func @mx_odd(%a_ptr: !qdot.ptr<f8E4M3FN>, %b_ptr: !qdot.ptr<i8>, %sa_ptr: !qdot.ptr<f8E8M0FNU>,
              %sb_ptr: !qdot.ptr<f8E8M0FNU>, %c_ptr: !qdot.ptr<f32>, %m: index, %n: index,
              %k: index {qdot.divisibility = 32 : i64}) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %k_bytes = arith.divui %k, %c2 : index
  %k_scales = arith.divui %k, %c32 : index
  %a_desc = qdot.make_desc %a_ptr, [%m, %k], [%k, %c1] : !qdot.ptr<f8E4M3FN> -> !qdot.desc<64x64xf8E4M3FN>
  %b_desc = qdot.make_desc %b_ptr, [%k_bytes, %n], [%c1, %k_bytes] : !qdot.ptr<i8> -> !qdot.desc<32x64xi8>
  %sa_desc = qdot.make_desc %sa_ptr, [%m, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %sb_desc = qdot.make_desc %sb_ptr, [%n, %k_scales], [%k_scales, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<64x2xf8E8M0FNU>
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x64xf32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %acc = scf.for %kk = %c0 to %k step %c64 iter_args(%acc_i = %zero) -> (tensor<64x64xf32>) {
    %kk_bytes = arith.divui %kk, %c2 : index
    %kk_scales = arith.divui %kk, %c32 : index
    %a = qdot.load %a_desc[%c0, %kk] : !qdot.desc<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %b = qdot.load %b_desc[%kk_bytes, %c0] : !qdot.desc<32x64xi8> -> tensor<32x64xi8>
    %sa = qdot.load %sa_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %sb = qdot.load %sb_desc[%c0, %kk_scales] : !qdot.desc<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
    %d = qdot.dot_scaled %a scale %sa, %b scale %sb, %acc_i lhs = e4m3 rhs = e2m1
         : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU> * tensor<32x64xi8>, tensor<64x2xf8E8M0FNU> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  qdot.store %c_desc[%c0, %c0], %acc : !qdot.desc<64x64xf32>, tensor<64x64xf32>
  func.return
}

// -----

// A loop that waits for its own copy in the same iteration: the copy's data is promised at the
// qgpu.async_wait, so the deferred shared stores go before the wait (and so before the reads),
// not at the end of the iteration.
// CHECK-LABEL: func.func @own_wait
// CHECK:       ^bb2:
// CHECK:       %[[V:.*]] = ptx.ld_global %{{.*}} if %{{.*}} : i8
// CHECK:       ptx.st_shared %{{.*}}, %[[V]] : i8
// CHECK:       ptx.cp_async_wait 0
// CHECK-NEXT:  ptx.bar_sync
// CHECK-NOT:   ptx.st_shared %{{.*}} : i8
// CHECK:       ptx.ld_shared
#sh = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#bl = #qgpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @own_wait(%p: !qdot.ptr<f8E8M0FNU>, %o: !qdot.ptr<f8E8M0FNU>, %m: index, %k: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d = qdot.make_desc %p, [%m, %k], [%k, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<32x2xf8E8M0FNU>
  %od = qdot.make_desc %o, [%m, %k], [%k, %c1] : !qdot.ptr<f8E8M0FNU> -> !qdot.desc<32x2xf8E8M0FNU>
  %buf = qgpu.local_alloc : () -> !qgpu.memdesc<32x2xf8E8M0FNU, #sh, mutable>
  scf.for %i = %c0 to %k step %c2 {
    qgpu.async_copy %d[%c0, %i], %buf : !qdot.desc<32x2xf8E8M0FNU>, !qgpu.memdesc<32x2xf8E8M0FNU, #sh, mutable>
    qgpu.async_commit
    qgpu.async_wait {pending = 0}
    %t = qgpu.local_load %buf : !qgpu.memdesc<32x2xf8E8M0FNU, #sh, mutable> -> tensor<32x2xf8E8M0FNU, #bl>
    qdot.store %od[%c0, %i], %t : !qdot.desc<32x2xf8E8M0FNU>, tensor<32x2xf8E8M0FNU, #bl>
  }
  func.return
}
