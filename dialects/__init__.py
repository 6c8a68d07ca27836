"""xDSL dialects: qdot (tensor level), qgpu (layouts and GPU memory), ptx (one op per instruction), agx (Apple matrix core)."""
