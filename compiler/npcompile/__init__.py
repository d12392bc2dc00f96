"""npcompile: trace NumPy code into fused kernels for the CPU (LLVM) and NVIDIA GPUs (CUDA)."""
__version__ = "0.1.0"
