#include "npc/prof/session.hpp"

#include <atomic>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "npc/prof/json_fields.hpp"
#include "npc/prof/schema.hpp"

namespace npc::prof {
Session::Session()
    : start_(std::chrono::steady_clock::now()),
      start_unix_us_(std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count()),
      pid_(static_cast<int>(::getpid())) {}

Session& Session::global() {
  // Leaked on purpose: emitters may run during static destruction (atexit hooks in Python).
  static Session* s = new Session();
  return *s;
}

namespace {
// Events kept, the oldest dropped first (NPC_MAX_EVENTS): a day-long notebook records
// millions, and every report and session file reads them all.
std::size_t max_events() {
  static const std::size_t n = [] {
    if (const char* s = std::getenv("NPC_MAX_EVENTS")) {
      char* end = nullptr;
      const long long v = std::strtoll(s, &end, 10);
      if (end != s && v > 0)
        return static_cast<std::size_t>(v);
    }
    return std::size_t{200000};
  }();
  return n;
}
} // namespace

void Session::record(EventData data) {
  append(Event{now_us(), current_thread_id(), std::move(data)});
}

void Session::append(Event e) {
  std::lock_guard lock(mu_);
  events_.push_back(std::move(e));
  ++appended_;
  const std::size_t cap = max_events();
  if (events_.size() > cap + cap / 4) // trimmed now and then: amortized O(1) per event
    events_.erase(events_.begin(), events_.begin() + static_cast<std::ptrdiff_t>(events_.size() - cap));
}

std::vector<Event> Session::snapshot() const {
  std::lock_guard lock(mu_);
  return events_;
}

std::vector<Event> Session::query(std::string_view type) const {
  std::lock_guard lock(mu_);
  std::vector<Event> out;
  for (const auto& e : events_)
    if (e.type() == type)
      out.push_back(e);
  return out;
}

std::size_t Session::size() const {
  std::lock_guard lock(mu_);
  return events_.size();
}

void Session::clear() {
  std::lock_guard lock(mu_);
  events_.clear();
  appended_ = 0;
  ++epoch_;
}

Session::Tail Session::tail(std::uint64_t from, std::uint64_t epoch) const {
  std::lock_guard lock(mu_);
  Tail t;
  t.next = appended_;
  t.epoch = epoch_;
  const std::uint64_t first = appended_ - events_.size(); // the oldest kept, counted
  t.continues = epoch == epoch_ && from >= first && from <= appended_;
  const std::uint64_t begin = t.continues ? from : first;
  t.events.assign(events_.begin() + static_cast<std::ptrdiff_t>(begin - first), events_.end());
  return t;
}

std::int64_t Session::now_us() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                               start_)
      .count();
}

std::uint32_t Session::current_thread_id() {
  static std::atomic<std::uint32_t> next{1};
  thread_local const std::uint32_t id = next.fetch_add(1);
  return id;
}

void Session::set_thread_name(std::uint32_t tid, std::string name) {
  std::lock_guard lock(mu_);
  thread_names_[tid] = std::move(name);
}

std::map<std::uint32_t, std::string> Session::thread_names() const {
  std::lock_guard lock(mu_);
  return thread_names_;
}

void Session::restore(std::vector<Event> events, std::map<std::uint32_t, std::string> names,
                      std::int64_t start_unix_us, int pid) {
  std::lock_guard lock(mu_);
  events_ = std::move(events);
  appended_ = events_.size();
  ++epoch_;
  thread_names_ = std::move(names);
  start_unix_us_ = start_unix_us;
  pid_ = pid;
}

nlohmann::json thread_names_json(const Session& s) {
  nlohmann::json threads = nlohmann::json::object();
  for (const auto& [tid, name] : s.thread_names())
    threads[std::to_string(tid)] = name;
  return threads;
}

void to_json(nlohmann::json& j, const Session& s) {
  j = nlohmann::json{{"schema", kSchemaName},
                     {"version", kSchemaVersion},
                     {"kind", "session"},
                     {"pid", s.pid()},
                     {"start_unix_us", s.start_unix_us()},
                     {"threads", thread_names_json(s)},
                     {"events", s.snapshot()}};
}

void from_json(const nlohmann::json& j, Session& s) {
  constexpr std::string_view ctx = "session document";
  detail::expect_document(j, ctx);
  std::vector<Event> events;
  std::map<std::string, std::string> threads;
  std::int64_t start = s.start_unix_us();
  int pid = s.pid();
  detail::required(j, ctx, "events", events);
  detail::optional(j, ctx, "threads", threads);
  detail::optional(j, ctx, "start_unix_us", start);
  detail::optional(j, ctx, "pid", pid);
  std::map<std::uint32_t, std::string> names;
  for (const auto& [k, v] : threads) {
    try {
      names[static_cast<std::uint32_t>(std::stoul(k))] = v;
    } catch (const std::exception&) {
      throw SchemaError(std::string(ctx) + ": thread id '" + k + "' is not a number");
    }
  }
  s.restore(std::move(events), std::move(names), start, pid);
}
} // namespace npc::prof
