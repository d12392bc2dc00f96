// npcompile._native.cpu: the LLVM CPU backend and the thread pool, for Python.
#include "bindings.hpp"

#include "BufferPool.hpp"
#include "CpuJit.hpp"
#include "KernelLauncher.hpp"
#include "StepProgram.hpp"
#include "Interrupt.hpp"
#include "ThreadPool.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <vector>

namespace py = pybind11;

void npc::bindings::bind_cpu_backend(py::module_& m) {
  // Subclass of RuntimeError so callers that only know "compile failed" still catch it.
  // Leaked on purpose: a static py::object would be released after the interpreter.
  static PyObject* compile_error =
      py::exception<npc::CompileError>(m, "CompileError", PyExc_RuntimeError).release().ptr();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const npc::CompileError& e) {
      py::object exc = py::reinterpret_borrow<py::object>(compile_error)(e.what());
      exc.attr("diagnostics") = e.diagnostics(); // the raw text, for reports
      PyErr_SetObject(compile_error, exc.ptr());
    }
  });

  m.def(
      "compile",
      [](const std::string& source, const std::vector<std::string>& symbols) {
        npc::CompileResult r;
        {
          // Compiling takes milliseconds: let other Python threads run meanwhile.
          py::gil_scoped_release release;
          r = npc::CpuJit::instance().compile(source, symbols);
        }
        py::list addresses;
        for (void* a : r.addresses)
          addresses.append(py::int_(reinterpret_cast<uintptr_t>(a)));
        py::dict d;
        d["addresses"] = addresses;
        d["ms_frontend"] = r.ms_frontend;
        d["ms_optimize"] = r.ms_optimize;
        d["ms_codegen"] = r.ms_codegen;
        d["ms_total"] = r.ms_total;
        d["cache_hit"] = r.cache_hit;
        d["from_disk"] = r.from_disk;
        d["cache_key"] = r.cache_key;
        d["diagnostics"] = r.diagnostics;
        return d;
      },
      py::arg("source"), py::arg("symbols"),
      "Compile self-contained C++ and return {'addresses': [int], 'ms_*': float, 'cache_hit': "
      "bool, ...}. "
      "Raises CompileError with clang's diagnostics.");

  m.def(
      "optimized_ir",
      [](const std::string& source) {
        py::gil_scoped_release release;
        return npc::CpuJit::instance().optimized_ir(source);
      },
      py::arg("source"), "The LLVM IR after the O3 pipeline (debugging; no cache, no JIT).");

  m.def(
      "run_kernel",
      [](uintptr_t address, const std::vector<py::array>& buffers,
         const std::vector<int64_t>& params, int64_t n_outer, int64_t grain) {
        if (address == 0)
          throw py::value_error("run_kernel: null kernel address");
        std::vector<char*> bufs;
        bufs.reserve(buffers.size());
        // The kernel may write any of them: the list keeps the arrays alive.
        for (const auto& a : buffers)
          bufs.push_back(static_cast<char*>(const_cast<void*>(a.data())));
        py::gil_scoped_release release;
        npc::run_kernel(reinterpret_cast<void*>(address), bufs.data(), params.data(), n_outer,
                        grain);
      },
      py::arg("address"), py::arg("buffers"), py::arg("params"), py::arg("n_outer"),
      py::arg("grain"),
      "Run kernel(bufs, params, begin, end) over [0, n_outer) on the thread pool, without the "
      "GIL.");

  m.def(
      "empty",
      [](const std::vector<int64_t>& shape, const py::dtype& dtype) {
        // Kernel outputs live in the runtime's BufferPool: reused blocks are already
        // faulted in (see BufferPool.hpp); the capsule gives the block back.
        // itemsize through Python: pybind11 < 2.12 reads NumPy 1's descr layout.
        const auto item = dtype.attr("itemsize").cast<int64_t>();
        std::vector<int64_t> strides(shape.size());
        int64_t n = item;
        for (size_t d = shape.size(); d-- > 0;) {
          strides[d] = n;
          n *= shape[d];
        }
        struct Block {
          void* p;
          size_t n;
        };
        auto* b = new Block{npc::BufferPool::global().acquire(static_cast<size_t>(n)),
                             static_cast<size_t>(n)};
        py::capsule owner(b, [](void* v) {
          auto* blk = static_cast<Block*>(v);
          npc::BufferPool::global().release(blk->p, blk->n);
          delete blk;
        });
        return py::array(dtype, shape, strides, b->p, owner);
      },
      py::arg("shape"), py::arg("dtype"),
      "An uninitialized C-contiguous array whose memory comes from the runtime's buffer pool.");
  npc::bind_step_program(m);
  m.def("pool_cached_bytes", [] { return npc::BufferPool::global().cached_bytes(); });
  m.def("pool_clear", [] { npc::BufferPool::global().clear(); });
  m.def("num_threads", [] { return npc::ThreadPool::global().num_threads(); });
  // For a host that takes SIGINT itself (the Jupyter kernel's sigwait thread): the
  // address of the flag that stops a running kernel (runtime/Interrupt.hpp).
  m.def("interrupt_flag_address",
        [] { return reinterpret_cast<std::uintptr_t>(&npc::interrupt_requested()); });
  m.def(
      "set_num_threads",
      [](int n) {
        if (n < 1)
          throw py::value_error("set_num_threads: n must be >= 1");
        py::gil_scoped_release release;
        npc::ThreadPool::global().set_num_threads(n);
      },
      py::arg("n"));
  m.def(
      "host_cpu", [] { return npc::CpuJit::instance().host_cpu(); },
      "Host CPU name and enabled features, as the JIT targets them.");
  m.def(
      "clear_memory_cache", [] { npc::CpuJit::instance().clear_memory_cache(); },
      "Forget compiled code in memory (the disk cache stays); handed-out addresses stay valid.");
  m.def("cache_dir", &npc::CpuJit::cache_dir);
  m.def(
      "release", [](const std::string& key) { npc::CpuJit::release_if_alive(key); },
      py::arg("key"),
      "Give back one compile() result's use of its code (its cache_key); code with no use "
      "left is unloaded.");
  m.def(
      "loaded_modules", [] { return npc::CpuJit::instance().loaded_modules(); },
      "How many compiled modules are loaded now.");
}
