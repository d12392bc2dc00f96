// npcompile._native.cuda: NVRTC, the driver, device buffers and launches, for Python.
// Everything that touches the GPU raises `Unavailable` (a RuntimeError) with the reason
// in words when there is none; compiling to PTX needs only NVRTC.
#include "bindings.hpp"

#include "CudaError.hpp"
#include "Cublas.hpp"
#include "Device.hpp"
#include "LaunchGraph.hpp"
#include "Launcher.hpp"
#include "MemoryPool.hpp"
#include "NvrtcCompiler.hpp"
#include "Transfer.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <memory>

namespace py = pybind11;
using npc::cuda::DeviceBuffer;

namespace {

// The bytes of a C-contiguous array, checked: a strided host array must be copied by
// the caller (NumPy does it best).
py::buffer_info contiguous_bytes(const py::array& a, bool writable) {
  if (!(a.flags() & py::array::c_style))
    throw py::value_error("npcompile.cuda: host array must be C-contiguous");
  if (writable && !a.writeable())
    throw py::value_error("npcompile.cuda: host array is read-only");
  return a.request(writable);
}

void check_range(const DeviceBuffer& b, size_t offset, size_t n) {
  if (offset > b.nbytes() || n > b.nbytes() - offset)
    throw py::index_error("npcompile.cuda: copy outside the device buffer");
}

// f() with the GIL released; a wait that Ctrl-C ended is Python's KeyboardInterrupt (or
// the error its SIGINT handler made), as a CPU kernel's stop is (StepProgram.cpp)
template <class F>
void interruptible(F&& f) {
  bool stopped = false;
  {
    py::gil_scoped_release release;
    try {
      f();
    } catch (const npc::cuda::Interrupted&) {
      stopped = true;
    }
  }
  if (stopped) {
    if (PyErr_CheckSignals() == 0)
      PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
}

} // namespace

void npc::bindings::bind_cuda_backend(py::module_& m) {
  static PyObject* unavailable =
      py::exception<npc::cuda::Unavailable>(m, "Unavailable", PyExc_RuntimeError).release().ptr();
  static PyObject* nvrtc_error =
      py::exception<npc::cuda::NvrtcError>(m, "NvrtcError", PyExc_RuntimeError).release().ptr();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const npc::cuda::NvrtcError& e) {
      py::object exc = py::reinterpret_borrow<py::object>(nvrtc_error)(e.what());
      exc.attr("log") = e.log;
      PyErr_SetObject(nvrtc_error, exc.ptr());
    } catch (const npc::cuda::Unavailable& e) {
      PyErr_SetString(unavailable, e.what());
    } catch (const npc::cuda::CudaError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });

  m.def(
      "available",
      []() -> py::tuple {
        try {
          npc::cuda::Device::get();
          return py::make_tuple(true, "");
        } catch (const std::exception& e) {
          return py::make_tuple(false, e.what());
        }
      },
      "(True, '') when a GPU can be used, else (False, the reason in words).");

  m.def("device_info", []() {
    const auto& d = npc::cuda::Device::get();
    py::dict out;
    out["name"] = d.name;
    out["compute_capability"] = py::make_tuple(d.cc_major, d.cc_minor);
    out["arch"] = d.arch();
    out["multiprocessors"] = d.sm_count;
    out["total_memory"] = d.total_memory;
    out["driver_version"] = d.driver_version;
    out["driver_library"] = d.api.library;
    return out;
  });

  m.def("nvrtc_version", &npc::cuda::nvrtc_version);

  m.def(
      "compile_ptx",
      [](const std::string& source, const std::string& name, const std::string& arch,
         const std::vector<std::string>& options) {
        npc::cuda::PtxResult r;
        {
          py::gil_scoped_release release;
          r = npc::cuda::compile_to_ptx(source, name, arch, options);
        }
        py::dict d;
        d["ptx"] = r.ptx;
        d["log"] = r.log;
        d["ms"] = r.ms;
        return d;
      },
      py::arg("source"), py::arg("name"), py::arg("arch") = "compute_90",
      py::arg("options") = std::vector<std::string>{},
      "CUDA C -> PTX with NVRTC: {'ptx', 'log', 'ms'}. Raises NvrtcError (with .log).");

  py::class_<DeviceBuffer, std::shared_ptr<DeviceBuffer>>(m, "Buffer")
      .def(py::init<size_t>(), py::arg("nbytes"))
      .def_property_readonly("ptr", [](const DeviceBuffer& b) { return static_cast<uint64_t>(b.ptr()); })
      .def_property_readonly("nbytes", &DeviceBuffer::nbytes);

  m.def(
      "upload",
      [](DeviceBuffer& dst, size_t offset, const py::array& src) {
        auto info = contiguous_bytes(src, false);
        const size_t n = static_cast<size_t>(info.size) * static_cast<size_t>(info.itemsize);
        check_range(dst, offset, n);
        py::gil_scoped_release release;
        npc::cuda::copy_to_device(dst.ptr() + offset, info.ptr, n);
      },
      py::arg("dst"), py::arg("offset"), py::arg("src"));
  m.def(
      "download",
      [](py::array& dst, const DeviceBuffer& src, size_t offset) {
        auto info = contiguous_bytes(dst, true);
        const size_t n = static_cast<size_t>(info.size) * static_cast<size_t>(info.itemsize);
        check_range(src, offset, n);
        // the kernels before it first, a wait Ctrl-C ends (a copy cannot be left)
        interruptible([] { npc::cuda::Device::get().wait_queued_interruptibly(); });
        py::gil_scoped_release release;
        npc::cuda::copy_to_host(info.ptr, src.ptr() + offset, n);
      },
      py::arg("dst"), py::arg("src"), py::arg("offset"));
  m.def(
      "copy",
      [](DeviceBuffer& dst, size_t dst_offset, const DeviceBuffer& src, size_t src_offset, size_t n) {
        check_range(dst, dst_offset, n);
        check_range(src, src_offset, n);
        npc::cuda::copy_device(dst.ptr() + dst_offset, src.ptr() + src_offset, n);
      });

  m.def("load", [](const std::string& ptx, const std::string& name) {
    npc::cuda::LoadedKernel k;
    {
      py::gil_scoped_release release;
      k = npc::cuda::load_kernel(ptx, name);
    }
    py::dict d;
    d["function"] = reinterpret_cast<uintptr_t>(k.function);
    d["load_ms"] = k.load_ms;
    d["cached"] = k.cached;
    d["max_threads"] = k.max_threads;
    d["registers"] = k.registers;
    return d;
  });
  m.def(
      "launch",
      [](uintptr_t function, unsigned grid, unsigned block, const std::vector<uint64_t>& pointers,
         const std::vector<int64_t>& params, bool timed) {
        npc::cuda::launch(reinterpret_cast<CUfunction>(function), grid, block, pointers, params, timed);
      },
      py::arg("function"), py::arg("grid"), py::arg("block"), py::arg("pointers"),
      py::arg("params"), py::arg("timed") = true);
  py::class_<npc::cuda::LaunchGraph>(m, "LaunchGraph",
                                     "A run of kernels launched as one CUDA graph.")
      .def(py::init([](const std::vector<std::tuple<uintptr_t, unsigned, unsigned, std::vector<uint64_t>,
                                                    std::vector<int64_t>>>& kernels,
                       bool timed) {
             std::vector<npc::cuda::GraphKernel> ks;
             for (const auto& [f, grid, block, pointers, params] : kernels)
               ks.push_back({reinterpret_cast<CUfunction>(f), grid, block, pointers, params});
             return std::make_unique<npc::cuda::LaunchGraph>(ks, timed);
           }),
           py::arg("kernels"), py::arg("timed") = true,
           "kernels: (function, grid, block, pointers, params) each, in launch order.")
      .def("launch", &npc::cuda::LaunchGraph::launch, py::arg("pointers"), py::arg("params"))
      .def_property_readonly("size", &npc::cuda::LaunchGraph::size)
      .def_property_readonly("updates", &npc::cuda::LaunchGraph::updates);
  m.def("take_timings", []() {
    py::gil_scoped_release release;
    return npc::cuda::take_timings();
  });
  m.def("take_ready_timings", []() { return npc::cuda::take_ready_timings(); });
  m.def("synchronize", []() {
    interruptible([] { npc::cuda::Device::get().wait_queued_interruptibly(); });
  });
  m.def("cublas_open", &npc::cuda::cublas_open, py::arg("path"),
        "Open cuBLAS at this path (once): '' when ready, else why not.");
  m.def("gemm", &npc::cuda::cublas_gemm, py::arg("dtype"), py::arg("trans_a"),
        py::arg("trans_b"), py::arg("m"), py::arg("n"), py::arg("k"), py::arg("a"),
        py::arg("lda"), py::arg("stride_a"), py::arg("b"), py::arg("ldb"), py::arg("stride_b"),
        py::arg("c"), py::arg("ldc"), py::arg("stride_c"), py::arg("batch"),
        "cuBLAS's column-major C = op(A) op(B), strided batches, queued on the stream.");
  m.def("trim", []() { npc::cuda::MemoryPool::get().trim(); });
  m.def("pool_stats", []() {
    auto s = npc::cuda::MemoryPool::get().stats();
    py::dict d;
    d["in_use"] = s.in_use;
    d["cached"] = s.cached;
    d["driver_allocs"] = s.driver_allocs;
    d["reuses"] = s.reuses;
    return d;
  });
}
