#include "Cublas.hpp"

#include "CudaError.hpp"
#include "Device.hpp"
#include "DynamicLibrary.hpp"

#include <memory>
#include <mutex>

namespace npc::cuda {
namespace {

// cuBLAS's C interface as its documentation gives it: statuses and operations are ints,
// the handle an opaque pointer (the _v2 entry points are the current ones).
using Handle = void*;
using CreateFn = int (*)(Handle*);
using SetStreamFn = int (*)(Handle, CUstream);
template <typename T>
using GemmFn = int (*)(Handle, int, int, int, int, int, const T*, const T*, int, const T*, int,
                       const T*, T*, int);
template <typename T>
using GemmBatchedFn = int (*)(Handle, int, int, int, int, int, const T*, const T*, int,
                              long long, const T*, int, long long, const T*, T*, int, long long,
                              int);

struct Cublas {
  std::unique_ptr<DynamicLibrary> lib;
  Handle handle = nullptr;
  GemmFn<float> sgemm = nullptr;
  GemmFn<double> dgemm = nullptr;
  GemmBatchedFn<float> sgemm_batched = nullptr;
  GemmBatchedFn<double> dgemm_batched = nullptr;
};

Cublas& state() {
  static Cublas s;
  return s;
}

std::string open_once(const std::string& path) {
  Cublas& s = state();
  s.lib = std::make_unique<DynamicLibrary>(std::vector<std::string>{path});
  if (!s.lib->ok())
    return "cuBLAS did not open: " + s.lib->error();
  auto create = reinterpret_cast<CreateFn>(s.lib->symbol("cublasCreate_v2"));
  auto set_stream = reinterpret_cast<SetStreamFn>(s.lib->symbol("cublasSetStream_v2"));
  s.sgemm = reinterpret_cast<GemmFn<float>>(s.lib->symbol("cublasSgemm_v2"));
  s.dgemm = reinterpret_cast<GemmFn<double>>(s.lib->symbol("cublasDgemm_v2"));
  s.sgemm_batched =
      reinterpret_cast<GemmBatchedFn<float>>(s.lib->symbol("cublasSgemmStridedBatched"));
  s.dgemm_batched =
      reinterpret_cast<GemmBatchedFn<double>>(s.lib->symbol("cublasDgemmStridedBatched"));
  if (!create || !set_stream || !s.sgemm || !s.dgemm || !s.sgemm_batched || !s.dgemm_batched)
    return "cuBLAS at " + path + " lacks a function npcompile calls";
  const Device& device = Device::get();
  device.make_current();
  if (int r = create(&s.handle); r != 0)
    return "cublasCreate failed with status " + std::to_string(r);
  if (int r = set_stream(s.handle, device.stream); r != 0)
    return "cublasSetStream failed with status " + std::to_string(r);
  return "";
}

template <typename T>
int gemm(GemmFn<T> one, GemmBatchedFn<T> many, bool ta, bool tb, int m, int n, int k,
         std::uintptr_t a, int lda, long long sa, std::uintptr_t b, int ldb, long long sb,
         std::uintptr_t c, int ldc, long long sc, int batch) {
  const T alpha = 1, beta = 0;
  Handle h = state().handle;
  const auto* pa = reinterpret_cast<const T*>(a);
  const auto* pb = reinterpret_cast<const T*>(b);
  auto* pc = reinterpret_cast<T*>(c);
  if (batch == 1)
    return one(h, ta ? 1 : 0, tb ? 1 : 0, m, n, k, &alpha, pa, lda, pb, ldb, &beta, pc, ldc);
  return many(h, ta ? 1 : 0, tb ? 1 : 0, m, n, k, &alpha, pa, lda, sa, pb, ldb, sb, &beta, pc,
              ldc, sc, batch);
}

} // namespace

std::string cublas_open(const std::string& path) {
  static std::mutex mutex;
  static bool ready = false;
  std::lock_guard<std::mutex> lock(mutex);
  if (ready)
    return "";
  std::string why;
  try {
    why = open_once(path);
  } catch (const std::exception& e) {
    why = e.what();
  }
  ready = why.empty();
  return why;
}

void cublas_gemm(char dtype, bool trans_a, bool trans_b, int m, int n, int k, std::uintptr_t a,
                 int lda, long long stride_a, std::uintptr_t b, int ldb, long long stride_b,
                 std::uintptr_t c, int ldc, long long stride_c, int batch) {
  Cublas& s = state();
  if (s.handle == nullptr)
    throw CudaError("cuBLAS is not open");
  const Device& device = Device::get();
  device.make_current();
  device.queued();
  int r = dtype == 'd'
              ? gemm<double>(s.dgemm, s.dgemm_batched, trans_a, trans_b, m, n, k, a, lda,
                             stride_a, b, ldb, stride_b, c, ldc, stride_c, batch)
              : gemm<float>(s.sgemm, s.sgemm_batched, trans_a, trans_b, m, n, k, a, lda,
                            stride_a, b, ldb, stride_b, c, ldc, stride_c, batch);
  if (r != 0)
    throw CudaError("cuBLAS gemm failed with status " + std::to_string(r));
}

} // namespace npc::cuda
