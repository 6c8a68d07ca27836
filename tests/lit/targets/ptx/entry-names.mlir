// A function's name is its PTX name (a kernel's .entry, which the runner looks up by name), so one
// that is not a PTX identifier is refused where it is defined: LLVM's NVPTX backend stopped the
// process on '-', ' ' or 'é' ("Symbol name with unsupported characters", no diagnostic) and
// renamed '.' to '_$_', where the runner would not find the kernel. '$' and a leading '_' are PTX's.

// RUN: sed 's/@NAME/@"my-kernel"/' %s | not qdot-translate --target ptx 2>&1 | filecheck %s --check-prefix=DASH
// RUN: sed 's/@NAME/@"kernel.v2"/' %s | not qdot-translate --target ptx 2>&1 | filecheck %s --check-prefix=DOT
// RUN: sed 's/@NAME/@"é"/' %s | not qdot-translate --target llvm 2>&1 | filecheck %s --check-prefix=UTF8
// RUN: sed 's/@NAME/@"_k$1"/' %s | qdot-translate --target ptx | filecheck %s --check-prefix=OK

// DASH: <stdin>:[[# @LINE + 5]]:1: error: 'func.func' op name 'my-kernel' is not a PTX identifier (letters, digits, '_' and '$', starting with a letter, or with '_' or '$' and one more)
// DOT: error: 'func.func' op name 'kernel.v2' is not a PTX identifier
// UTF8: error: 'func.func' op name 'é' is not a PTX identifier
// OK: .visible .entry _k$1(

func.func @NAME(%p: !qdot.ptr<f32>, %n: index) attributes {qdot.kernel, qdot.num_warps = 1 : i64} {
  func.return
}
