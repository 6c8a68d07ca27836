"""Targets: ptx (LLVM IR emission, llvmlite -> PTX, ptxas, CuPy runner) and agx (AGX3B/AGX3C encoders, decoder, emulator)."""
