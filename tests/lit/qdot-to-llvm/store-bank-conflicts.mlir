// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' --remarks=qdot-to-llvm -o /dev/null 2>&1 | filecheck %s
// The remark on a register → shared store counts its shared-memory wavefronts per warp from the two layout
// functions (passes/support/bank_conflicts.py), the figure Nsight Compute measures. q4_K's decoded scales on the
// one-token kernel's A side: thread t writes row t's eight f32, two 16-byte stores. Rows 32 bytes apart put a
// quarter-warp's eight stores on each 16-byte slot of the bank row twice (run 306 measured 2 ×); with the
// conflict-free swizzle of that pitch (halves of rows 4-7 of every 8 swapped, qdot-accelerate-matmul's choice
// since run 315) each slot once.

#bl = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#rows = #qgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>

// CHECK: remark: qdot-to-llvm: tensor<32x8xf32, {{.*}}> into shared memory: 2 st.shared per thread; 16 wavefronts where 8 would do (2-way bank conflicts) per warp
func.func @rows_32_bytes_apart(%v0: f32, %v1: f32, %v2: f32, %v3: f32, %v4: f32, %v5: f32, %v6: f32, %v7: f32, %a: i32)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %sc = builtin.unrealized_conversion_cast %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7 : f32, f32, f32, f32, f32, f32, f32, f32 to tensor<32x8xf32, #bl>
  %s = qgpu.local_alloc %sc : (tensor<32x8xf32, #bl>) -> !qgpu.memdesc<32x8xf32, #rows>
  %sa = builtin.unrealized_conversion_cast %s : !qgpu.memdesc<32x8xf32, #rows> to i32
  %x = ptx.ld_shared %sa : i32
  %z = arith.constant 0 : i32
  %d:4 = ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[%x, %a, %a, %a] B[%a, %a] C[%z, %z, %z, %z]
  "test.op"(%d#0) : (i32) -> ()
  func.return
}

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#swizzled = #qgpu.shared<{vec = 4, perPhase = 4, maxPhase = 2, order = [1, 0]}>

// CHECK: remark: qdot-to-llvm: tensor<32x8xf32, {{.*}}> into shared memory: 2 st.shared per thread; 8 wavefronts, no bank conflict per warp
func.func @rows_swizzled(%v0: f32, %v1: f32, %v2: f32, %v3: f32, %v4: f32, %v5: f32, %v6: f32, %v7: f32, %a: i32)
    attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  %sc = builtin.unrealized_conversion_cast %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7 : f32, f32, f32, f32, f32, f32, f32, f32 to tensor<32x8xf32, #bl>
  %s = qgpu.local_alloc %sc : (tensor<32x8xf32, #bl>) -> !qgpu.memdesc<32x8xf32, #swizzled>
  %sa = builtin.unrealized_conversion_cast %s : !qgpu.memdesc<32x8xf32, #swizzled> to i32
  %x = ptx.ld_shared %sa : i32
  %z = arith.constant 0 : i32
  %d:4 = ptx.mma_sync m16n8k32 s32.s8.s8.s32 A[%x, %a, %a, %a] B[%a, %a] C[%z, %z, %z, %z]
  "test.op"(%d#0) : (i32) -> ()
  func.return
}
