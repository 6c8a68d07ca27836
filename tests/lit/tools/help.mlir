// Both tools' --help list every pass with what it does, its options, their defaults and, where
// the pass names them, the values they take (an integer's range).
// RUN: qdot-opt --help | filecheck %s
// RUN: qdot-translate --help | filecheck %s

// CHECK:      passes, each with its options and their defaults
// CHECK:      qdot-lower-quantize {{ +}}a kernel's `qdot.load`
// CHECK:      qdot-accelerate-matmul {{ +}}turn each `qdot.dot_scaled` into a tensor-core plan
// CHECK-NEXT:   arch=sm_90
// CHECK-NEXT:     (sm_80|sm_86|sm_89|sm_90|sm_90a|sm_120a|sm_120f|sm_121a)
// CHECK-NEXT:   strategy=auto
// CHECK-NEXT:     (auto|native|promote-fp8|promote-int8|dequant-bf16)
// CHECK-NEXT:   q4k-fold=auto (auto|mma|fma)
// CHECK:      qdot-pipeline {{ +}}software pipelining
// CHECK-NEXT:   num-stages=3 (1..16){{$}}
// CHECK:      qdot-to-llvm
// CHECK:        epilogue=direct (direct|staged)
// CHECK:      qdot-to-agx
// CHECK-NEXT:   form=agx3b (agx3b|agx3c)
// CHECK-NEXT:   dequant-type=auto (auto|fp16|fp32)
// CHECK:      cse {{ +}}common subexpression elimination

// --show-dialects lists what the parser accepts, by dialect.
// RUN: qdot-opt --show-dialects | filecheck %s --check-prefix=DIALECTS
// DIALECTS:      Available dialects:
// DIALECTS:        qdot operations: qdot.barrier, qdot.dot_scaled, qdot.last_arrival, qdot.load, qdot.make_desc
// DIALECTS:        qdot attributes and types: qdot.axis, qdot.block, qdot.desc, qdot.format, qdot.ptr
// DIALECTS:        qgpu operations: qgpu.async_commit, qgpu.async_copy
// DIALECTS:        ptx operations: ptx.atom_global_add, ptx.bar_red_or, ptx.bar_sync
// DIALECTS:        agx operations: agx.dequant_frag, agx.load_frag, agx.mma8, agx.store_tile
