// RUN: qdot-opt %s --split-input-file --verify-diagnostics -p 'qdot-to-agx' > %t
// RUN: filecheck %s < %t
// RUN: grep -c ' error: ' %t | filecheck %s --check-prefix=COUNT
// RUN: not qdot-translate %s --target agx3b --format asm > %t.b 2>&1
// RUN: filecheck %s --check-prefix=TRANSLATE < %t.b
// RUN: not qdot-translate %s --target agx3c --format hex > %t.c 2>&1
// RUN: filecheck %s --check-prefix=TRANSLATE < %t.c
// A function with a dot is an AGX tile, and the AGX target emits only the tile's MMA stream and
// fragment map: every other op of it is refused at that op, never dropped from the output (the
// AGX target once printed the same stream for @add_after_dot as for examples/agx_tile_fp16.mlir).
// qdot-translate stops at the first one (the whole file is one module): exit 1, no stream.
// COUNT: {{^7$}}
// TRANSLATE:      not-a-tile.mlir:27:3: error: 'arith.addf' op is not part of an AGX dot tile:
// TRANSLATE-SAME: @add_after_dot holds a dot, so it is a tile: one qdot.dot_scaled of its arguments
// TRANSLATE-SAME: (acc may be a zero arith.constant) and the func.return of its result; the AGX target
// TRANSLATE-SAME: emits the MMA instruction stream of one dot tile per function and its fragment map
// TRANSLATE-SAME: (the operands' loads, the MMAs, the result's store), nothing else (docs/agx.md){{$}}
// TRANSLATE-NOT:  mma8
// TRANSLATE-NOT:  Traceback

// An op after the dot that uses its result, the result returned in the dot's place
// (examples/agx_tile_fp16.mlir with an addf).
func.func @add_after_dot(%a: tensor<8x16xf16>, %b: tensor<16x16xf16>,
                         %acc: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16
       : tensor<8x16xf16> * tensor<16x16xf16> -> tensor<8x16xf32>
  %e = arith.addf %d, %d : tensor<8x16xf32>
  func.return %e : tensor<8x16xf32>
}
// CHECK:      not-a-tile.mlir:[[# @LINE - 3]]:3: error: 'arith.addf' op is not part of an AGX dot tile:
// CHECK-SAME: @add_after_dot holds a dot, so it is a tile: one qdot.dot_scaled of its arguments
// CHECK-SAME: (acc may be a zero arith.constant) and the func.return of its result; the AGX target
// CHECK-SAME: emits the MMA instruction stream of one dot tile per function and its fragment map
// CHECK-SAME: (the operands' loads, the MMAs, the result's store), nothing else (docs/agx.md){{$}}

// -----

// An op before the dot on an input it does not feed (one that feeds it is refused at the dot:
// the operands must be arguments, tests/lit/qdot-to-agx/invalid.mlir).
func.func @mul_before_dot(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %a2 = arith.mulf %a, %a : tensor<8x8xf16>
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x8xf16> -> tensor<8x8xf32>
  func.return %d : tensor<8x8xf32>
}
// CHECK:      not-a-tile.mlir:[[# @LINE - 4]]:3: error: 'arith.mulf' op is not part of an AGX dot tile:
// CHECK-SAME: @mul_before_dot holds a dot, so it is a tile

// -----

// A constant that is not the dot's zero accumulator, used or not.
func.func @index_constant(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x8xf16> -> tensor<8x8xf32>
  func.return %d : tensor<8x8xf32>
}
// CHECK:      not-a-tile.mlir:[[# @LINE - 4]]:3: error: 'arith.constant' op is not part of an AGX dot tile:
// CHECK-SAME: @index_constant holds a dot

// -----

// A loop after the dot: refused at the loop, before anything inside it.
func.func @loop_after_dot(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>, %acc: tensor<8x8xf32>,
                          %n: index) -> tensor<8x8xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x8xf16> -> tensor<8x8xf32>
  %r = scf.for %i = %n to %n step %n iter_args(%c = %d) -> (tensor<8x8xf32>) {
    %e = arith.addf %c, %c : tensor<8x8xf32>
    scf.yield %e : tensor<8x8xf32>
  }
  func.return %r : tensor<8x8xf32>
}
// CHECK:      not-a-tile.mlir:[[# @LINE - 6]]:3: error: 'scf.for' op is not part of an AGX dot tile:
// CHECK-SAME: @loop_after_dot holds a dot

// -----

// The return: the tile's result once, or nothing. Another value (here the zero accumulator,
// which is otherwise part of the tile) would not be in the output.
func.func @returns_the_acc(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %acc = arith.constant dense<0.0> : tensor<8x8xf32>
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x8xf16> -> tensor<8x8xf32>
  func.return %d, %acc : tensor<8x8xf32>, tensor<8x8xf32>
}
// CHECK:      not-a-tile.mlir:[[# @LINE - 2]]:3: error: 'func.return' op returns %acc: a tile function
// CHECK-SAME: returns its dot's result once, or nothing; the AGX target emits the MMA instruction stream

// -----

func.func @returns_it_twice(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>,
                            %acc: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x8xf16> -> tensor<8x8xf32>
  func.return %d, %d : tensor<8x8xf32>, tensor<8x8xf32>
}
// CHECK:      not-a-tile.mlir:[[# @LINE - 2]]:3: error: 'func.return' op returns the tile's result more
// CHECK-SAME: than once: a tile function returns its dot's result once, or nothing

// -----

// A call (of a function the pass leaves alone: it holds no dot).
func.func @epilogue(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  func.return %x : tensor<8x8xf32>
}

func.func @calls_after_dot(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>, %acc: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x8xf16> -> tensor<8x8xf32>
  %e = func.call @epilogue(%d) : (tensor<8x8xf32>) -> tensor<8x8xf32>
  func.return %e : tensor<8x8xf32>
}
// CHECK:      not-a-tile.mlir:[[# @LINE - 3]]:3: error: 'func.call' op is not part of an AGX dot tile:
// CHECK-SAME: @calls_after_dot holds a dot

// -----

// What a tile may hold: the dot, its zero accumulator, the return of its result or of nothing.
// CHECK-LABEL: func.func @zero_acc_tile
// CHECK:       agx.mma8 %{{.*}}, %{{.*}}, zero
// CHECK:       %[[R:.*]] = agx.store_tile
// CHECK:       func.return %[[R]] : tensor<8x8xf32>
func.func @zero_acc_tile(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>) -> tensor<8x8xf32> {
  %acc = arith.constant dense<0.0> : tensor<8x8xf32>
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x8xf16> -> tensor<8x8xf32>
  func.return %d : tensor<8x8xf32>
}

// -----

// CHECK-LABEL: func.func @returns_nothing
// CHECK:       agx.store_tile
// CHECK-NEXT:  func.return{{$}}
func.func @returns_nothing(%a: tensor<8x8xf16>, %b: tensor<8x8xf16>, %acc: tensor<8x8xf32>) {
  %d = qdot.dot_scaled %a, %b, %acc lhs = fp16 rhs = fp16 : tensor<8x8xf16> * tensor<8x8xf16> -> tensor<8x8xf32>
  func.return
}
