// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_120a}' --remarks=qdot-lower-local-load -o /dev/null 2>&1 | filecheck %s --check-prefix=SM120
// RUN: qdot-opt %s --split-input-file -p 'qdot-lower-local-load{arch=sm_90}' --remarks=qdot-lower-local-load -o /dev/null 2>&1 | filecheck %s --check-prefix=SM90
// Why a dot operand load falls back to scalar ld.shared, as --remarks gives it
// (passes/lower_local_load.py, _telling_refusal): the refusal of the most preferred form whose
// register count the thread's registers fill, naming the lane, register and byte that broke
// the fit — or, where the arch lacks the form, that it does — and the fallback's shared-memory wavefronts per
// warp (bank-conflict-remarks.mlir). The IR of these loads is pinned by
// scalar.mlir (kWidth 8) and fp4-kwidth-fallback.mlir (fp4Unpacked kWidth 4).

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a8 = #qgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>
#sh = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>

// kWidth 8: a lane's registers 0 and 2 hold K bytes 0-3 and 4-7 of one row, where .m8n8.b16
// would give register 2 the start of another 16-byte row.
// SM120: fallback-remarks.mlir:[[# @LINE + 3]]:3: remark: qdot-lower-local-load: lhs operand 32x64xi8 (kWidth 8): scalar ld.shared fallback: ldmatrix .m8n8.x4.b16 does not fit: the form reads 16-byte rows that must each begin at a multiple of 16 bytes, and this operand's bytes are not laid out that way: lane 0 register 2 byte 0 comes from offset 4, but the form gives that lane byte 0 of a row, so that row would begin at offset 4; 32 wavefronts where 16 would do (2-way bank conflicts) per warp{{$}}
// SM90:  fallback-remarks.mlir:[[# @LINE + 2]]:3: remark: qdot-lower-local-load: lhs operand 32x64xi8 (kWidth 8): scalar ld.shared fallback: ldmatrix .m8n8.x4.b16 does not fit: {{.*}} lane 0 register 2 byte 0 comes from offset 4,
func.func @kwidth8(%m: !qgpu.memdesc<32x64xi8, #sh>) -> tensor<32x64xi8, #a8> {
  %r = qgpu.local_load %m : !qgpu.memdesc<32x64xi8, #sh> -> tensor<32x64xi8, #a8>
  func.return %r : tensor<32x64xi8, #a8>
}

// -----

#mma = #qgpu.mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#bu = #qgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4, fp4Unpacked = true}>
#kmajor = #qgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], fp4Padded = true}>

// fp4Unpacked with kWidth 4: sm_120a has the fp4 form and tries it (a lane's register 1 would
// start a new padded row, its bytes are the next two packed bytes of the same row); sm_90 has
// no fp4 form at all.
// SM120: fallback-remarks.mlir:[[# @LINE + 3]]:3: remark: qdot-lower-local-load: rhs operand 32x32xi8 (kWidth 4, fp4Unpacked): scalar ld.shared fallback: ldmatrix .m8n16.x4.b8x16.b4x16_p64 does not fit: the form reads 16-byte rows that must each begin at a multiple of 16 bytes, and this operand's bytes are not laid out that way: lane 0 register 1 byte 0 comes from offset 2, but the form gives that lane byte 0 of a row, so that row would begin at offset 2; 32 wavefronts where 16 would do (2-way bank conflicts) per warp{{$}}
// SM90:  fallback-remarks.mlir:[[# @LINE + 2]]:3: remark: qdot-lower-local-load: rhs operand 32x32xi8 (kWidth 4, fp4Unpacked): scalar ld.shared fallback: sm_90 has no ldmatrix .m8n16.x4.b8x16.b4x16_p64 (sm_100a, sm_120a or sm_120f/sm_121a only); 32 wavefronts where 16 would do (2-way bank conflicts) per warp{{$}}
func.func @fp4_kwidth4(%m: !qgpu.memdesc<32x32xi8, #kmajor>) -> tensor<32x32xi8, #bu> {
  %b = qgpu.local_load %m : !qgpu.memdesc<32x32xi8, #kmajor> -> tensor<32x32xi8, #bu>
  func.return %b : tensor<32x32xi8, #bu>
}
