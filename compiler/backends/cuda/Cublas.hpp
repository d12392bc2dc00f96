#pragma once
// cuBLAS, opened at run time from a path Python found (the toolkit's, or NVIDIA's wheels
// beside CuPy or PyTorch): matrix products on the device. The few entry points it calls
// are declared here, so the build needs no cuBLAS header and a machine without cuBLAS
// still imports the module (its matrix products then go through the host).
#include <cstdint>
#include <string>

namespace npc::cuda {

// Opens the library at `path` and makes a handle on npcompile's stream; "" when ready,
// else why not (another path may then be tried). Once open, later calls return "".
std::string cublas_open(const std::string& path);

// C = op(A) op(B) in cuBLAS's column-major terms (m x n, leading dimension ldc), for
// `batch` matrices at element strides stride_a/b/c apart (0: the same matrix for every
// batch); dtype 'f' (float32) or 'd' (float64). Queued on npcompile's stream, after the
// kernels before it. Throws CudaError when cuBLAS refuses.
void cublas_gemm(char dtype, bool trans_a, bool trans_b, int m, int n, int k,
                 std::uintptr_t a, int lda, long long stride_a,
                 std::uintptr_t b, int ldb, long long stride_b,
                 std::uintptr_t c, int ldc, long long stride_c, int batch);

} // namespace npc::cuda
