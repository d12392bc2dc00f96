#pragma once
// The thread-safe store of one process's event stream: the one store every view reads
// (npcompile.report(), the HTML and the widget, the session file, the live stream).
// Each event type keeps its newest NPC_MAX_RECORDS events (100,000; kernel sources and
// fusion graphs, 3-4 KB each, a fiftieth as many), so a flood of kernel runs never pushes out the
// session's graph breaks. Every event carries its place in the stream (`seq`), so the
// types' lists merge back into the order they were recorded in.
#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "npc/prof/event.hpp"

namespace npc::prof {
class Session {
public:
  Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The process-wide session the compiler and the kernel both write to.
  static Session& global();

  // Stamps the payload with now and the calling thread, then appends it.
  void record(EventData data);
  // Appends as is (keeps ts_us and tid): for replaying and loading.
  void append(Event e);
  std::vector<Event> snapshot() const;
  std::vector<Event> query(std::string_view type) const;
  template <class T> std::vector<T> query() const {
    std::lock_guard lock(mu_);
    std::vector<T> out;
    for (const auto& k : kept_[index_of<T>()])
      out.push_back(*k.event.template get<T>());
    return out;
  }
  std::size_t size() const;
  // Events of this type ever recorded since the session began or was cleared, the dropped
  // ones included.
  std::uint64_t total(std::string_view type) const;
  // Forgets the events; the clock and the thread names stay.
  void clear();
  // The events, in order, and forgets them, in one step (a Dask worker hands its events to
  // the client: one recorded between a read and a clear would be lost).
  std::vector<Event> take();
  // Events of one type kept at most (NPC_MAX_RECORDS).
  static std::size_t cap(std::size_t type_index);

  // What a follower (the live attach) has not seen: the events appended since `from`, a
  // count since the session began or was last cleared (`epoch` says which). Where the
  // follower's epoch is not the session's, or events it has not seen were dropped (the
  // oldest of a type go past its cap), `continues` is false and `events` holds them all.
  struct Tail {
    std::vector<Event> events;
    std::uint64_t next = 0;  // `from` for the next call
    std::uint64_t epoch = 0;
    bool continues = true;
  };
  Tail tail(std::uint64_t from, std::uint64_t epoch) const;

  // µs since the session started, on the steady clock.
  std::int64_t now_us() const;
  // When the session started on the wall clock (µs since the Unix epoch), and in which process.
  std::int64_t start_unix_us() const { return start_unix_us_; }
  int pid() const { return pid_; }

  // A small, stable number for the calling thread (1, 2, ...), shared by all sessions.
  static std::uint32_t current_thread_id();
  void set_thread_name(std::uint32_t tid, std::string name);
  std::map<std::uint32_t, std::string> thread_names() const;

  // Replaces events, thread names and the recorded start/pid (from a loaded document).
  void restore(std::vector<Event> events, std::map<std::uint32_t, std::string> names,
               std::int64_t start_unix_us, int pid);

  static constexpr std::size_t kTypeCount = std::variant_size_v<EventData>;
  template <class T, std::size_t I = 0> static constexpr std::size_t index_of() {
    if constexpr (std::is_same_v<std::variant_alternative_t<I, EventData>, T>)
      return I;
    else
      return index_of<T, I + 1>();
  }

private:
  struct Kept {
    std::uint64_t seq; // its place in the stream: appended_ when it was appended
    Event event;
  };
  std::vector<Event> merged(std::uint64_t from) const; // kept events with seq >= from, in order
  std::deque<Kept>& keep_locked(Event e); // appends it to its type's list, counted; untrimmed
  void clear_locked();

  mutable std::mutex mu_;
  std::array<std::deque<Kept>, kTypeCount> kept_{};
  std::array<std::uint64_t, kTypeCount> totals_{};
  std::uint64_t appended_ = 0; // events appended in this epoch
  std::uint64_t dropped_to_ = 0; // every event dropped so far had a seq below this
  std::uint64_t epoch_ = 1;    // bumped by clear() and restore()
  std::map<std::uint32_t, std::string> thread_names_{};
  std::chrono::steady_clock::time_point start_;
  std::int64_t start_unix_us_ = 0;
  int pid_ = 0;
};

// {"1": "MainThread", ...}: the session's thread names as its documents hold them.
nlohmann::json thread_names_json(const Session& s);
// {"schema", "version", "kind": "session", "pid", "start_unix_us", "threads", "events": [...]}
void to_json(nlohmann::json& j, const Session& s);
void from_json(const nlohmann::json& j, Session& s);
} // namespace npc::prof
