// RUN: not qdot-opt %s 2>&1 | filecheck %s
// A stray quote as the file's first token: xDSL lexes that token while it builds the parser, and
// its string pattern backtracked exponentially on the rest of the file (minutes: input fuzz, seed
// 161); qdot's linear pattern now replaces it on the lexer class, before any parser exists.
// CHECK: stray-quote-first.mlir:[[# @LINE + 1]]:1: error: End of file reached before closing string literal.
"promote = #qgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func @e5m2_e3m2(%a: tensor<32x64xf8E5M2>, %b: tensor<64x32xf6E3M2FN>, %acc: tensor<32x32xf32>) -> tensor<32x32xf32>
    attributes {qdot.num_warps = 1 : i64} {
  %d = qdot.dot_scaled %a, %b, %acc lhs = e5m2 rhs = e3m2 : tensor<32x64xf8E5M2> * tensor<64x32xf6E3M2FN> -> tensor<32x32xf32>
  func.return %d : tensor<32x32xf32>
}
