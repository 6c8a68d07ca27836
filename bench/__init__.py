"""GPU benchmarks (one script per GPU run); every figure goes to bench/RESULTS.md."""
