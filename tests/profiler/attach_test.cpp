// The live attach (npcompile-viewer --attach): SHA-256 and HMAC against the standards'
// vectors, frames, and a server and a client over loopback: events streamed, a wrong key
// and malformed frames refused on both sides without harm, reconnection to a restarted
// server on a new port, the attach file.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include "npc/prof/attach_client.hpp"
#include "npc/prof/attach_file.hpp"
#include "npc/prof/attach_frame.hpp"
#include "npc/prof/attach_server.hpp"
#include "npc/prof/attach_socket.hpp"
#include "npc/prof/graph_break.hpp"
#include "npc/prof/session.hpp"
#include "npc/prof/sha256.hpp"
#include "npc/prof/trace_start.hpp"

using namespace npc::prof;
namespace fs = std::filesystem;

namespace {
template <class F> bool eventually(F ok, int ms = 5000) {
  for (int t = 0; t < ms; t += 10) {
    if (ok())
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return ok();
}

void add_trace(Session& s, const std::string& fn) {
  TraceStart t;
  t.function = fn;
  t.filename = "cell.py";
  t.lineno = 3;
  s.record(t);
}

fs::path temp_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

AttachInfo at(int port, const std::string& key) {
  AttachInfo i;
  i.port = port;
  i.key = key;
  return i;
}
} // namespace

TEST(Sha256, MatchesTheStandardsVectors) {
  EXPECT_EQ(to_hex(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(to_hex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(to_hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(to_hex(sha256(std::string(1000000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // RFC 4231 cases 1, 2 and 6 (a key longer than a block is hashed first)
  EXPECT_EQ(hmac_hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(hmac_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(hmac_hex(std::string(131, '\xaa'),
                     "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  EXPECT_TRUE(equal_constant_time("abc", "abc"));
  EXPECT_FALSE(equal_constant_time("abc", "abd"));
  EXPECT_FALSE(equal_constant_time("abc", "ab"));
}

TEST(AttachFrame, RoundTripsByteByByteAndRefusesWhatIsNotAFrame) {
  const nlohmann::json body{{"type", "events"}, {"events", {1, 2, 3}}, {"text", "é\n\""}};
  const std::string wire = encode_frame("k", body) + encode_frame("k", {{"type", "ping"}});
  FrameReader r("k");
  std::vector<nlohmann::json> got;
  for (char c : wire) {
    r.feed(&c, 1);
    while (auto m = r.next())
      got.push_back(*m);
  }
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], body);
  EXPECT_EQ(got[1]["type"], "ping");

  FrameReader wrong("other key");
  wrong.feed(wire.data(), wire.size());
  EXPECT_THROW(wrong.next(), AttachError);

  FrameReader big("k", 1000);
  const std::string huge = encode_frame("k", {{"type", std::string(2000, 'x')}});
  big.feed(huge.data(), 4);
  EXPECT_THROW(big.next(), AttachError); // refused from its length, before it arrives

  const std::string text = "[1,2]";
  std::string not_object = std::string("\0\0\0", 3) + char(64 + text.size()) +
                           hmac_hex("k", text) + text;
  FrameReader r2("k");
  r2.feed(not_object.data(), not_object.size());
  EXPECT_THROW(r2.next(), AttachError);
}

TEST(Session, TailGivesWhatAFollowerHasNotSeen) {
  Session s;
  add_trace(s, "a");
  auto t = s.tail(0, 0);
  EXPECT_FALSE(t.continues); // a new follower: everything
  ASSERT_EQ(t.events.size(), 1u);
  add_trace(s, "b");
  add_trace(s, "c");
  auto u = s.tail(t.next, t.epoch);
  EXPECT_TRUE(u.continues);
  ASSERT_EQ(u.events.size(), 2u);
  EXPECT_EQ(u.events[0].get<TraceStart>()->function, "b");
  EXPECT_TRUE(s.tail(u.next, u.epoch).events.empty());
  s.clear();
  add_trace(s, "d");
  auto v = s.tail(u.next, u.epoch);
  EXPECT_FALSE(v.continues); // cleared: all of it again
  ASSERT_EQ(v.events.size(), 1u);
  EXPECT_EQ(v.events[0].get<TraceStart>()->function, "d");
}

TEST(Attach, StreamsTheSessionToAViewerWithTheKey) {
  Session s;
  add_trace(s, "first");
  AttachServer server(s, "secret", "127.0.0.1", 0, 20);
  ASSERT_GT(server.port(), 0);
  AttachClient client([&] { return at(server.port(), "secret"); }, 50);
  ASSERT_TRUE(eventually([&] { return client.events() == 1; })) << client.status();
  EXPECT_TRUE(client.live());
  EXPECT_NE(client.status().find("live: pid"), std::string::npos) << client.status();
  EXPECT_TRUE(eventually([&] { return server.viewers() == 1; }));
  GraphBreak b;
  b.reason = "bool() of an array value";
  b.lineno = 7;
  s.record(b);
  add_trace(s, "second");
  ASSERT_TRUE(eventually([&] { return client.events() == 3; }));
  nlohmann::json doc = *client.take_document();
  EXPECT_FALSE(client.take_document().has_value()); // taken: nothing new since
  Session copy;
  from_json(doc, copy); // the document a session file holds
  ASSERT_EQ(copy.size(), 3u);
  EXPECT_EQ(copy.query<GraphBreak>().at(0).lineno, 7);
  EXPECT_EQ(copy.pid(), s.pid());
  s.clear(); // a cleared session comes whole again
  add_trace(s, "after clear");
  ASSERT_TRUE(eventually([&] { return client.events() == 1; }));
  EXPECT_EQ(server.refused(), 0);
}

TEST(Attach, AWrongKeyIsRefusedOnBothSidesAndHarmsNothing) {
  Session s;
  add_trace(s, "x");
  AttachServer server(s, "right key", "127.0.0.1", 0, 20);
  AttachClient wrong([&] { return at(server.port(), "wrong key"); }, 50);
  ASSERT_TRUE(eventually([&] { return server.refused() >= 1; }));
  EXPECT_TRUE(eventually([&] { return wrong.status().find("refused") != std::string::npos; }))
      << wrong.status();
  EXPECT_FALSE(wrong.live());
  EXPECT_EQ(wrong.events(), 0u);
  EXPECT_FALSE(wrong.take_document().has_value());
  EXPECT_NE(server.log().at(0).find("refused 127.0.0.1:"), std::string::npos);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(server.refused(), 1); // not asked again with the key it refused
  AttachClient right([&] { return at(server.port(), "right key"); }, 50);
  EXPECT_TRUE(eventually([&] { return right.events() == 1; })) << right.status();
}

TEST(Attach, MalformedFramesAreRefusedAndTheServerGoesOn) {
  Session s;
  add_trace(s, "x");
  AttachServer server(s, "k", "127.0.0.1", 0, 20);
  {
    Fd raw = connect_to("127.0.0.1", server.port(), 1000);
    ASSERT_TRUE(send_all(raw.get(), std::string("\xff\xff\xff\xffgarbage", 11), 1000));
    ASSERT_TRUE(eventually([&] { return server.refused() == 1; }));
  }
  {
    Fd raw = connect_to("127.0.0.1", server.port(), 1000); // signed, but not an auth
    ASSERT_TRUE(send_all(raw.get(), encode_frame("k", {{"type", "auth"}, {"nonce", "old"}}), 1000));
    ASSERT_TRUE(eventually([&] { return server.refused() == 2; }));
  }
  AttachClient ok([&] { return at(server.port(), "k"); }, 50);
  EXPECT_TRUE(eventually([&] { return ok.events() == 1; })) << ok.status();
}

TEST(Attach, ReconnectsToARestartedKernelOnItsNewPort) {
  const fs::path dir = temp_dir("npc-attach-restart");
  const fs::path file = dir / "npcompile-attach-kernel-1.json";
  Session first;
  add_trace(first, "before restart");
  auto server = std::make_unique<AttachServer>(first, "k", "127.0.0.1", 0, 20);
  AttachInfo info = at(server->port(), "k");
  info.pid = ::getpid();
  write_attach_file(file, info);
  AttachClient client([&] { return read_attach(file); }, 50);
  ASSERT_TRUE(eventually([&] { return client.events() == 1; })) << client.status();
  server.reset(); // the kernel dies
  EXPECT_TRUE(eventually([&] { return !client.live(); }));
  Session second;
  add_trace(second, "after restart");
  add_trace(second, "and more");
  server = std::make_unique<AttachServer>(second, "k", "127.0.0.1", 0, 20);
  info.port = server->port();
  write_attach_file(file, info); // as the new kernel does at its start
  ASSERT_TRUE(eventually([&] { return client.events() == 2; })) << client.status();
  EXPECT_EQ(client.connections(), 2);
  fs::remove_all(dir);
}

TEST(AttachFile, FromAConnectionFileItsKeyAndTheFileBesideIt) {
  const fs::path dir = temp_dir("npc-attach-file");
  const fs::path conn = dir / "kernel-abc.json";
  std::ofstream(conn) << R"({"key": "kernel key", "shell_port": 5000, "ip": "127.0.0.1"})";
  EXPECT_THROW(read_attach(conn), std::runtime_error); // no attach file yet
  AttachInfo info;
  info.port = 41234;
  info.pid = ::getpid();
  info.connection_file = conn;
  write_attach_file(attach_file_for(conn), info);
  EXPECT_EQ(attach_file_for(conn).filename(), "npcompile-attach-kernel-abc.json");
  struct stat st {};
  ASSERT_EQ(::stat(attach_file_for(conn).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  for (const fs::path& p : {conn, attach_file_for(conn)}) {
    const AttachInfo got = read_attach(p);
    EXPECT_EQ(got.port, 41234);
    EXPECT_EQ(got.key, "kernel key"); // never written into the attach file
    EXPECT_EQ(got.host, "127.0.0.1");
  }
  std::ifstream in(attach_file_for(conn));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find("kernel key"), std::string::npos);
  EXPECT_EQ(newest_live_attach(dir), attach_file_for(conn));
  AttachInfo dead = info;
  dead.pid = 0x7ffffff0; // no such process
  write_attach_file(dir / "npcompile-attach-kernel-dead.json", dead);
  EXPECT_EQ(newest_live_attach(dir), attach_file_for(conn));
  std::ofstream(dir / "other.json") << "{}";
  EXPECT_THROW(read_attach(dir / "other.json"), std::runtime_error);
  fs::remove_all(dir);
}
