#pragma once
// The session as a timeline: lanes of slices that nest or follow each other, and instant
// markers. A thread's lane holds its traced calls, their compiles and compile phases; lanes
// beside it hold its kernels, eager NumPy runs and compile workers, and one lane the GPU's
// kernels (its stream) and one the transfers. One model for the Chrome trace export and the
// viewer's timeline panel.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "npc/prof/event.hpp"

namespace npc::prof {
struct TimelineLane {
  std::string name;
  std::uint32_t tid = 0; // the thread's id, or a number of its own past every thread's
  bool thread = false;   // a real thread (not a lane beside one)
  int depth = 0;         // nesting levels its slices take
};

struct TimelineSlice {
  std::size_t lane = 0; // index into Timeline::lanes
  double start_us = 0;
  double dur_us = 0;
  std::string name;
  std::string category; // trace, compile, compile.phase, kernel, transfer, eager
  nlohmann::json args = nlohmann::json::object();
  int depth = 0;        // 0: outermost in its lane
  double end_us() const { return start_us + dur_us; }
};

struct TimelineMarker {
  std::size_t lane = 0;
  double ts_us = 0;
  std::string name;
  std::string category; // graph_break, recompile, fallback, trace (a replay without a length)
  nlohmann::json args = nlohmann::json::object();
};

// What a range of time holds: per category of slice, how many reach into it and their time
// inside it (a trace's time includes its compiles'), and the markers in it per category.
struct RangeStats {
  double begin_us = 0;
  double end_us = 0;
  std::map<std::string, std::pair<std::size_t, double>> slices; // category -> (count, us)
  std::map<std::string, std::size_t> markers;                    // category -> count
};

struct Timeline {
  std::vector<TimelineLane> lanes;     // real threads first, then the others in order made
  std::vector<TimelineSlice> slices;   // by lane, then start, the longer first at one start
  std::vector<TimelineMarker> markers; // by lane, then time
  double end_us = 0;                   // the last slice's end or marker

  // Events as Session::snapshot() gives them (recorded in order; an interval at its end).
  static Timeline from_events(const std::vector<Event>& events,
                              const std::map<std::uint32_t, std::string>& thread_names);
  // A Chrome trace (JSON object with "traceEvents", or a bare array of events), ours or
  // another tool's: "X" and "B"/"E" events as slices, "i"/"I" as markers, each (pid, tid) a
  // lane named by its thread_name metadata; other phases are skipped. Throws SchemaError
  // where it is not one.
  static Timeline from_chrome(const nlohmann::json& doc);
  // Where each lane's slices begin in `slices` (lanes.size() + 1 offsets).
  std::vector<std::size_t> lane_offsets() const;
  RangeStats stats(double begin_us, double end_us) const;
};

// The part of a timeline on screen: [begin_us, end_us), and the arithmetic of zooming and
// panning it, without a display (the viewer's panel draws what these say).
struct TimelineView {
  double begin_us = 0;
  double end_us = 1;

  static TimelineView fit(const Timeline& t); // the whole session, with a margin
  double span() const { return end_us - begin_us; }
  // x in [0, width) of a time, and back.
  double x_of(double ts_us, double width) const;
  double time_at(double x, double width) const;
  // Zoom by `factor` (> 1: in) keeping the time under x where it is; a span of at least
  // 0.1 us and at most `limit_us`.
  void zoom(double factor, double x, double width, double limit_us);
  // Move by dx pixels (dx > 0: the view moves left, to earlier times).
  void pan(double dx, double width);
  // The axis' tick step: 1, 2 or 5 times a power of ten microseconds, at least min_px apart.
  double tick_us(double width, double min_px) const;
};
} // namespace npc::prof
