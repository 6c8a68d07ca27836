// The tools' own failures — an input that is not UTF-8, an output that cannot be written, a
// pass pipeline that does not parse — are one 'tool: error:' line and status 1, never an
// internal error (each was one until this test).
// RUN: printf '\377\376bad' > %t.bin
// RUN: not qdot-translate %t.bin 2>&1 | filecheck %s --check-prefix=ENCODING
// RUN: not qdot-opt < %t.bin 2>&1 | filecheck %s --check-prefix=STDIN
// RUN: not qdot-translate %s -o %t.missing/out.ptx 2>&1 | filecheck %s --check-prefix=WRITE
// RUN: not qdot-opt %s -o %t.missing/out.mlir 2>&1 | filecheck %s --check-prefix=WRITE
// RUN: not qdot-translate %s --pipeline 'qdot-pipeline{' 2>&1 | filecheck %s --check-prefix=PIPELINE
// RUN: not qdot-opt %s -p 'qdot-pipeline{' 2>&1 | filecheck %s --check-prefix=PIPELINE

func.func @f() {
  func.return
}

// ENCODING: qdot-translate: error: cannot read '{{.*}}.bin': it is not UTF-8 text (byte 0xff at offset 0)
// ENCODING-NOT: internal error
// STDIN: qdot-opt: error: cannot read '<stdin>': it is not UTF-8 text (byte 0xff at offset 0)
// WRITE: error: cannot write '{{.*}}.missing/out.{{ptx|mlir}}': No such file or directory
// WRITE-NOT: internal error
// PIPELINE: error: invalid pass pipeline 'qdot-pipeline{': Error parsing pass pipeline specification:
// PIPELINE-NOT: Traceback

// A UTF-8 byte-order mark before the text is skipped, and the locations after it are an editor's;
// a character the lexer refuses that a terminal would not show is named, not printed.
// RUN: printf '\357\273\277func.func @f() {\n  func.return 1\n}\n' > %t.bom
// RUN: not qdot-opt %t.bom 2>&1 | filecheck %s --check-prefix=BOM
// RUN: printf 'func.func @f() {\n  \000\n}\n' > %t.nul
// RUN: not qdot-opt %t.nul 2>&1 | filecheck %s --check-prefix=NUL
// BOM: {{.*}}.bom:2:15: error:
// BOM-NOT: Unexpected character
// NUL: {{.*}}.nul:2:3: error: Unexpected character: U+0000{{$}}

// A flag that cannot apply to the target is refused, not ignored.
// RUN: not qdot-translate %s --target ptx --format bin 2>&1 | filecheck %s --check-prefix=FORMAT
// RUN: not qdot-translate %s --target agx3b --verify-ptx 2>&1 | filecheck %s --check-prefix=VERIFY
// RUN: not qdot-translate %s --num-stages 0 2>&1 | filecheck %s --check-prefix=STAGES
// FORMAT: qdot-translate: error: --format chooses the AGX output form; it does not apply to --target ptx
// STAGES: qdot-translate: error: --num-stages must be an integer from 1 (no pipelining) to 16, got 0
// VERIFY: qdot-translate: error: --verify-ptx assembles PTX; it does not apply to --target agx3b
