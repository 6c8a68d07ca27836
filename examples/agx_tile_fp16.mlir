// AGX (Apple GPU) dot tile: D [8, 16] f32 = ACC + A [8, 16] fp16 × B [16, 16] fp16, one simdgroup.
//   The AGX target emits the 8×8 matrix multiply-accumulate stream of this tile (four agx.mma8:
//   two 8×8 output blocks, two K steps) and the register map of its fragments, not a whole shader:
//   only the matrix instruction has a published encoding (docs/agx.md says which bits are facts and
//   which are labelled assumptions). The loads and stores the map describes are the shader's part.
//
// Compile:
//   qdot-translate examples/agx_tile_fp16.mlir --target agx3b --format asm   # G16 / M4: 12-byte mma8
//   qdot-translate examples/agx_tile_fp16.mlir --target agx3c --format hex   # M5: 14-byte mma8
//   qdot-opt examples/agx_tile_fp16.mlir -p 'qdot-to-agx{form=agx3b},agx-allocate-registers,agx-hints-and-waits'
//   (the default hints=false waits=all: an MMA that needs a wait waits on every slot, no hint is set, so the
//   stream's meaning rests on neither the wait-slot order A3 nor the hint bits A4; hints=true waits=needed
//   gives the liveness-based stream, which rests on both)
// Nothing here ran on Apple hardware; tests/examples runs the stream on the AGX emulator
// (targets.agx.run.emulate) against compiler.numerics.dot_scaled.
func.func @tile(%a: tensor<8x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<8x16xf16> * tensor<16x16xf16> -> tensor<8x16xf32>
  func.return %d : tensor<8x16xf32>
}
