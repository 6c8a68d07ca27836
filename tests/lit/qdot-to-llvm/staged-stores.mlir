// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm{epilogue=staged}' | filecheck %s
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm' | filecheck %s --check-prefix=DIRECT
// RUN: not qdot-opt %s --split-input-file -p 'qdot-to-llvm{epilogue=fast}' 2>&1 | filecheck %s --check-prefix=BAD
// RUN: qdot-opt %s --split-input-file -p 'qdot-to-llvm{epilogue=staged}' --remarks=qdot-to-llvm -o /dev/null 2> %t.remarks
// RUN: filecheck %s --check-prefix=REMARK < %t.remarks
// RUN: grep -c 'not staged' %t.remarks | filecheck %s --check-prefix=REMARK-COUNT
// qdot-to-llvm{epilogue=staged}: an f32 tile stored after the K loop goes through shared memory
// (passes/support/staged_stores.py). Each warp writes its registers' column pairs into its own
// region (16 rows of the wgmma accumulator, rows padded to ≡ 8 words mod 32), a barrier, then
// lanes read 16-byte vectors along the rows and store them, one bounds test per vector (N, the
// pitch and the column origin multiples of 4: qdot.divisibility on N, an origin of pid · 16).
// Without the option (DIRECT) each pair is one st.global.v2.
// BAD: qdot-to-llvm: unknown epilogue 'fast'; expected one of direct, staged
// With --remarks (the REMARK lines) the pass says at each store why it is not staged, and
// the count pins how many of this file's stores stay direct under epilogue=staged.
// REMARK-COUNT: {{^8$}}

#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]}>
#sh = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// 4 warps × 16 rows × 40 words × 4 bytes = 10240 bytes of the kernel's 16384: one chunk.
// CHECK-LABEL: func.func @staged
// CHECK:       ptx.cp_async_wait 0
// CHECK:       ptx.bar_sync
// CHECK-COUNT-4: ptx.st_shared %{{.*}}, %{{.*}} : vector<2xi32>
// CHECK-NEXT:  ptx.bar_sync
// CHECK:       ptx.ld_shared %{{.*}} : vector<4xi32>
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : vector<4xi32>
// CHECK:       ptx.ld_shared %{{.*}} : vector<4xi32>
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : vector<4xi32>
// CHECK-NOT:   ptx.st_global
// CHECK:       func.return
// DIRECT-LABEL: func.func @staged
// DIRECT-NOT:  ptx.st_shared
// DIRECT-COUNT-4: ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : vector<2xi32>
// DIRECT-NOT:  ptx.st_global
// DIRECT:      func.return
func.func @staged(%c_ptr: !qdot.ptr<f32>, %m: index, %n: index {qdot.divisibility = 8 : i64}, %pid: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %ring = qgpu.local_alloc : () -> !qgpu.memdesc<2x64x64xbf16, #sh, mutable>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %off_n = arith.muli %pid, %c16 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x16xf32>
  %acc = arith.constant dense<1.000000e+00> : tensor<64x16xf32, #mma3>
  qdot.store %c_desc[%c0, %off_n], %acc : !qdot.desc<64x16xf32>, tensor<64x16xf32, #mma3>
  func.return
}

// -----

#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]}>
#sh = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// 4096 bytes of shared memory: the regions never grow the kernel's allocation, so the 16
// columns go in two chunks of 8 (4 warps × 16 rows × 8 words = 2048 bytes), each written,
// read and stored between barriers.
// CHECK-LABEL: func.func @chunked
// CHECK-SAME:  qdot.shared_bytes = 4096 : i64
// CHECK:       ptx.bar_sync
// CHECK-COUNT-2: ptx.st_shared %{{.*}}, %{{.*}} : vector<2xi32>
// CHECK-NEXT:  ptx.bar_sync
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : vector<4xi32>
// CHECK:       ptx.bar_sync
// CHECK-COUNT-2: ptx.st_shared %{{.*}}, %{{.*}} : vector<2xi32>
// CHECK-NEXT:  ptx.bar_sync
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : vector<4xi32>
// CHECK-NOT:   ptx.st_global
func.func @chunked(%c_ptr: !qdot.ptr<f32>, %m: index, %n: index {qdot.divisibility = 8 : i64}, %pid: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %buf = qgpu.local_alloc : () -> !qgpu.memdesc<64x64xi8, #sh, mutable>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %off_n = arith.muli %pid, %c16 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x16xf32>
  %acc = arith.constant dense<1.000000e+00> : tensor<64x16xf32, #mma3>
  qdot.store %c_desc[%c0, %off_n], %acc : !qdot.desc<64x16xf32>, tensor<64x16xf32, #mma3>
  func.return
}

// -----

#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]}>

// No shared memory to reuse: direct pair stores.
// CHECK-LABEL: func.func @no_shared_memory
// CHECK-NOT:   ptx.st_shared
// CHECK-COUNT-4: ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : vector<2xi32>
func.func @no_shared_memory(%c_ptr: !qdot.ptr<f32>, %m: index, %n: index {qdot.divisibility = 8 : i64},
                            %pid: index) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %off_n = arith.muli %pid, %c16 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x16xf32>
  %acc = arith.constant dense<1.000000e+00> : tensor<64x16xf32, #mma3>
  qdot.store %c_desc[%c0, %off_n], %acc : !qdot.desc<64x16xf32>, tensor<64x16xf32, #mma3>
  func.return
}

// -----

#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]}>
#sh = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// N only known even: a 16-byte vector could straddle N, so the pairs stay.
// CHECK-LABEL: func.func @n_even
// CHECK-NOT:   ptx.st_shared
// CHECK-COUNT-4: ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : vector<2xi32>
func.func @n_even(%c_ptr: !qdot.ptr<f32>, %m: index, %n: index {qdot.divisibility = 2 : i64}, %pid: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %ring = qgpu.local_alloc : () -> !qgpu.memdesc<2x64x64xbf16, #sh, mutable>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %off_n = arith.muli %pid, %c16 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x16xf32>
  %acc = arith.constant dense<1.000000e+00> : tensor<64x16xf32, #mma3>
  qdot.store %c_desc[%c0, %off_n], %acc : !qdot.desc<64x16xf32>, tensor<64x16xf32, #mma3>
  func.return
}

// -----

#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]}>
#sh = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// A store inside a loop (a persistent kernel's) runs while later copies may be landing in the
// shared memory the regions would reuse: direct stores.
// CHECK-LABEL: func.func @in_loop
// CHECK-NOT:   ptx.st_shared
// CHECK-COUNT-4: ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : vector<2xi32>
func.func @in_loop(%c_ptr: !qdot.ptr<f32>, %m: index, %n: index {qdot.divisibility = 8 : i64}, %pid: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %ring = qgpu.local_alloc : () -> !qgpu.memdesc<2x64x64xbf16, #sh, mutable>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x16xf32>
  %acc = arith.constant dense<1.000000e+00> : tensor<64x16xf32, #mma3>
  scf.for %t = %c0 to %c2 step %c1 {
    %off_n = arith.muli %t, %c16 : index
    qdot.store %c_desc[%c0, %off_n], %acc : !qdot.desc<64x16xf32>, tensor<64x16xf32, #mma3>
  }
  func.return
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#sh = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// The mma.sync accumulator of a 2 × 2 warp grid over a 64 × 32 tile: each warp's registers
// cover rows and columns interleaved with the other warps' (16-row and 8-column pieces), not
// one rectangle a warp can stage alone: direct stores.
// CHECK-LABEL: func.func @interleaved_warps
// CHECK-NOT:   ptx.st_shared
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : vector<2xi32>
func.func @interleaved_warps(%c_ptr: !qdot.ptr<f32>, %m: index, %n: index {qdot.divisibility = 8 : i64},
                             %pid: index) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %ring = qgpu.local_alloc : () -> !qgpu.memdesc<2x64x64xbf16, #sh, mutable>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %off_n = arith.muli %pid, %c32 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x32xf32>
  %acc = arith.constant dense<1.000000e+00> : tensor<64x32xf32, #mma>
  qdot.store %c_desc[%c0, %off_n], %acc : !qdot.desc<64x32xf32>, tensor<64x32xf32, #mma>
  func.return
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#sh = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// The mma.sync accumulator with its warps stacked along M: each warp's registers cover 16 whole
// rows of the 64 × 16 tile (two 16 × 8 pieces side by side), one rectangle, so it is staged.
// CHECK-LABEL: func.func @stacked_warps
// CHECK:       ptx.bar_sync
// CHECK-COUNT-4: ptx.st_shared %{{.*}}, %{{.*}} : vector<2xi32>
// CHECK-NEXT:  ptx.bar_sync
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : vector<4xi32>
func.func @stacked_warps(%c_ptr: !qdot.ptr<f32>, %m: index, %n: index {qdot.divisibility = 8 : i64},
                         %pid: index) attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %ring = qgpu.local_alloc : () -> !qgpu.memdesc<2x64x64xbf16, #sh, mutable>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %off_n = arith.muli %pid, %c16 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x16xf32>
  %acc = arith.constant dense<1.000000e+00> : tensor<64x16xf32, #mma>
  qdot.store %c_desc[%c0, %off_n], %acc : !qdot.desc<64x16xf32>, tensor<64x16xf32, #mma>
  func.return
}

// -----

#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]}>
#sh = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// A split-K reduction: red.global.add has no 16-byte vector form that staging could use, and
// the staged vectors would add whole rows where the reduction adds element by element: never
// staged, even where @staged's tile would be.
// CHECK-LABEL: func.func @reduction
// CHECK-NOT:   ptx.st_shared
// CHECK:       ptx.red_global_add %{{.*}}, %{{.*}} if %{{.*}} : f32
// CHECK-NOT:   ptx.st_global
// CHECK:       func.return
func.func @reduction(%c_ptr: !qdot.ptr<f32>, %m: index, %n: index {qdot.divisibility = 8 : i64}, %pid: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %ring = qgpu.local_alloc : () -> !qgpu.memdesc<2x64x64xbf16, #sh, mutable>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %off_n = arith.muli %pid, %c16 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x16xf32>
  %acc = arith.constant dense<1.000000e+00> : tensor<64x16xf32, #mma3>
  qdot.store %c_desc[%c0, %off_n], %acc {reduce = "add"} : !qdot.desc<64x16xf32>, tensor<64x16xf32, #mma3>
  func.return
}
// REMARK: staged-stores.mlir:[[# @LINE - 3]]:3: remark: qdot-to-llvm: epilogue direct: 8 single red.global.add per thread {{.*}}; not staged (epilogue=staged): a reduction (red.global.add) is never staged

// -----

#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]}>
#sh = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// A bf16 tile (GemmConfig(out="bf16")): the regions hold 4-byte words, one element each, and
// the reads are 4-element vectors; a 2-byte tile keeps its direct 4-byte stores of pairs.
// CHECK-LABEL: func.func @bf16_tile
// CHECK-NOT:   ptx.st_shared
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : i32
// CHECK-NOT:   vector<4xi32>
// CHECK:       func.return
func.func @bf16_tile(%c_ptr: !qdot.ptr<bf16>, %m: index, %n: index {qdot.divisibility = 8 : i64}, %pid: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %ring = qgpu.local_alloc : () -> !qgpu.memdesc<2x64x64xbf16, #sh, mutable>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %off_n = arith.muli %pid, %c16 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<bf16> -> !qdot.desc<64x16xbf16>
  %acc = arith.constant dense<1.000000e+00> : tensor<64x16xbf16, #mma3>
  qdot.store %c_desc[%c0, %off_n], %acc : !qdot.desc<64x16xbf16>, tensor<64x16xbf16, #mma3>
  func.return
}
// REMARK: staged-stores.mlir:[[# @LINE - 3]]:3: remark: qdot-to-llvm: epilogue direct: {{.*}}; not staged (epilogue=staged): its elements are 2-byte, and staging moves 4-byte ones (an f32 or i32 tile)

// -----

#bl = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// A blocked layout whose CTA tile (32 × 16) is taller than the 16 × 16 tile: rows wrap, so
// warps 2 and 3 hold warps 0 and 1's rows again. Each warp's registers are still one 8 × 16
// rectangle, but two warps would stage (and store) the same rows from regions at different
// origins: refused on the wrap itself, before the warps' rectangles are compared. Stored directly, each
// thread's 16-byte run (N a multiple of 8) is one st.global.v4 from its registers.
// CHECK-LABEL: func.func @wrapping
// CHECK-NOT:   ptx.st_shared
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : vector<4xi32>
// CHECK-NOT:   ptx.st_shared
// CHECK:       func.return
func.func @wrapping(%c_ptr: !qdot.ptr<f32>, %m: index, %n: index {qdot.divisibility = 8 : i64}, %pid: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %ring = qgpu.local_alloc : () -> !qgpu.memdesc<2x64x64xbf16, #sh, mutable>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %off_n = arith.muli %pid, %c16 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<16x16xf32>
  %acc = arith.constant dense<1.000000e+00> : tensor<16x16xf32, #bl>
  qdot.store %c_desc[%c0, %off_n], %acc : !qdot.desc<16x16xf32>, tensor<16x16xf32, #bl>
  func.return
}
// REMARK: staged-stores.mlir:[[# @LINE - 3]]:3: remark: qdot-to-llvm: epilogue direct: {{.*}}; not staged (epilogue=staged): the layout wraps around the tile (a coordinate is taken modulo the tile's size)

// -----

#mma3 = #qgpu.mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 16, 16]}>
#sh = #qgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// A read of the kernel's shared memory after the store: the regions would overwrite the ring
// it reads, so the store stays direct (only stores and constants may follow a staged one).
// CHECK-LABEL: func.func @read_after
// CHECK-NOT:   ptx.st_shared
// CHECK:       ptx.st_global %{{.*}}, %{{.*}} if %{{.*}} : vector<2xi32>
// CHECK-NOT:   vector<4xi32>
// CHECK:       ptx.ld_shared %{{.*}} : i32
func.func @read_after(%c_ptr: !qdot.ptr<f32>, %m: index, %n: index {qdot.divisibility = 8 : i64}, %pid: index)
    attributes {qdot.kernel, qdot.num_warps = 4 : i64} {
  %ring = qgpu.local_alloc : () -> !qgpu.memdesc<2x64x64xbf16, #sh, mutable>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %off_n = arith.muli %pid, %c16 : index
  %c_desc = qdot.make_desc %c_ptr, [%m, %n], [%n, %c1] : !qdot.ptr<f32> -> !qdot.desc<64x16xf32>
  %acc = arith.constant dense<1.000000e+00> : tensor<64x16xf32, #mma3>
  qdot.store %c_desc[%c0, %off_n], %acc : !qdot.desc<64x16xf32>, tensor<64x16xf32, #mma3>
  %base = builtin.unrealized_conversion_cast %ring : !qgpu.memdesc<2x64x64xbf16, #sh, mutable> to i32
  %x = ptx.ld_shared %base : i32
  "test.op"(%x) : (i32) -> ()
  func.return
}
// REMARK: staged-stores.mlir:[[# @LINE - 6]]:3: remark: qdot-to-llvm: epilogue direct: {{.*}}; not staged (epilogue=staged): operations other than stores follow it in the function, and may read the shared memory the staging would overwrite
