#pragma once
// One entry of the event stream: when (µs since session start, steady clock), which
// thread, and one typed payload. JSON: {"type": "graph_break", "ts_us": .., "tid": .., fields},
// and "worker" for an event a Dask worker made (a process of its own, npcompile/api/dask_workers.py).
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "npc/prof/compile.hpp"
#include "npc/prof/eager_timing.hpp"
#include "npc/prof/fallback.hpp"
#include "npc/prof/fusion_graph.hpp"
#include "npc/prof/graph_break.hpp"
#include "npc/prof/kernel_run.hpp"
#include "npc/prof/kernel_source.hpp"
#include "npc/prof/loop_run.hpp"
#include "npc/prof/path_choice.hpp"
#include "npc/prof/recompile.hpp"
#include "npc/prof/trace_end.hpp"
#include "npc/prof/trace_start.hpp"
#include "npc/prof/transfer.hpp"

namespace npc::prof {
using EventData = std::variant<TraceStart, TraceEnd, GraphBreak, Compile, Recompile, KernelRun,
                               EagerTiming, Fallback, Transfer, KernelSource, FusionGraph,
                               PathChoice, LoopRun>;

struct Event {
  // For events that measure an interval (compile, kernel_run, transfer, eager_timing) this
  // is when the interval ended: emitters record after the fact.
  std::int64_t ts_us = 0;
  std::uint32_t tid = 0;
  EventData data;
  std::string worker{}; // the Dask worker's address; empty for this process's own events

  std::string_view type() const;
  template <class T> const T* get() const { return std::get_if<T>(&data); }
  bool operator==(const Event&) const = default;
};

// Every type name, in the order of EventData.
std::span<const std::string_view> event_types();
bool is_event_type(std::string_view type);
// The payload fields of a type (without type/ts_us/tid); empty if the type is unknown.
std::span<const std::string_view> event_fields(std::string_view type);

void to_json(nlohmann::json& j, const Event& e);
// Strict: unknown type, unknown field, missing required field or wrong type -> SchemaError.
void from_json(const nlohmann::json& j, Event& e);
} // namespace npc::prof
