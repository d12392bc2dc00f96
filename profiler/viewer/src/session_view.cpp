#include "npc/viewer/session_view.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "npc/prof/file_text.hpp"
#include "npc/prof/schema_error.hpp"
#include "npc/prof/session.hpp"
#include "npc/prof/summary_line.hpp"

namespace npc::viewer {
SessionView SessionView::from_json(const nlohmann::json& doc, std::filesystem::path file) {
  SessionView v;
  v.file = std::move(file);
  v.kind = doc.is_object() ? doc.value("kind", "session") : "session";
  if (doc.is_array() || (doc.is_object() && doc.contains("traceEvents"))) {
    // a Chrome trace (ours, or Perfetto's or another tool's): its timeline alone
    v.kind = "chrome trace";
    v.timeline = prof::Timeline::from_chrome(doc);
    v.events = v.timeline.slices.size() + v.timeline.markers.size();
    v.summary = "Chrome trace: " + std::to_string(v.timeline.slices.size()) + " slices, " +
                std::to_string(v.timeline.markers.size()) + " markers on " +
                std::to_string(v.timeline.lanes.size()) + " lanes";
    return v;
  }
  if (v.kind == "report") {
    v.report = doc.get<prof::Report>();
  } else {
    prof::Session s;
    prof::from_json(doc, s);
    v.pid = s.pid();
    v.start_unix_us = s.start_unix_us();
    v.events = s.size();
    v.report = prof::Report::from_session(s);
    v.timeline = prof::Timeline::from_events(s.snapshot(), s.thread_names());
  }
  v.summary = prof::summary_line(v.report.summary);
  for (const auto& k : v.report.kernels)
    v.sources.push_back(HighlightedCode::of(k.source, prof::CodeHighlighter::Language::Cpp));
  v.timing = prof::TimingChart::of(v.report.kernels);
  for (const auto& r : v.report.recompiles)
    v.guards.push_back(guard_diffs(r.reason));
  return v;
}

SessionView SessionView::load(const std::filesystem::path& file) {
  const std::string text = prof::read_file_text(file);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw prof::SchemaError(file.string() + ": not JSON (" + e.what() + ")");
  }
  return from_json(doc, file);
}
} // namespace npc::viewer
