#pragma once
// The thread-safe store of one process's event stream. Every report is a view of it.
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
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
    for (const auto& e : events_)
      if (const T* p = e.get<T>())
        out.push_back(*p);
    return out;
  }
  std::size_t size() const;
  // Forgets the events; the clock and the thread names stay.
  void clear();

  // What a follower (the live attach) has not seen: the events appended since `from`, a
  // count since the session began or was last cleared (`epoch` says which). Where the
  // follower's epoch is not the session's, or events it has not seen were dropped (the
  // oldest go past NPC_MAX_EVENTS), `continues` is false and `events` holds them all.
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

private:
  mutable std::mutex mu_;
  std::vector<Event> events_{};
  std::uint64_t appended_ = 0; // events appended in this epoch (events_ holds the newest)
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
