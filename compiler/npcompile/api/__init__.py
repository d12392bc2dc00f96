"""The public entry points: jit, run_cell, explain."""
