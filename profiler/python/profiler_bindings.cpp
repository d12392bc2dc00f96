// npcompile._native.profiler: the Python face of the profiler's event stream.
// Events cross as plain dicts and are validated by the same from_json the files use, so a
// bad event raises ValueError at the emit call that made it, not later in a report.
#include <nlohmann/json.hpp>
#include <optional>
#include <unistd.h>
#include <string>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings.hpp"
#include "npc/prof/attach_file.hpp"
#include "npc/prof/attach_server.hpp"
#include "npc/prof/chrome_trace.hpp"
#include "npc/prof/event.hpp"
#include "npc/prof/render_html.hpp"
#include "npc/prof/render_text.hpp"
#include "npc/prof/report.hpp"
#include "npc/prof/schema.hpp"
#include "npc/prof/session.hpp"
#include "npc/prof/session_file.hpp"

namespace py = pybind11;
using nlohmann::json;

namespace {
namespace prof = npc::prof;

// Python -> JSON. NumPy scalars count as numbers (np.int64 is not an int subclass).
json from_py(py::handle h, int depth = 0) {
  if (depth > 64)
    throw py::value_error("npcompile.profiler: value nested too deeply");
  if (h.is_none())
    return nullptr;
  if (py::isinstance<py::bool_>(h))
    return h.cast<bool>();
  if (py::isinstance<py::int_>(h)) {
    try {
      return h.cast<std::int64_t>();
    } catch (const py::cast_error&) {
      throw py::value_error("npcompile.profiler: integer out of range: " +
                            py::str(h).cast<std::string>());
    }
  }
  if (py::isinstance<py::float_>(h))
    return h.cast<double>();
  if (py::isinstance<py::str>(h)) {
    // "replace": a lone surrogate (from a mis-decoded file) must not make emit() fail.
    PyObject* b = PyUnicode_AsEncodedString(h.ptr(), "utf-8", "replace");
    if (!b)
      throw py::error_already_set();
    auto bytes = py::reinterpret_steal<py::bytes>(b);
    return std::string(bytes);
  }
  if (py::isinstance<py::dict>(h)) {
    json o = json::object();
    for (auto item : py::reinterpret_borrow<py::dict>(h)) {
      if (!py::isinstance<py::str>(item.first))
        throw py::value_error("npcompile.profiler: dict keys must be str, got " +
                              py::repr(item.first).cast<std::string>());
      o[item.first.cast<std::string>()] = from_py(item.second, depth + 1);
    }
    return o;
  }
  if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h)) {
    json a = json::array();
    for (auto item : h)
      a.push_back(from_py(item, depth + 1));
    return a;
  }
  const std::string tname = py::type::of(h).attr("__name__").cast<std::string>();
  if (tname == "bool_" || tname == "bool")
    return py::bool_(py::reinterpret_borrow<py::object>(h)).cast<bool>();
  if (py::hasattr(h, "__index__"))
    return from_py(py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr())), depth + 1);
  if (py::hasattr(h, "__float__"))
    return py::float_(py::reinterpret_borrow<py::object>(h)).cast<double>();
  if (py::hasattr(h, "__fspath__"))
    return py::module_::import("os").attr("fspath")(h).cast<std::string>();
  throw py::value_error("npcompile.profiler: cannot store a value of type " + tname +
                        " in an event (use str, int, float, bool, None, list or dict)");
}

// C++ callers may store bytes that are not UTF-8 (a source line): replace, never throw.
py::str utf8(const std::string& s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (!o)
    throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

// JSON -> Python.
py::object to_py(const json& j) {
  switch (j.type()) {
  case json::value_t::null:
    return py::none();
  case json::value_t::boolean:
    return py::bool_(j.get<bool>());
  case json::value_t::number_integer:
    return py::int_(j.get<std::int64_t>());
  case json::value_t::number_unsigned:
    return py::int_(j.get<std::uint64_t>());
  case json::value_t::number_float:
    return py::float_(j.get<double>());
  case json::value_t::string:
    return utf8(j.get_ref<const std::string&>());
  case json::value_t::array: {
    py::list l;
    for (const auto& e : j)
      l.append(to_py(e));
    return l;
  }
  case json::value_t::object: {
    py::dict d;
    for (auto it = j.begin(); it != j.end(); ++it)
      d[utf8(it.key())] = to_py(it.value());
    return d;
  }
  default:
    return py::none();
  }
}

py::list events_to_py(const std::vector<prof::Event>& events) {
  py::list out;
  for (const auto& e : events)
    out.append(to_py(json(e)));
  return out;
}

prof::Event parse_event(const py::object& event, const py::kwargs& fields) {
  json j;
  if (py::isinstance<py::str>(event)) {
    j = json::object();
    j["type"] = event.cast<std::string>();
  } else if (py::isinstance<py::dict>(event)) {
    j = from_py(event);
  } else if (event.is_none()) {
    j = json::object();
  } else {
    throw py::type_error("emit() takes an event type (str) or an event dict, got " +
                         py::type::of(event).attr("__name__").cast<std::string>());
  }
  for (auto item : fields)
    j[item.first.cast<std::string>()] = from_py(item.second);
  prof::Event e = j.get<prof::Event>(); // SchemaError -> ValueError
  auto& s = prof::Session::global();
  if (!j.contains("ts_us") || j["ts_us"].is_null())
    e.ts_us = s.now_us();
  if (!j.contains("tid") || j["tid"].is_null())
    e.tid = prof::Session::current_thread_id();
  return e;
}

prof::Report report_from(const std::optional<py::dict>& report, std::optional<int> last_n) {
  if (report)
    return from_py(*report).get<prof::Report>();
  py::gil_scoped_release release;
  return prof::Report::from_session(prof::Session::global(), last_n);
}
} // namespace

void npc::bindings::bind_profiler(py::module_& m) {
  m.doc() = "npcompile profiler: the event stream (one process-wide session) and its views.";
  m.attr("SCHEMA") = std::string(prof::kSchemaName);
  m.attr("VERSION") = prof::kSchemaVersion;
  m.attr("REPORT_MIME") = "application/vnd.npcompile.report+json";

  m.def(
      "emit",
      [](py::object event, py::kwargs fields) {
        prof::Event e = parse_event(event, fields);
        prof::Session::global().append(std::move(e));
      },
      py::arg("event") = py::none(), py::pos_only(),
      "emit(event, /, **fields): record one event in the process-wide session.\n"
      "`event` is the type name (emit('graph_break', reason=..., lineno=...)) or a dict with\n"
      "a 'type' key; keyword fields are merged over the dict. ts_us (µs since the session\n"
      "started) and tid default to now and the calling thread. Unknown type, unknown field,\n"
      "missing required field or wrong field type -> ValueError.");
  m.def(
      "events",
      [](std::optional<std::string> type) {
        auto& s = prof::Session::global();
        if (type && !prof::is_event_type(*type))
          throw py::value_error("unknown event type '" + *type + "'");
        return events_to_py(type ? s.query(*type) : s.snapshot());
      },
      py::arg("type") = py::none(), "The session's events as dicts, optionally of one type.");
  m.def(
      "clear", [] { prof::Session::global().clear(); }, "Forget all events.");
  m.def(
      "take",
      [] {
        return events_to_py(prof::Session::global().take());
      },
      "The session's events as dicts, and forgets them, in one step.");
  m.def(
      "total",
      [](const std::string& type) {
        if (!prof::is_event_type(type))
          throw py::value_error("unknown event type '" + type + "'");
        return prof::Session::global().total(type);
      },
      py::arg("type"),
      "Events of this type recorded since the session began or was cleared (the dropped\n"
      "ones too: each type keeps its newest NPC_MAX_RECORDS).");
  m.def(
      "now_us", [] { return prof::Session::global().now_us(); },
      "µs since the session started (steady clock): the ts_us of an event emitted now.");
  m.def(
      "set_thread_name",
      [](const std::string& name) {
        prof::Session::global().set_thread_name(prof::Session::current_thread_id(), name);
      },
      py::arg("name"), "Name the calling thread in trace exports.");
  m.def(
      "event_types",
      [] {
        py::dict d;
        for (auto t : prof::event_types()) {
          py::list fields;
          for (auto f : prof::event_fields(t))
            fields.append(py::str(std::string(f)));
          d[py::str(std::string(t))] = fields;
        }
        return d;
      },
      "{type name: [field names]} for every event type.");
  m.def(
      "report",
      [](std::optional<int> last_n_traces) {
        if (last_n_traces && *last_n_traces < 0)
          throw py::value_error("last_n_traces must be >= 0");
        prof::Report r;
        {
          py::gil_scoped_release release;
          r = prof::Report::from_session(prof::Session::global(), last_n_traces);
        }
        return to_py(json(r));
      },
      py::arg("last_n_traces") = py::none(),
      "The report (a dict, MIME application/vnd.npcompile.report+json) of the whole session\n"
      "or of its last N traces.");
  m.def(
      "render_html",
      [](std::optional<py::dict> report, std::optional<int> last_n_traces) {
        prof::Report r = report_from(report, last_n_traces);
        std::string html;
        {
          py::gil_scoped_release release;
          html = prof::render_html(r);
        }
        return utf8(html);
      },
      py::arg("report") = py::none(), py::arg("last_n_traces") = py::none(),
      "One self-contained HTML fragment for a report dict (default: report(last_n_traces)).");
  m.def(
      "render_text",
      [](std::optional<py::dict> report, std::optional<int> last_n_traces) {
        prof::Report r = report_from(report, last_n_traces);
        std::string text;
        {
          py::gil_scoped_release release;
          text = prof::render_text(r);
        }
        return utf8(text);
      },
      py::arg("report") = py::none(), py::arg("last_n_traces") = py::none(),
      "The report as aligned plain text.");
  m.def(
      "mime_bundle",
      [](std::optional<int> last_n_traces) {
        if (last_n_traces && *last_n_traces < 0)
          throw py::value_error("last_n_traces must be >= 0");
        prof::Report r;
        std::string html, text;
        json j;
        {
          py::gil_scoped_release release;
          r = prof::Report::from_session(prof::Session::global(), last_n_traces);
          html = prof::render_html(r);
          text = prof::render_text(r);
          j = r;
        }
        py::dict d;
        d["text/html"] = utf8(html);
        d["text/plain"] = utf8(text);
        d["application/vnd.npcompile.report+json"] = to_py(j);
        return d;
      },
      py::arg("last_n_traces") = py::none(),
      "{'text/html', 'text/plain', 'application/vnd.npcompile.report+json'} for display().");
  m.def(
      "chrome_trace",
      [](const std::filesystem::path& path) {
        py::gil_scoped_release release;
        prof::write_chrome_trace(prof::Session::global(), path);
        return path.string();
      },
      py::arg("path"),
      "Write the session as a Chrome/Perfetto trace JSON file (atomically); returns the path.");
  m.def(
      "chrome_trace_json", [] { return utf8(prof::chrome_trace_json(prof::Session::global())); },
      "The Chrome/Perfetto trace as a JSON string.");
  m.def(
      "session_file",
      [](const std::filesystem::path& dir, const std::optional<std::string>& name) {
        py::gil_scoped_release release;
        const auto& session = prof::Session::global();
        return (name ? prof::write_session_file(session, dir, *name)
                     : prof::write_session_file(session, dir))
            .string();
      },
      py::arg("dir"), py::arg("name") = py::none(),
      "Write the session to <dir>/<name>, by default npcompile-<pid>-<start>.json, atomically; "
      "returns the path.");
  m.def(
      "session", [] { return to_py(json(prof::Session::global())); },
      "The whole session as a dict {schema, version, kind: 'session', pid, start_unix_us, "
      "threads, events}.");
  // The live attach (npcompile/attach.py): one server per process, stopped by attach_stop or
  // left to the process's exit (held by a pointer never freed: a thread joined during
  // static destruction could outlive what it reads).
  static prof::AttachServer* server = nullptr;
  static std::filesystem::path server_file;
  // the server stopped (its destructor joins its thread) and its attach file gone: a new
  // one may be written elsewhere, and a viewer's picker must not find the old port
  static auto drop_server = [] {
    delete server;
    server = nullptr;
    std::error_code ec;
    if (!server_file.empty())
      std::filesystem::remove(server_file, ec);
    server_file.clear();
  };
  m.def(
      "attach_serve",
      [](const std::string& key, const std::string& host, int port,
         const std::filesystem::path& attach_file, const std::string& connection_file) {
        py::gil_scoped_release release;
        drop_server();
        server = new prof::AttachServer(prof::Session::global(), key, host, port);
        prof::AttachInfo info;
        info.host = host;
        info.port = server->port();
        info.pid = static_cast<int>(::getpid());
        info.connection_file = connection_file; // (a string: an empty path crosses as ".")
        info.key = connection_file.empty() ? key : "";
        prof::write_attach_file(attach_file, info);
        server_file = attach_file;
        return server->port();
      },
      py::arg("key"), py::arg("host") = "127.0.0.1", py::arg("port") = 0,
      py::arg("attach_file"), py::arg("connection_file") = std::string(),
      "Stream the session to viewers that hold `key` (npcompile-viewer --attach) and write the "
      "attach file saying where; returns the port.");
  m.def(
      "attach_stop",
      [] {
        py::gil_scoped_release release;
        drop_server();
      },
      "Stop the live attach and remove its attach file.");
  m.def(
      "attach_status",
      []() -> py::object {
        if (!server)
          return py::none();
        py::dict d;
        d["port"] = server->port();
        d["viewers"] = server->viewers();
        d["refused"] = server->refused();
        d["log"] = server->log();
        d["attach_file"] = server_file.string();
        return d;
      },
      "{'port', 'viewers', 'refused', 'log', 'attach_file'} of the live attach, or None.");
  m.def(
      "load", [](const py::dict& doc) { from_py(doc).get_to(prof::Session::global()); },
      py::arg("doc"), "Replace the session's events with those of a session document.");
}
