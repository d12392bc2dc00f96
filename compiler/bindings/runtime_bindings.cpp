// npcompile._native.runtime: runtime routines the Python side calls on NumPy arrays.
#include "bindings.hpp"

#include "Compact.hpp"

#include <pybind11/numpy.h>

namespace py = pybind11;

namespace npc::bindings {

void bind_runtime(py::module_& m) {
  m.def(
      "compact_rows",
      [](const py::array& src, const py::array& mask, py::array& dst, int64_t outer, int64_t rows,
         int64_t row_bytes, int64_t count, int64_t itemsize) {
        // the Python caller shapes these; checked here all the same, since a wrong size
        // would read or write out of bounds. Sizes from the shapes and the caller's
        // itemsize: pybind11 of Debian reads a dtype's itemsize where NumPy 1.x keeps it,
        // which NumPy 2 moved (a bool array read as 0 bytes an element)
        const auto c = py::array::c_style;
        if (!(src.flags() & c) || !(mask.flags() & c) || !(dst.flags() & c) || !dst.writeable())
          throw py::value_error("compact_rows: arrays must be C-contiguous, dst writeable");
        if (itemsize < 1 || row_bytes % itemsize != 0 || mask.size() != rows || outer < 0 ||
            rows < 0 || row_bytes < 1 || count < 0 || count > rows ||
            src.size() != outer * rows * (row_bytes / itemsize) ||
            dst.size() < outer * count * (row_bytes / itemsize))
          throw py::value_error("compact_rows: sizes do not match");
        const char* s = static_cast<const char*>(src.data());
        const auto* k = static_cast<const uint8_t*>(mask.data());
        char* d = static_cast<char*>(dst.mutable_data());
        py::gil_scoped_release release;
        npc::compact_rows(s, k, d, outer, rows, row_bytes, count);
      },
      py::arg("src"), py::arg("mask"), py::arg("dst"), py::arg("outer"), py::arg("rows"),
      py::arg("row_bytes"), py::arg("count"), py::arg("itemsize"),
      "Copies the rows of src (outer blocks of `rows` rows) whose mask byte is nonzero into "
      "dst (which may hold more), block after block; count: the mask's nonzero bytes (a bool mask: one byte an "
      "element); itemsize: src's and dst's.");
}

} // namespace npc::bindings
